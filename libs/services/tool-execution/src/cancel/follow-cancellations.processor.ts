import { publishContracts, withPrefix } from '@stagecraft/contracts';
import type { Started } from '@stagecraft/service-shell';
import type { ToolExecutionDeps } from '../dependencies';

/**
 * `tool.cancel`: every replica hears a cancellation; the one running the call kills it. Anyone on the
 * bus may be hostile: a message that is not a notice is dropped, and only a call running here is touched.
 */
export function followCancellations({ bus, prefix, running, logger }: ToolExecutionDeps): Started {
  const subscription = bus.subscribe(withPrefix(prefix, publishContracts['tool.cancel'].subject()), (m) => {
    let body: unknown;
    try {
      body = JSON.parse(m.body);
    } catch {
      return;
    }
    const notice = publishContracts['tool.cancel'].message.safeParse(body);
    if (notice.success && running?.cancel(notice.data.callId))
      logger.info({ callId: notice.data.callId, reason: notice.data.reason }, 'tool call cancelled');
  });
  return { stop: () => subscription.unsubscribe() };
}

import { PromptAssembleReply, PromptAssembleRequest } from '@stagecraft/contracts';
import { RESTART_WINDOW_MS, requestRetrying } from '@stagecraft/messaging';
import type { DriverPorts } from './driver-ports';

/**
 * `prompt.assemble`, asked again while no prompt-assembly replica answers (none there, or one that
 * died with the request), with the same attempts and pauses as `tool.execute`. Assembling is a pure
 * function of the request, so asking twice is harmless, and a restart does not fail runs in flight.
 */
export function assemblePrompt(
  ports: Pick<DriverPorts, 'requester' | 'clock' | 'logger'>,
  request: PromptAssembleRequest,
  /** For the log line only. */
  runId?: string,
): Promise<PromptAssembleReply> {
  const now = () => ports.clock().getTime();
  return requestRetrying(ports.requester, 'prompt.assemble', request, {
    giveUpAt: now() + RESTART_WINDOW_MS,
    now,
    onRetry: (attempt, code) => ports.logger.warn({ runId, attempt, code }, 'no prompt assembly answers; asking again'),
  });
}

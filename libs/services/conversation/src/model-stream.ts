import { ModelCallMeta, ModelStreamDelta, publishContracts, withPrefix } from '@stagecraft/contracts';
import type { MessageBus } from '@stagecraft/messaging';

/**
 * The `onDelta` of one model call: each piece of text goes out on `run.<runId>.stream` as it arrives,
 * for live views only. Core NATS, never stored and never waited for: the run's events hold the answer.
 */
export function publishModelStream(bus: MessageBus, prefix: string, meta: ModelCallMeta): (text: string) => void {
  const { subject } = publishContracts['run.stream'];
  const name = withPrefix(prefix, subject(meta.runId));
  let seq = 0;
  return (text) => {
    if (text === '') return;
    const delta: ModelStreamDelta = { runId: meta.runId, requestId: meta.requestId, stage: meta.stage, seq: seq++, text };
    bus.publish(name, JSON.stringify(delta));
  };
}

import { StagecraftEvent, ToolProgress, publishContracts, withPrefix } from '@stagecraft/contracts';
import { BusSubscription, MessageBus } from './bus';

/** Live run events for UIs: `run.<runId>.events`, one message per stored event. */
export function publishRunEvent(bus: MessageBus, prefix: string, event: StagecraftEvent & { position?: string }): void {
  const runId = event.metadata.runId;
  if (!runId) return;
  bus.publish(withPrefix(prefix, publishContracts['run.events'].subject(runId)), JSON.stringify(event));
}

export function subscribeRunEvents(bus: MessageBus, prefix: string, runId: string, listener: (event: StagecraftEvent) => void): BusSubscription {
  return bus.subscribe(withPrefix(prefix, publishContracts['run.events'].subject(runId)), (m) => listener(JSON.parse(m.body)));
}

export function publishToolProgress(bus: MessageBus, prefix: string, progress: ToolProgress): void {
  bus.publish(withPrefix(prefix, publishContracts['tool.progress'].subject(progress.callId)), JSON.stringify(progress));
}

export function subscribeToolProgress(bus: MessageBus, prefix: string, callId: string, listener: (p: ToolProgress) => void): BusSubscription {
  return bus.subscribe(withPrefix(prefix, publishContracts['tool.progress'].subject(callId)), (m) => listener(JSON.parse(m.body)));
}

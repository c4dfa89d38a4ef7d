import { AsyncLocalStorage } from 'node:async_hooks';

/** The run a piece of work belongs to, for log lines; carried by async context, not by arguments. */
const runs = new AsyncLocalStorage<string>();

export function withRunContext<T>(runId: string, fn: () => T): T {
  return runs.getStore() === runId ? fn() : runs.run(runId, fn);
}

export const currentRunId = (): string | undefined => runs.getStore();

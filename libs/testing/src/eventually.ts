import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Asks `probe` again every `intervalMs` until it answers something other than `undefined`, for what
 * follows a commit asynchronously (a processor's write); gives up after `timeoutMs`, naming `what`.
 */
export async function eventually<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  { timeoutMs = 10_000, intervalMs = 50 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  for (let waited = 0; waited < timeoutMs; waited += intervalMs) {
    const found = await probe();
    if (found !== undefined) return found;
    await sleep(intervalMs);
  }
  throw new Error(`timed out waiting for ${what}`);
}

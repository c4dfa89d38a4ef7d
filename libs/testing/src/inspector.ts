import { readFileSync } from 'node:fs';

/**
 * The server's live heap, in MB, after a full collection, asked over its inspector: resident memory
 * says more about when V8 chose to collect than about what the server holds.
 */
export async function liveHeapMb(inspector: string): Promise<number> {
  const ws = new WebSocket(inspector);
  await new Promise((opened, failed) => {
    ws.onopen = opened;
    ws.onerror = failed;
  });
  type Answer = { id?: number; result?: { result?: { value?: unknown } } };
  let next = 0;
  const call = (method: string, params: object = {}) =>
    new Promise<Answer>((answered) => {
      const id = ++next;
      ws.addEventListener('message', function reply(event: MessageEvent) {
        const message = JSON.parse(String(event.data)) as Answer;
        if (message.id !== id) return;
        ws.removeEventListener('message', reply);
        answered(message);
      });
      ws.send(JSON.stringify({ id, method, params }));
    });
  await call('HeapProfiler.collectGarbage');
  const used = await call('Runtime.evaluate', { expression: 'process.memoryUsage().heapUsed', returnByValue: true });
  ws.close();
  return Number(used.result?.result?.value) / 1024 / 1024;
}

/** Resident memory of a process, in MB, from /proc. */
export const rssMb = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

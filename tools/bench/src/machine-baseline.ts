import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn, setTimeout as timerWait } from 'node:timers/promises';
import { percentile } from './stats';

export interface WakeBaseline {
  /** The fixed task's p50 when it runs straight after the previous one (microseconds). */
  busyUs: number;
  /** The same task's p50 when it runs straight after a 2 ms timer wait (microseconds). */
  afterWaitUs: number;
  ratio: number;
}

// A small, fixed piece of engine-like work: serialise and parse a few dozen event-sized objects.
const payload = Array.from({ length: 40 }, (_, i) => ({
  id: i,
  type: 'StageEntered',
  data: { stage: 'act', tools: ['read_file', 'list_dir'] },
  note: 'x'.repeat(50),
}));
const task = () => JSON.parse(JSON.stringify(payload)).length;

async function p50Of(before: () => Promise<unknown>, rounds: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    await before();
    const started = performance.now();
    task();
    samples.push(performance.now() - started);
  }
  return percentile(samples, 50) * 1000;
}

/**
 * What one wait costs on this machine, measured in the same run as the benchmark it explains: the
 * same task straight after another and straight after a 2 ms timer wait. Every deployment that
 * calls a model over HTTP, or a service over NATS, waits several times per stage, and its engine
 * work runs at the speed a thread has after waiting.
 */
export async function measureWakeBaseline(rounds = 1000): Promise<WakeBaseline> {
  await p50Of(() => nextTurn(), 200); // warm the task up
  const busyUs = await p50Of(() => nextTurn(), rounds);
  const afterWaitUs = await p50Of(() => timerWait(2), rounds);
  return { busyUs, afterWaitUs, ratio: afterWaitUs / busyUs };
}

import 'reflect-metadata';
import { loadavg } from 'node:os';
import { runReplayBench } from './replay-bench';

/** `npm run bench:replay [events]`: rebuild rate of every read model over a realistic log (100,000 events unless given). */
async function main(): Promise<void> {
  const print = (line: string) => process.stdout.write(`${line}\n`);
  const events = process.argv[2] === undefined ? 100_000 : Number(process.argv[2]);
  if (!Number.isInteger(events) || events < 1) throw new Error(`events must be a positive integer, got ${process.argv[2]}`);
  // Other work on the machine shows in every figure; the load says how much there was.
  print(
    `node ${process.version}, ${new Date().toISOString()}, load average ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  );
  await runReplayBench(print, events);
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    process.stderr.write(`${error.stack ?? error.message}\n`);
    process.exit(1);
  },
);

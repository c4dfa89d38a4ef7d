import 'reflect-metadata';
import { runRunBench } from './run-bench';

/** `npm run bench:run [runs] [only]` (`only`: a part of one deployment's name): per-stage orchestration overhead of whole runs, embedded and over NATS. */
async function main(): Promise<void> {
  const print = (line: string) => process.stdout.write(`${line}\n`);
  const runs = process.argv[2] === undefined ? undefined : Number(process.argv[2]);
  if (runs !== undefined && (!Number.isInteger(runs) || runs < 1))
    throw new Error(`runs must be a positive integer, got ${process.argv[2]}`);
  print(`node ${process.version}, ${new Date().toISOString()}`);
  await runRunBench(print, { ...(runs === undefined ? {} : { runs }), only: process.argv[3] ?? '' });
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    process.stderr.write(`${error.stack ?? error.message}\n`);
    process.exit(1);
  },
);

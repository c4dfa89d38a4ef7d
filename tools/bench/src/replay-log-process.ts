import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { recordTemplate, writeReplayLog } from './replay-log';

/**
 * Writes the bench's log (`replay-log.ts`) to the file named by the first argument, with at least as
 * many events as the second, in a process of its own: the services that record the template and the
 * copies it is written from leave nothing behind in the process that measures. Prints one JSON line.
 */
async function main(): Promise<void> {
  const [path, target] = [process.argv[2], Number(process.argv[3])];
  const started = performance.now();
  const template = await recordTemplate();
  const recordedMs = performance.now() - started;
  const log = await writeReplayLog(path, template, target);
  process.stdout.write(`${JSON.stringify({ ...log, recordedMs, writtenMs: performance.now() - started - recordedMs })}\n`);
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    process.stderr.write(`${error.stack ?? error.message}\n`);
    process.exit(1);
  },
);

import 'reflect-metadata';
import { RETENTION_COMPACTION, RETENTION_SCENARIO, runRetentionBench } from './retention-bench';

const count = (arg: string | undefined, fallback: number, name: string) => {
  const value = arg === undefined ? fallback : Number(arg);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${arg}`);
  return value;
};

/**
 * `npm run bench:retention [lastTurnRounds] [maxTokens]`: the share of facts planted early in a long
 * conversation still sent to the model at its end, before and after summary version 2.
 */
async function main(): Promise<void> {
  const scenario = { ...RETENTION_SCENARIO, lastTurnRounds: count(process.argv[2], RETENTION_SCENARIO.lastTurnRounds, 'lastTurnRounds') };
  const compaction = { ...RETENTION_COMPACTION, maxTokens: count(process.argv[3], RETENTION_COMPACTION.maxTokens, 'maxTokens') };
  process.stdout.write(`node ${process.version}, ${new Date().toISOString()}\n`);
  await runRetentionBench((line) => process.stdout.write(`${line}\n`), scenario, compaction);
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    process.stderr.write(`${error.stack ?? error.message}\n`);
    process.exit(1);
  },
);

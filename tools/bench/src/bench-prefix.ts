import 'reflect-metadata';
import { runPrefixBench } from './prefix-bench';

/** `npm run bench:prefix [rounds]`: the share of each model request a provider's prompt cache could reuse. */
async function main(): Promise<void> {
  const rounds = process.argv[2] === undefined ? 60 : Number(process.argv[2]);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`rounds must be a positive integer, got ${process.argv[2]}`);
  process.stdout.write(`node ${process.version}, ${new Date().toISOString()}\n`);
  await runPrefixBench((line) => process.stdout.write(`${line}\n`), rounds);
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    process.stderr.write(`${error.stack ?? error.message}\n`);
    process.exit(1);
  },
);

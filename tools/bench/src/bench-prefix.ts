import 'reflect-metadata';
import { runPrefixBench } from './prefix-bench';

/** `npm run bench:prefix [rounds] [--detail]`: the share of each model request a provider's prompt cache could reuse. */
async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const detail = args.includes('--detail');
  const given = args.find((a) => a !== '--detail');
  const rounds = given === undefined ? 60 : Number(given);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`rounds must be a positive integer, got ${given}`);
  process.stdout.write(`node ${process.version}, ${new Date().toISOString()}\n`);
  await runPrefixBench((line) => process.stdout.write(`${line}\n`), rounds, detail);
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    process.stderr.write(`${error.stack ?? error.message}\n`);
    process.exit(1);
  },
);

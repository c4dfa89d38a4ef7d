import { runMessagingBench } from './messaging-bench';
import { runStoreBench } from './store-bench';

/** `npm run bench:store`: event store adapters, then messaging against raw nats.js, in one run. */
async function main(): Promise<void> {
  const print = (line: string) => process.stdout.write(`${line}\n`);
  print(`node ${process.version}, ${new Date().toISOString()}`);
  await runStoreBench(print);
  print('');
  await runMessagingBench(print);
}

main().catch((error: Error) => {
  process.stderr.write(`${error.stack ?? error.message}\n`);
  process.exit(1);
});

import { runPromptBench } from './prompt-bench';

/** `npm run bench:prompt`: prompt assembly over the shipped prompts/ and the policy decision rate. */
function main(): void {
  const print = (line: string) => process.stdout.write(`${line}\n`);
  print(`node ${process.version}, ${new Date().toISOString()}`);
  runPromptBench(print);
}

try {
  main();
} catch (error) {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
}

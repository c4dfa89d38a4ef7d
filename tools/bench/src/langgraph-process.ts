import { createInterface } from 'node:readline';
import { performance } from 'node:perf_hooks';
import { langGraphLoop } from './langgraph-loop';

/**
 * The LangGraph anchor in a process of its own, as each system gets one: its native SQLite module and
 * its heap never meet the services measured beside it. Arguments: the model's URL, the project folder,
 * the checkpoint file. Reads one command a line and answers one JSON line:
 * `block N` → `{ samples: [{ wallMs, modelMs, toolMs, stages, ok }] }`; `parallel N` → `{ wallMs, failed }`.
 */
async function main(): Promise<void> {
  const [baseURL, project, checkpoints] = process.argv.slice(2);
  const loop = langGraphLoop({ baseURL, project, checkpoints });
  const reply = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);
  for await (const line of createInterface({ input: process.stdin })) {
    const [command, count] = line.trim().split(/\s+/);
    const n = Number(count);
    if (command === 'block') {
      const samples = [];
      for (let i = 0; i < n; i++) samples.push(await loop.run('Write notes about this project'));
      reply({ samples });
    } else if (command === 'parallel') {
      const started = performance.now();
      const results = await Promise.all(Array.from({ length: n }, () => loop.run('Write notes about this project')));
      reply({
        wallMs: performance.now() - started,
        failed: results.filter((r) => !r.ok).length,
        peakRssMiB: process.resourceUsage().maxRSS / 1024,
      });
    } else break;
  }
  loop.close();
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    process.stderr.write(`${error.stack ?? error.message}\n`);
    process.exit(1);
  },
);

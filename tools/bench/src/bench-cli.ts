import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { percentile } from './stats';

/**
 * `npm run bench:cli`: how long the `stagecraft` command takes to start and answer, against a bare
 * `node -e 0` measured in the same run (start-up times vary a lot between sessions on a shared
 * machine; the ratio is the figure to compare). The commands run in turn, round after round, so a
 * slow moment of the machine falls on all of them alike. Peak memory comes from one extra run of
 * each, which reports its own `maxRSS` at exit.
 */

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const BIN = join(__dirname, '..', '..', '..', 'apps', 'cli', 'bin', 'stagecraft.cjs');

interface Case {
  name: string;
  args: string[];
}

function run(args: string[], env: NodeJS.ProcessEnv = process.env): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const elapsed = performance.now() - started;
  if (result.error) throw result.error;
  return elapsed;
}

/** The peak resident memory of one run, in MB, as the process itself saw it when it exited. */
function peakMb(args: string[], dir: string): number {
  const preload = join(dir, 'report-rss.cjs');
  const out = join(dir, 'rss.txt');
  writeFileSync(
    preload,
    `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(out)}, String(process.resourceUsage().maxRSS)));\n`,
  );
  run(['--require', preload, ...args]);
  return Number(readFileSync(out, 'utf8')) / 1024;
}

function main(): void {
  const dir = mkdtempSync(join(tmpdir(), 'stagecraft-bench-cli-'));
  try {
    const store = `sqlite:${join(dir, 'events.db')}`;
    const cases: Case[] = [
      { name: 'node -e 0', args: ['-e', '0'] },
      { name: 'stagecraft --version', args: [BIN, '--version'] },
      { name: 'stagecraft --help', args: [BIN, '--help'] },
      { name: 'stagecraft runs show <missing id>', args: [BIN, 'runs', 'show', 'no-such-run', '--store', store] },
    ];
    // One untimed round: the first start reads every file from disk, later ones from the page cache.
    for (const c of cases) run(c.args);
    const samples = new Map(cases.map((c) => [c.name, [] as number[]]));
    for (let round = 0; round < RUNS; round++) for (const c of cases) samples.get(c.name)?.push(run(c.args));
    const baseline = percentile(samples.get(cases[0].name) ?? [], 50);

    console.log(`stagecraft start-up: ${RUNS} runs of each command, in turn (Node ${process.versions.node})`);
    console.log('');
    console.log(`${'command'.padEnd(36)}${'p50'.padStart(10)}${'p90'.padStart(10)}${'× node -e 0'.padStart(13)}${'peak RSS'.padStart(11)}`);
    for (const c of cases) {
      const times = samples.get(c.name) ?? [];
      const p50 = percentile(times, 50);
      console.log(
        `${c.name.padEnd(36)}${`${p50.toFixed(1)} ms`.padStart(10)}${`${percentile(times, 90).toFixed(1)} ms`.padStart(10)}${`${(p50 / baseline).toFixed(2)}`.padStart(13)}${`${peakMb(c.args, dir).toFixed(0)} MB`.padStart(11)}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();

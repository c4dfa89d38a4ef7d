import 'reflect-metadata';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { streams } from '@stagecraft/contracts';
import { CHROMIUM_ARGS, REPO_ROOT, eventually, requireChromium, spawnProcess } from '@stagecraft/testing';
import { recordTemplate, writeReplayLog } from './replay-log';
import { percentile } from './stats';

/**
 * `npm run bench:console [runs]`: how fast the web console shows its runs table over a store of 3,000 runs
 * (unless given). The store is copies of a real workload (agent and chat runs, a continued conversation, a
 * failure) written straight into SQLite; `stagecraft console --store` serves it; Debian's Chromium loads the
 * page and the time to the table is read from the page's own performance mark (`runs-visible`, taken once
 * the first page of runs is rendered), measured from navigation start. Target: under 1 s.
 */
const TOKEN = 'bench-console-token-0123456789abcdef012345';
const ROUNDS = 7;

interface Load {
  visibleMs: number;
  domContentLoadedMs: number;
}

/** Copies of a real workload's events (6 runs each) until the store holds `runs` runs. */
async function writeStore(path: string, runs: number, print: (line: string) => void): Promise<void> {
  const started = performance.now();
  const template = await recordTemplate();
  const templateRuns = template.filter((e) => e.type === 'RunStarted').length;
  // writeReplayLog copies the template until the log holds `target` events; prompt bodies are written once.
  const perCopy = template.filter((e) => !e.streamId.startsWith(streams.promptBody(''))).length;
  const log = await writeReplayLog(path, template, template.length + (Math.ceil(runs / templateRuns) - 1) * perCopy);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  print(`store: ${log.runs} runs, ${log.events} events, ${(log.bytes / 1e6).toFixed(1)} MB, written in ${seconds} s`);
}

async function main(): Promise<void> {
  const print = (line: string) => process.stdout.write(`${line}\n`);
  const wanted = process.argv[2] === undefined ? 3_000 : Number(process.argv[2]);
  if (!Number.isInteger(wanted) || wanted < 1) throw new Error(`runs must be a positive integer, got ${process.argv[2]}`);
  const executablePath = requireChromium();
  print(
    `node ${process.version}, ${new Date().toISOString()}, load average ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  );

  const dir = mkdtempSync(join(tmpdir(), 'stagecraft-bench-console-'));
  // A second argument keeps the generated store there, and reuses it when it exists already.
  const kept = process.argv[3];
  const path = kept ?? join(dir, 'events.db');
  try {
    if (kept && existsSync(kept)) print(`store: reusing ${kept}`);
    else await writeStore(path, wanted, print);

    const started = performance.now();
    const console_ = spawnProcess(
      'console',
      process.execPath,
      [join(REPO_ROOT, 'apps', 'cli', 'bin', 'stagecraft.cjs'), 'console', '--store', `sqlite:${path}`, '--port', '0'],
      {
        OPENAI_API_KEY: '',
        OPENAI_BASE_URL: '',
        NATS_URL: '',
        STAGECRAFT_API_TOKEN: TOKEN,
      },
    );
    try {
      const base = await eventually(
        async () => {
          if (console_.child.exitCode !== null) throw new Error(`stagecraft console exited:\n${console_.output()}`);
          return /(http:\/\/127\.0\.0\.1:\d+)\/#token=/.exec(console_.output())?.[1];
        },
        'the console to print its URL',
        { timeoutMs: 300_000, intervalMs: 50 },
      );
      print(`console up (URL printed) in ${((performance.now() - started) / 1000).toFixed(2)} s`);

      // The API alone: the newest page of the runs list, as the table asks for it.
      const api: number[] = [];
      for (let i = 0; i < 20; i += 1) {
        const t0 = performance.now();
        const reply = await fetch(`${base}/api/v1/runs?limit=50`, { headers: { authorization: `Bearer ${TOKEN}` } });
        const text = await reply.text();
        if (!reply.ok || !text.includes('"runId"')) throw new Error(`GET /api/v1/runs: ${reply.status} ${text.slice(0, 300)}`);
        api.push(performance.now() - t0);
      }
      print(
        `GET /api/v1/runs?limit=50: median ${percentile(api, 50).toFixed(1)} ms, p95 ${percentile(api, 95).toFixed(1)} ms (20 requests)`,
      );

      const browser = await chromium.launch({
        executablePath,
        headless: true,
        args: [...CHROMIUM_ARGS],
      });
      try {
        const measure = async (page: Page, url: string): Promise<Load> => {
          await page.goto(url);
          await page.locator('[data-testid="runs-table"][data-ready="true"] [data-testid="run-row"]').first().waitFor({ timeout: 60_000 });
          return page.evaluate(() => {
            // Runs in the page, where `navigation` entries exist (Node's types do not know them).
            const nav = performance.getEntriesByType('navigation' as 'mark')[0] as unknown as { domContentLoadedEventEnd: number };
            return {
              visibleMs: performance.getEntriesByName('runs-visible')[0].startTime,
              domContentLoadedMs: nav.domContentLoadedEventEnd,
            };
          });
        };
        // Cold: a new browser context each time (empty cache, token from the fragment); warm: a reload.
        const cold: Load[] = [];
        const warm: Load[] = [];
        for (let i = 0; i < ROUNDS; i += 1) {
          const context = await browser.newContext();
          const page = await context.newPage();
          cold.push(await measure(page, `${base}/#token=${TOKEN}`));
          warm.push(await measure(page, `${base}/runs`));
          await context.close();
        }
        const line = (name: string, loads: Load[]) => {
          const visible = loads.map((l) => l.visibleMs);
          const dcl = loads.map((l) => l.domContentLoadedMs);
          return `${name}: runs table visible median ${percentile(visible, 50).toFixed(0)} ms, max ${Math.max(...visible).toFixed(0)} ms (DOMContentLoaded median ${percentile(dcl, 50).toFixed(0)} ms), ${loads.length} loads`;
        };
        print(line('cold load (new context)', cold));
        print(line('warm load (cached assets)', warm));
        const worst = Math.max(...cold.map((l) => l.visibleMs));
        print(`target < 1000 ms over ${wanted}+ runs: ${worst < 1000 ? 'met' : 'NOT met'} (worst cold load ${worst.toFixed(0)} ms)`);
      } finally {
        await browser.close();
      }
    } finally {
      await console_.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    process.stderr.write(`${error.stack ?? error.message}\n`);
    process.exit(1);
  },
);

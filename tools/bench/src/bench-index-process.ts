import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { applyIndexUpdate, emptyIndex } from '@stagecraft/index';
import { indexProject } from '@stagecraft/tools';

/**
 * One fresh process indexing a tree, as `stagecraft index` does: a full build, then (when a path is
 * given) an edit of that file and the incremental update. Prints its timings as one JSON line; the
 * parent measures the process as a whole (wall time and peak memory, work on other threads included).
 */
async function main() {
  const [root, edited] = process.argv.slice(2);
  const started = performance.now();
  const view = applyIndexUpdate(emptyIndex(), await indexProject(root, undefined));
  const fullMs = performance.now() - started;
  let incrementalMs: number | undefined;
  if (edited) {
    const absolute = join(root, edited);
    const before = readFileSync(absolute);
    writeFileSync(absolute, Buffer.concat([before, Buffer.from('\n// bench edit\n')]));
    const t = performance.now();
    applyIndexUpdate(view, await indexProject(root, view, [edited]));
    incrementalMs = performance.now() - t;
    writeFileSync(absolute, before);
  }
  const symbols = [...view.files.values()].reduce((n, f) => n + f.symbols.length, 0);
  process.stdout.write(`${JSON.stringify({ files: view.files.size, symbols, fullMs, incrementalMs })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});

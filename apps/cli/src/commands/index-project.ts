import { randomUUID } from 'node:crypto';
import { realpath, stat } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { StagecraftError } from '@stagecraft/contracts';
import { openEventStore } from '@stagecraft/event-store';
import { listEntryPoints } from '@stagecraft/index';
import { codebaseIndexView, updateCodebaseIndex } from '@stagecraft/tool-execution-service';

export interface IndexSummary {
  root: string;
  files: number;
  changed: number;
  removed: number;
  symbols: number;
  entryPoints: number;
  ms: number;
}

/**
 * `stagecraft index --root DIR`: brings the root's codebase index in the store up to date, as the tool
 * service does on first use: one `IndexUpdated` with the files changed since the last one (none when
 * nothing changed).
 */
export async function indexProjectCommand(rootArg: string, storeUrl: string): Promise<IndexSummary> {
  const info = await stat(rootArg).catch(() => null);
  if (!info?.isDirectory())
    throw new StagecraftError('VALIDATION', `'${rootArg}' is not a directory`, [
      { path: ['root'], message: 'an existing project directory' },
    ]);
  const root = await realpath(rootArg);
  const store = openEventStore(storeUrl);
  try {
    const started = performance.now();
    const metadata = { correlationId: `index-${randomUUID()}`, occurredAt: new Date().toISOString() };
    const update = await updateCodebaseIndex({ store, newId: randomUUID, metadata }, root);
    const view = await codebaseIndexView(store, root);
    const symbols = [...view.files.values()].reduce((n, f) => n + f.symbols.length, 0);
    return {
      root,
      files: view.files.size,
      changed: update?.files.length ?? 0,
      removed: update?.removed.length ?? 0,
      symbols,
      entryPoints: listEntryPoints(view).length,
      ms: Math.round(performance.now() - started),
    };
  } finally {
    await store.close();
  }
}

export const formatIndexSummary = (s: IndexSummary) =>
  `indexed ${s.root}: ${s.files} file${s.files === 1 ? '' : 's'} (${s.changed} new or changed, ${s.removed} removed), ${s.symbols} symbols, ${s.entryPoints} entry points in ${s.ms} ms\n`;

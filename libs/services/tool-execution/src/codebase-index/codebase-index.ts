import { isAbsolute, relative, resolve, sep } from 'node:path';
import { EventMetadata, IndexMapReply, IndexMapRequest, ToolName, indexEvents, streams } from '@stagecraft/contracts';
import { readEvents } from '@stagecraft/event-store';
import type { EventStore } from '@stagecraft/event-store';
import { IndexView, evolveIndex, emptyIndex, projectMap } from '@stagecraft/index';
import { checkProjectRoot, indexProject, indexProjectKey, parsePatch } from '@stagecraft/tools';
import type { IndexUpdate } from '@stagecraft/tools';

/**
 * The codebase index is a read model of `index-<project>`, whose one writer is this service (it is
 * the one that reads and writes project files: docs/decisions/0022). Each process keeps the views it
 * folded, and reads only the events appended since.
 */
interface Cached {
  view: IndexView;
  /** Revision of the last event folded in; -1 before any. */
  revision: bigint;
  /** One fold or update at a time per stream. */
  busy: Promise<unknown>;
}

const folded = new WeakMap<EventStore, Map<string, Cached>>();

function cacheOf(store: EventStore, stream: string): Cached {
  let byStream = folded.get(store);
  if (!byStream) folded.set(store, (byStream = new Map()));
  let cached = byStream.get(stream);
  if (!cached) byStream.set(stream, (cached = { view: emptyIndex(), revision: -1n, busy: Promise.resolve() }));
  return cached;
}

async function catchUp(store: EventStore, stream: string, cached: Cached): Promise<IndexView> {
  const events = await readEvents(store, stream, indexEvents, cached.revision >= 0n ? { fromRevision: cached.revision + 1n } : undefined);
  for (const event of events) {
    cached.view = evolveIndex(cached.view, event);
    cached.revision = event.revision;
  }
  return cached.view;
}

const serially = <T>(cached: Cached, work: () => Promise<T>): Promise<T> => {
  const next = cached.busy.then(work, work);
  cached.busy = next.catch(() => undefined);
  return next;
};

/** The index of a project root (its real path) as the log holds it now. */
export function codebaseIndexView(store: EventStore, root: string): Promise<IndexView> {
  const stream = streams.index(indexProjectKey(root));
  const cached = cacheOf(store, stream);
  return serially(cached, () => catchUp(store, stream, cached));
}

export interface IndexAppend {
  store: EventStore;
  newId: () => string;
  metadata: EventMetadata;
}

/**
 * Indexes the whole root (no `paths`) or only the named files, against the view the log holds, and
 * records what changed as one `IndexUpdated`; nothing is recorded when nothing changed.
 */
export function updateCodebaseIndex(append: IndexAppend, root: string, paths?: readonly string[]): Promise<IndexUpdate | null> {
  const stream = streams.index(indexProjectKey(root));
  const cached = cacheOf(append.store, stream);
  return serially(cached, async () => {
    const view = await catchUp(append.store, stream, cached);
    const update = await indexProject(root, view, paths);
    if (update.files.length === 0 && update.removed.length === 0 && view.root === root) return null;
    await append.store.appendToStream(stream, [{ id: append.newId(), type: 'IndexUpdated', data: update, metadata: append.metadata }], {
      expectedRevision: 'any',
    });
    await catchUp(append.store, stream, cached);
    return update;
  });
}

function named(tool: ToolName, args: unknown): string[] {
  const a = (args ?? {}) as Record<string, unknown>;
  if (tool === 'write_file' && typeof a.path === 'string') return [a.path];
  if (tool === 'apply_patch' && typeof a.patch === 'string') {
    try {
      return parsePatch(a.patch).flatMap((p) => [p.oldPath, p.newPath].filter((x): x is string => typeof x === 'string'));
    } catch {
      return [];
    }
  }
  return [];
}

/** The index of a root for the index tools: the first use of a root indexes the whole tree. */
export async function indexFor(append: IndexAppend, root: string): Promise<IndexView> {
  const view = await codebaseIndexView(append.store, root);
  if (view.updates > 0) return view;
  await updateCodebaseIndex(append, root);
  return codebaseIndexView(append.store, root);
}

/** The files a write touched, `/`-separated and relative to the root; none for every other tool. */
export function changedPaths(root: string, tool: ToolName, args: unknown): string[] {
  return named(tool, args)
    .map((path) => relative(root, resolve(root, path)).split(sep).join('/'))
    .filter((path) => path !== '' && !path.startsWith('..') && !isAbsolute(path));
}

/**
 * `index.map`: the few lines warmup shows of a project, its top-level layout and entry points. The
 * root is checked as a tool call's is, and indexed on first use.
 */
export async function projectMapFor(
  ports: { store: EventStore; newId: () => string; clock: () => Date; options: { allowedRoots?: readonly string[] } },
  request: IndexMapRequest,
  context: { correlationId: string },
): Promise<IndexMapReply> {
  const root = await checkProjectRoot(request.projectRoot, ports.options.allowedRoots);
  const metadata: EventMetadata = { correlationId: context.correlationId, occurredAt: ports.clock().toISOString() };
  if (request.runId) metadata.runId = request.runId;
  const view = await indexFor({ store: ports.store, newId: ports.newId, metadata }, root);
  return { map: projectMap(view), files: view.files.size };
}

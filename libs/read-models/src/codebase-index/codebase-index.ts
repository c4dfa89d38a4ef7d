import type { IndexEvent, IndexedFile, Projection, RecordedEvent } from '@stagecraft/contracts';
import { entryOf } from '../logged';

/** One project root's index: its files by path. */
export interface ProjectIndex {
  root: string;
  files: Record<string, IndexedFile>;
  updates: number;
}

/** Every project's codebase index, by its `index-<project>` stream. */
export interface CodebaseIndexView {
  projects: Record<string, ProjectIndex>;
}

const INDEX_STREAM = 'index-';

/**
 * The codebase index as a checkpointed view (docs/decisions/0022): the tool service, its only writer,
 * folds the same `IndexUpdated` events for its tools; this model is what `stagecraft replay --verify`
 * rebuilds and compares. The fold owns its view: it replaces a project's entry, never changing one it
 * has handed out.
 */
export const codebaseIndexModel: Projection<CodebaseIndexView> = {
  name: 'memory-codebase-index',
  handles: ['IndexUpdated'],
  initialState: () => ({ projects: {} }),
  evolve(view, logged: RecordedEvent) {
    if (!logged.streamId.startsWith(INDEX_STREAM) || logged.type !== 'IndexUpdated') return view;
    const { data } = logged as unknown as IndexEvent;
    const before = entryOf(view.projects, logged.streamId);
    const files: Record<string, IndexedFile> = { ...before?.files };
    for (const path of data.removed) delete files[path];
    for (const file of data.files) files[file.path] = file;
    view.projects[logged.streamId] = { root: data.root, files, updates: (before?.updates ?? 0) + 1 };
    return view;
  },
};

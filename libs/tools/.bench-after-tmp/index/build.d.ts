import type { EventData, IndexedFile } from '@stagecraft/contracts';
import { IndexView, ParseSource } from '@stagecraft/index';
export type IndexUpdate = EventData<'IndexUpdated'>;
/** Larger files are listed with their size, not parsed. */
export declare const INDEX_FILE_MAX_BYTES: number;
/** The `index-<project>` stream's key for a project root: a digest of its real path. */
export declare const indexProjectKey: (root: string) => string;
/** One file as the index records it, or null when it is gone or not a regular file. */
export declare function indexFile(root: string, path: string, parseSource?: ParseSource, previous?: IndexedFile): Promise<IndexedFile | null>;
/**
 * What changed since `previous`: every kept file of the tree (when `paths` is absent), or only the
 * named paths (after an edit). Unchanged files are left out; files gone or now ignored are removed.
 */
export declare function indexProject(root: string, previous: IndexView | undefined, paths?: readonly string[]): Promise<IndexUpdate>;
//# sourceMappingURL=build.d.ts.map
import { FilePatch } from './parse-patch';
/**
 * The new content of one file after all of its hunks, or a PATCH_REJECTED failure naming the first
 * hunk that does not apply. `original` null means the file is created; a `null` result means deleted.
 * Context lines keep the file's own text, so a whitespace-tolerant match never rewrites them.
 */
export declare function applyHunks(original: string | null, file: FilePatch, path: string): string | null;
//# sourceMappingURL=apply-hunks.d.ts.map
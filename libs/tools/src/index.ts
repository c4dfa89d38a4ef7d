export { DEFAULT_ALLOWED_COMMANDS, LIMITS } from './context';
export type { ToolContext } from './context';
export { failed, succeeded, ToolFailureError } from './outcome';
export type { FailureKind, ToolFailure, ToolOutcome } from './outcome';
export { TOOLS, executeTool, toolSignature, toolSpecs } from './registry';
export { toolCallBudgetMs } from './budget';
export type { ToolSpec } from './registry';
export {
  resolveInsideRoot,
  resolveWritableInsideRoot,
  displayPath,
  isInside,
  touchesVcsMetadata,
} from './sandbox/resolve-inside-root';
export { readHeld, removeInsideRoot, withHandle, writeInsideRoot } from './sandbox/pinned';
export { checkProjectRoot } from './sandbox/project-root';
export { ReadFileArgs } from './read-file';
export { ListDirArgs } from './list-dir';
export { SearchCodeArgs } from './search-code';
export { WriteFileArgs } from './write-file';
export { ApplyPatchArgs } from './apply-patch/apply-patch';
export { parsePatch } from './apply-patch/parse-patch';
export type { FilePatch, Hunk, HunkLine } from './apply-patch/parse-patch';
export { applyHunks } from './apply-patch/apply-hunks';
export { RunCommandArgs } from './run-command/run-command';
export { FindSymbolArgs, ListEntryPointsArgs, SearchIndexArgs } from './index/index-tools';
export { indexProject, indexFile, indexProjectKey, INDEX_FILE_MAX_BYTES } from './index/build';
export type { IndexUpdate } from './index/build';
export { loadParsers } from './index/parsers';
export { GitIgnore, listProjectFiles, ALWAYS_SKIPPED } from './index/scan';
export { MemoryRecallArgs, MemoryRetainArgs, MemoryReflectArgs } from './memory-tools';
export type { MemoryPort } from './memory-tools';

/** The codebase index as plain functions: languages, symbols and entry points of a project's files, and the view that folds them. */
export { languageOf, PARSED_LANGUAGES } from './language';
export type { ParseSource, SyntaxNode } from './syntax';
export { extractSymbols, mainEntryPoints } from './symbols';
export { manifestEntryPoints, pyprojectEntryPoints, MANIFESTS, serviceEntryOf } from './entry-points';
export { indexSource } from './index-file';
export type { SourceIndex } from './index-file';
export {
  emptyIndex,
  evolveIndex,
  applyIndexUpdate,
  foldIndex,
  serializeIndex,
  findSymbol,
  listEntryPoints,
  searchIndex,
  projectMap,
} from './view';
export type { IndexView, SymbolHit, SymbolMatch, MatchQuality, FindSymbolQuery, EntryPointHit, SearchHit } from './view';
export { cosine } from './cosine';

export { evolveScope, fuseRankings, liveMemories, memoriesModel, memoryOf, memoryTerms, rankMemories } from './memories';
export type { MemoriesView, MemoryEntry, MemoryLink, ScopeMemories } from './memories';

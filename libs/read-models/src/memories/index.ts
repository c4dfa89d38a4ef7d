export { confirmMemory, evolveScope, fuseRankings, liveMemories, memoriesModel, memoryOf, memoryTerms, rankMemories } from './memories';
export type { MemoriesView, MemoryEntry, MemoryLink, ProvisionalMemory, ScopeMemories } from './memories';

export {
  RECENT_OUTCOMES,
  confirmMemory,
  evolveScope,
  fuseRankings,
  interleaveRankings,
  liveMemories,
  memoriesModel,
  memoryOf,
  memoryTerms,
  rankMemories,
  recallRanking,
  recentOutcomes,
} from './memories';
export type { MemoriesView, MemoryEntry, MemoryLink, ProvisionalMemory, ScopeMemories } from './memories';

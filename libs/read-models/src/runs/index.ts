export { QA_MODEL, UNKNOWN_MODEL, recordOf, rootOfConversation, rootOfRun, runsModel } from './runs';
export type { RunEntry, RunsView } from './runs';
export { isResumable, isStuck, listRuns, runOf, stuckRuns } from './list-runs';
export type { Idleness, RunsQuery } from './list-runs';
export { costOf } from './cost';
export { listRunSummaries, summarize } from './summary';
export type { Reading } from './summary';

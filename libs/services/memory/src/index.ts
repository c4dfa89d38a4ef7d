/** The memory service: long-term memories per project, and the read models the next turn and the CLI read, as a handler table. */
import { ServiceDefinition, defineService } from '@stagecraft/service-shell';
import { MemoryDeps, MemoryOptions, memoryDeps } from './dependencies';
import { history } from './history/history.handler';
import { reasoningOutcome } from './reasoning-outcome/reasoning-outcome.handler';
import { recall } from './recall/recall.handler';
import { reflect } from './reflect/reflect.handler';
import { retain } from './retain/retain.handler';
import { followRunOutcomes } from './run-outcomes/run-outcomes.processor';
import { runsGet } from './runs-get/runs-get.handler';
import { runsList } from './runs-list/runs-list.handler';
import { runViews } from './views/run-views.processor';

export { memoryConfigFromEnv, DEFAULT_STUCK_AFTER_MS, type MemoryConfig } from './config';
export type { MemoryDeps, MemoryOptions } from './dependencies';
export { ViewHost, type ViewHostOptions } from './views/view-host';
export { DEFAULT_RUN_OUTCOME_LIMIT, MemoryBook, type Embedder } from './memory-scope/memory-book';
export { memoryDecider, type MemoryInput, type MemoryScopeState } from './memory-scope/memory.decider';
export { RUN_OUTCOMES, runOutcomeContent, runOutcomeMemoryId, runOutcomes } from './run-outcomes/run-outcomes.processor';
export { planReflection, reflectionText } from './reflect/reflection';
export { commandKind, projectFactContent, projectFactMemoryId, projectFacts, type ProjectFact } from './run-outcomes/project-facts';

/**
 * Every read model starts from its checkpoint with the service, then the run-outcome write policy
 * (which reads the memories view); they stop in the reverse order, each saved.
 */
export function memoryServiceWith(options: MemoryOptions): ServiceDefinition {
  return defineService<MemoryDeps>({
    name: 'memory',
    usesStore: true,
    touchesProjects: true,
    start: (ports) => memoryDeps(ports, options),
    handlers: {
      'memory.retain': retain,
      'memory.recall': recall,
      'memory.reflect': reflect,
      'memory.reasoning-outcome.get': reasoningOutcome,
      'memory.history.get': history,
      'runs.list': runsList,
      'runs.get': runsGet,
    },
    processors: {
      views: runViews,
      'run outcomes': followRunOutcomes,
    },
  });
}

export const memoryService: ServiceDefinition = memoryServiceWith({});

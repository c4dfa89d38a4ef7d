import { StagecraftError, WorkflowDefinition } from '@stagecraft/contracts';

/** A workflow file that did not check: its id (from its name), its path, and what is wrong with it. */
export interface SkippedWorkflow {
  id: string;
  file: string;
  problem: string;
}

export interface WorkflowCatalog {
  /** Sorted. */
  ids(): readonly string[];
  get(id: string): WorkflowDefinition;
  /** The files left out, to report; asking for one of their ids names the file and its problem. */
  skipped(): readonly SkippedWorkflow[];
}

export function createWorkflowCatalog(
  definitions: readonly WorkflowDefinition[],
  skipped: readonly SkippedWorkflow[] = [],
): WorkflowCatalog {
  const byId = new Map<string, WorkflowDefinition>();
  for (const definition of definitions) {
    if (byId.has(definition.id)) {
      throw new StagecraftError('VALIDATION', `workflow "${definition.id}" is defined twice`, [
        { path: [definition.id], message: 'duplicate id' },
      ]);
    }
    byId.set(definition.id, definition);
  }
  const ids = Object.freeze([...byId.keys()].sort());
  const left = Object.freeze([...skipped]);
  return {
    ids: () => ids,
    skipped: () => left,
    get(id) {
      const definition = byId.get(id);
      if (definition !== undefined) return definition;
      const bad = left.find((s) => s.id === id);
      if (bad !== undefined)
        throw new StagecraftError('VALIDATION', `workflow "${id}" was skipped: ${bad.problem}`, [
          { path: ['workflow'], message: `${bad.file}: ${bad.problem}` },
        ]);
      throw new StagecraftError('NOT_FOUND', `no workflow with id "${id}"`, [{ path: ['workflowId'], message: 'unknown workflow' }]);
    },
  };
}

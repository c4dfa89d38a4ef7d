import { StagecraftError, WorkflowDefinition } from '@stagecraft/contracts';

export interface WorkflowCatalog {
  /** Sorted. */
  ids(): readonly string[];
  get(id: string): WorkflowDefinition;
}

export function createWorkflowCatalog(definitions: readonly WorkflowDefinition[]): WorkflowCatalog {
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
  return {
    ids: () => ids,
    get(id) {
      const definition = byId.get(id);
      if (definition === undefined)
        throw new StagecraftError('NOT_FOUND', `no workflow with id "${id}"`, [{ path: ['workflowId'], message: 'unknown workflow' }]);
      return definition;
    },
  };
}

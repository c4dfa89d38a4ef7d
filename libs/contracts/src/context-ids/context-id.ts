import { CONTEXT_ID_PATTERN, ContextIdParts, ContextIdString, formatSequence } from '../context';
import { StagecraftError, issuesFromZod } from '../errors';

/** `{workflowRunId}/{agentType}/{sequence}/{timestamp}`; every part is checked, so the result always parses back. */
export function formatContextId(parts: ContextIdParts): string {
  const checked = ContextIdParts.safeParse(parts);
  if (!checked.success) throw new StagecraftError('VALIDATION', 'invalid context id parts', issuesFromZod(checked.error));
  const { workflowRunId, agentType, sequence, timestamp } = checked.data;
  return `${workflowRunId}/${agentType}/${formatSequence(sequence)}/${timestamp}`;
}

export function parseContextId(contextId: string): ContextIdParts {
  const checked = ContextIdString.safeParse(contextId);
  const match = checked.success ? CONTEXT_ID_PATTERN.exec(checked.data) : null;
  if (!checked.success || match === null) {
    const issues = checked.success ? [] : issuesFromZod(checked.error);
    throw new StagecraftError('VALIDATION', `malformed context id ${JSON.stringify(contextId)}`, issues);
  }
  const [, workflowRunId, agentType, sequence, timestamp] = match;
  return { workflowRunId, agentType, sequence: Number(sequence), timestamp };
}

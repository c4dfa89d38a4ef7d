import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import { StagecraftError, apiV1, indexEvents, memoryScopeOf, streams } from '@stagecraft/contracts';
import { readEvents } from '@stagecraft/event-store';
import { emptyIndex, evolveIndex, projectMap } from '@stagecraft/index';
import { ScopeMemories, entryOf, evolveScope, liveMemories, memoryOf, rankMemories } from '@stagecraft/read-models';
import { indexProjectKey } from '@stagecraft/tools';
import type { ApiPorts } from './ports';
import type { ConsoleView } from './view/console-view';

/** Workflows, newest first, from the console view. */
export function listWorkflows(view: ConsoleView, limit: number): { workflows: apiV1.WorkflowRowV1[] } {
  const workflows = view.workflowOrder
    .slice(-limit)
    .reverse()
    .flatMap((id) => {
      const entry = entryOf(view.workflows, id);
      return entry
        ? [
            {
              workflowId: id,
              goal: entry.goal,
              projectRoot: entry.projectRoot,
              status: entry.status,
              startedAt: entry.startedAt,
              runs: entry.runs,
            },
          ]
        : [];
    });
  return { workflows };
}

/** What waits for a person: the runs' tool calls and the workflows' gates. */
export function pendingApprovals(view: ConsoleView): apiV1.ApprovalRowV1[] {
  const rows: apiV1.ApprovalRowV1[] = [];
  for (const runId of view.runs.started) {
    const run = entryOf(view.runs.runs, runId);
    if (run?.status === 'running' && run.pendingApproval)
      rows.push({ ...run.pendingApproval, target: 'run', id: runId, runId, ...(run.workflowId ? { workflowId: run.workflowId } : {}) });
  }
  for (const workflowId of view.workflowOrder) {
    const workflow = entryOf(view.workflows, workflowId);
    if (workflow?.pendingApproval) rows.push({ ...workflow.pendingApproval, target: 'workflow', id: workflowId, workflowId });
  }
  return rows;
}

/**
 * A project's memories as its scope's stream holds them (read from the log: clients may not ask the
 * memory service's internal subjects): for `q`, ranked by the same BM25 the memory service recalls with;
 * without, the live ones, latest first.
 */
export async function memoriesOf(
  ports: Pick<ApiPorts, 'log'>,
  query: { projectRoot: string; q?: string; limit: number },
): Promise<apiV1.MemoriesReplyV1> {
  const id = memoryScopeOf(query.projectRoot);
  const empty: ScopeMemories = { scope: id, memories: {}, live: [], documentFrequency: {}, totalLength: 0, links: [], position: '0' };
  const scope = (await ports.log.readStream(streams.memory(id))).reduce((folded, event) => evolveScope(folded, event), empty);
  if (query.q !== undefined) return { memories: rankMemories(scope, query.q, { limit: query.limit }) };
  return {
    memories: liveMemories(scope)
      .reverse()
      .slice(0, query.limit)
      .map((entry) => memoryOf(id, entry)),
  };
}

/** The project's codebase index summary (its layout and entry points), as the log holds it; 404 before it was first indexed. */
export async function indexOf(
  ports: Pick<ApiPorts, 'log'>,
  projectRoot: string,
): Promise<{ projectRoot: string; map: string; files: number }> {
  const root = await realpath(resolve(projectRoot)).catch(() => resolve(projectRoot));
  const events = await readEvents(ports.log, streams.index(indexProjectKey(root)), indexEvents);
  if (events.length === 0) throw new StagecraftError('NOT_FOUND', `no codebase index of ${root} (stagecraft index --root ${root})`);
  const view = events.reduce(evolveIndex, emptyIndex());
  return { projectRoot: root, map: projectMap(view), files: view.files.size };
}

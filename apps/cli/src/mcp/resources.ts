import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { Id, StagecraftError, WorkflowView, toErrorReply } from '@stagecraft/contracts';
import { runTimeline } from '../commands/runs';
import type { McpContext } from './context';

/** JSON-RPC's "resource not found" (the MCP specification's code; the SDK has no name for it). */
const RESOURCE_NOT_FOUND = -32002;

export const timelineUri = (runId: string) => `stagecraft://runs/${runId}/timeline`;
export const workflowTreeUri = (workflowId: string) => `stagecraft://workflows/${workflowId}/tree`;

/** An id taken from a resource URI, checked like the contracts check it. */
function idFrom(variables: Record<string, string | string[]>, name: string): string {
  const raw = variables[name];
  const parsed = Id.safeParse(Array.isArray(raw) ? raw[0] : raw);
  if (parsed.success) return parsed.data;
  const reply = toErrorReply(
    new StagecraftError(
      'VALIDATION',
      `invalid ${name}`,
      parsed.error.issues.map((issue) => ({ path: [name], message: issue.message, code: issue.code })),
    ),
  );
  throw new McpError(ErrorCode.InvalidParams, reply.message, reply);
}

function asMcpError(error: unknown): McpError {
  if (error instanceof McpError) return error;
  const reply = toErrorReply(error);
  return new McpError(reply.code === 'NOT_FOUND' ? RESOURCE_NOT_FOUND : ErrorCode.InternalError, reply.message, reply);
}

/** A run's events as `stagecraft runs show` prints them (text), and the same events as JSON. */
export async function readTimeline(context: McpContext, uri: string, runId: string) {
  const lines = await runTimeline(context.log, runId, false);
  if (lines === null)
    throw new McpError(RESOURCE_NOT_FOUND, `no run ${runId}`, { code: 'NOT_FOUND', message: `no run ${runId}`, issues: [] });
  const events = ((await runTimeline(context.log, runId, true)) ?? []).map((line) => JSON.parse(line) as unknown);
  return {
    contents: [
      { uri, mimeType: 'text/plain', text: `${lines.join('\n')}\n` },
      { uri, mimeType: 'application/json', text: JSON.stringify({ runId, events }) },
    ],
  };
}

/** A workflow as a tree: its phases, each phase's agents, each agent's run (as the run view has it, null before it starts). */
export async function workflowTree(context: McpContext, workflowId: string) {
  const view: WorkflowView = await context.requester.request('workflow.get', { workflowId });
  const runOf = (runId: string) =>
    context.requester.request('conversation.run.get', { runId }).then(
      ({ run }) => ({
        runId,
        status: run.status,
        stage: run.stage,
        deliveryState: run.deliveryState,
        eventCount: run.eventCount,
        pendingApproval: run.pendingApproval,
        timeline: timelineUri(runId),
      }),
      () => null,
    );
  const phases = await Promise.all(
    view.phases.map(async ({ agents, ...phase }) => ({
      ...phase,
      agents: await Promise.all(
        agents.map(async ({ runId, ...agent }) => ({ ...agent, run: (await runOf(runId)) ?? { runId, status: null } })),
      ),
    })),
  );
  const { phases: _flat, ...workflow } = view;
  return { ...workflow, phases };
}

export function registerResources(server: McpServer, context: McpContext): void {
  server.registerResource(
    'run-timeline',
    new ResourceTemplate(timelineUri('{runId}'), {
      // The newest runs, as `stagecraft runs list` shows them.
      list: async () => {
        const { runs } = await context.requester.request('runs.list', { limit: 50 });
        return { resources: runs.map((run) => ({ uri: timelineUri(run.runId), name: `run ${run.runId} (${run.status})` })) };
      },
    }),
    {
      title: 'Run timeline',
      description: 'One line per event of a run, as `stagecraft runs show` prints it, then the events as JSON',
      mimeType: 'text/plain',
    },
    async (uri, variables) => {
      const runId = idFrom(variables, 'runId');
      return readTimeline(context, uri.href, runId).catch((error: unknown) => Promise.reject(asMcpError(error)));
    },
  );
  server.registerResource(
    'workflow-tree',
    new ResourceTemplate(workflowTreeUri('{workflowId}'), { list: undefined }),
    { title: 'Workflow tree', description: 'A workflow as phases → agents → runs', mimeType: 'application/json' },
    async (uri, variables) => {
      const workflowId = idFrom(variables, 'workflowId');
      const tree = await workflowTree(context, workflowId).catch((error: unknown) => Promise.reject(asMcpError(error)));
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(tree) }] };
    },
  );
}

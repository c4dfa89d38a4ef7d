import { StagecraftError, apiV1, validationError } from '@stagecraft/contracts';
import type { z } from 'zod';
import { indexOf, listWorkflows, memoriesOf, pendingApprovals } from './catalog';
import { answerApproval, cancelRun, resumeRun, startChat, startWorkflow } from './commands';
import { conversationDetail, listConversations } from './conversations';
import type { ApiPorts } from './ports';
import { ApiReply, errorReply } from './reply';
import { runDetail, runDiffs, runRequests, runTimeline } from './runs/detail';
import { listRunRows } from './runs/list';
import type { ViewAt } from './view/catch-up';

/** A request as the edge hands it over: already authenticated, its body read and parsed as JSON (undefined: none). */
export interface ApiRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body?: unknown;
}

interface Parsed {
  params: Record<string, string>;
  query: unknown;
  body: unknown;
}

type Handler = (input: Parsed, context: { current(): Promise<ViewAt>; ports: ApiPorts }) => Promise<unknown>;

/** What each route does, by the route id of the contract; `events` is the SSE edge's, not a JSON handler. */
const handlers: Record<Exclude<apiV1.ApiRouteId, 'events'>, Handler> = {
  listRuns: async ({ query }, c) => listRunRows((await c.current()).view, query as apiV1.RunsListQuery, c.ports.prices),
  getRun: async ({ params }, c) => runDetail((await c.current()).view, c.ports, params.runId),
  runTimeline: ({ params }, c) => runTimeline(c.ports, params.runId),
  runRequests: ({ params }, c) => runRequests(c.ports, params.runId),
  runDiffs: ({ params }, c) => runDiffs(c.ports, params.runId),
  cancelRun: async ({ params, body }, c) => cancelRun((await c.current()).view, c.ports, params.runId, body as never),
  resumeRun: async ({ params }, c) => resumeRun((await c.current()).view, c.ports, params.runId),
  listConversations: async ({ query }, c) => listConversations((await c.current()).view, (query as { limit: number }).limit),
  getConversation: async ({ params }, c) => conversationDetail((await c.current()).view, c.ports, params.id),
  listWorkflows: async ({ query }, c) => listWorkflows((await c.current()).view, (query as { limit: number }).limit),
  getWorkflow: ({ params }, c) => c.ports.requester.request('workflow.get', { workflowId: params.id }),
  startWorkflow: ({ body }, c) => startWorkflow(c.ports, body as never),
  memories: ({ query }, c) => memoriesOf(c.ports, query as never),
  index: ({ query }, c) => indexOf(c.ports, (query as { projectRoot: string }).projectRoot),
  listApprovals: async (_input, c) => ({ approvals: pendingApprovals((await c.current()).view) }),
  answerApproval: async ({ params, body }, c) => answerApproval((await c.current()).view, c.ports, params.approvalId, body as never),
  startChat: ({ body }, c) => startChat(c.ports, body as never),
};

const compiled = (Object.entries(apiV1.apiV1Routes) as [apiV1.ApiRouteId, apiV1.ApiV1Route][]).map(([id, route]) => ({
  id,
  route,
  pattern: new RegExp(`^${route.path.replace(/:([A-Za-z]+)/g, '(?<$1>[^/]+)')}$`),
}));

/** The route a method and path name, with its path parameters (decoded); null when none does. */
export function matchRoute(
  method: string,
  path: string,
): { id: apiV1.ApiRouteId; route: apiV1.ApiV1Route; params: Record<string, string> } | null {
  for (const { id, route, pattern } of compiled) {
    const found = pattern.exec(path);
    if (!found || route.method !== method) continue;
    try {
      return { id, route, params: Object.fromEntries(Object.entries(found.groups ?? {}).map(([k, v]) => [k, decodeURIComponent(v)])) };
    } catch {
      return null;
    }
  }
  return null;
}

/** Whether some route has this path (under another method): 405 rather than 404. */
export const pathKnown = (path: string): boolean => compiled.some(({ pattern }) => pattern.test(path));

function parse<S extends z.ZodType>(schema: S | undefined, value: unknown, what: string): unknown {
  if (!schema) return value;
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw validationError(parsed.error, what);
  return parsed.data;
}

/** Parses what the route's schemas say of the request; a bad one is a VALIDATION error, and nothing is asked of the system. */
export function parseRequest(route: apiV1.ApiV1Route, params: Record<string, string>, request: ApiRequest): Parsed {
  const query = Object.fromEntries(request.query.entries());
  if (route.body && request.body === undefined)
    throw new StagecraftError('VALIDATION', 'a JSON body is required', [{ path: ['body'], message: 'required' }]);
  return {
    params: parse(route.params, params, 'path') as Record<string, string>,
    query: parse(route.query, query, 'query'),
    body: route.body ? parse(route.body, request.body, 'body') : undefined,
  };
}

/**
 * The API over its ports: one function from a request to a reply. Every failure, ours or a service's,
 * leaves as `{ code, message, issues }` with the status its code says.
 */
export function createApi(ports: ApiPorts, view: { current(): Promise<ViewAt> }) {
  return async function handle(request: ApiRequest): Promise<ApiReply> {
    const found = matchRoute(request.method, request.path);
    if (!found) {
      if (pathKnown(request.path))
        return errorReply(new StagecraftError('VALIDATION', `${request.method} is not served at ${request.path}`));
      return errorReply(new StagecraftError('NOT_FOUND', `no route ${request.method} ${request.path}`));
    }
    if (found.id === 'events') return errorReply(new StagecraftError('INTERNAL', 'the event stream is served by the edge'));
    try {
      const input = parseRequest(found.route, found.params, request);
      const body = await handlers[found.id](input, { current: () => view.current(), ports });
      return { status: found.route.status, body };
    } catch (error) {
      return errorReply(error);
    }
  };
}

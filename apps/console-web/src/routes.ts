/** The console's pages; every link the page renders is built here, from ids, never from model or file text. */
export type Route =
  | { page: 'runs' }
  | { page: 'run'; runId: string }
  | { page: 'workflows' }
  | { page: 'workflow'; workflowRunId: string }
  | { page: 'conversations' }
  | { page: 'conversation'; conversationId: string }
  | { page: 'not-found'; path: string };

const decode = (part: string): string | null => {
  try {
    const value = decodeURIComponent(part);
    return value.length > 0 && value.length <= 200 ? value : null;
  } catch {
    return null;
  }
};

export function routeOf(pathname: string): Route {
  const parts = pathname.split('/').filter((part) => part.length > 0);
  const [section, rawId, ...rest] = parts;
  if (parts.length === 0) return { page: 'runs' };
  const id = rawId === undefined ? undefined : decode(rawId);
  if (rest.length > 0 || id === null) return { page: 'not-found', path: pathname };
  switch (section) {
    case 'runs':
      return id === undefined ? { page: 'runs' } : { page: 'run', runId: id };
    case 'workflows':
      return id === undefined ? { page: 'workflows' } : { page: 'workflow', workflowRunId: id };
    case 'conversations':
      return id === undefined ? { page: 'conversations' } : { page: 'conversation', conversationId: id };
    default:
      return { page: 'not-found', path: pathname };
  }
}

export const hrefs = {
  runs: () => '/runs',
  run: (runId: string) => `/runs/${encodeURIComponent(runId)}`,
  workflows: () => '/workflows',
  workflow: (workflowRunId: string) => `/workflows/${encodeURIComponent(workflowRunId)}`,
  conversations: () => '/conversations',
  conversation: (conversationId: string) => `/conversations/${encodeURIComponent(conversationId)}`,
};

/** The console's HTTP API (docs/decisions/0062): routes over the log and the system's subjects, the console view, and the SSE feed. */
export { createApi, matchRoute, parseRequest, type ApiRequest } from './router';
export type { ApiPorts } from './ports';
export { errorReply, statusOf, type ApiReply } from './reply';
export { consoleViewReader, type ViewAt } from './view/catch-up';
export { consoleViewModel, type ConsoleView } from './view/console-view';
export { SSE_HEARTBEAT, followFeed, sseMessage, type FeedFollow } from './sse';
export { listRunRows } from './runs/list';

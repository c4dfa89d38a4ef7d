import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StagecraftError, apiV1, validationError } from '@stagecraft/contracts';
import type { EventReader } from '@stagecraft/event-store';
import { ApiReply, SSE_HEARTBEAT, createApi, errorReply, followFeed, sseMessage } from '@stagecraft/http-api';
import {
  NOT_JSON,
  Refusal,
  TOO_LARGE,
  badTarget,
  checkAddressing,
  checkDeclaredSize,
  checkToken,
  readJsonBody,
  requestUrl,
  tooLarge,
} from '../mcp/http-guard';
import type { McpHttpSettings } from '../mcp/http-settings';
import { PAGE_HEADERS, serveStatic } from './static-files';

export interface ConsoleEdge {
  api: ReturnType<typeof createApi>;
  log: EventReader;
  settings: McpHttpSettings;
  openApi: unknown;
  /** The built web console, or null (a 503 page says so). */
  dist: string | null;
  heartbeatMs?: number;
  /** Event streams open at once; one more is refused (each follows the log on its own). Default 64. */
  maxStreams?: number;
  onError?: (error: unknown) => void;
}

const API_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };

function send(res: ServerResponse, reply: ApiReply): void {
  res.writeHead(reply.status, { ...API_HEADERS, ...reply.headers }).end(JSON.stringify(reply.body));
}
const refuse = (res: ServerResponse, refusal: Refusal): void =>
  send(res, { status: refusal.status, body: refusal.body, headers: refusal.headers });

const openStreams = new WeakMap<ConsoleEdge, number>();

/**
 * `/api/v1/events`: the public feed as Server-Sent Events from the log. A reconnect names the last
 * position it got (`Last-Event-ID`, or `?lastEventId=` for a client that cannot set the header) and
 * gets every later event once, in log order.
 */
async function serveEvents(edge: ConsoleEdge, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const header = req.headers['last-event-id'];
  const query = {
    ...Object.fromEntries(url.searchParams.entries()),
    ...(typeof header === 'string' && header !== '' ? { lastEventId: header } : {}),
  };
  const parsed = apiV1.EventsQuery.safeParse(query);
  if (!parsed.success) return send(res, errorReply(validationError(parsed.error, 'query')));
  const open = openStreams.get(edge) ?? 0;
  const max = edge.maxStreams ?? 64;
  if (open >= max)
    return send(
      res,
      errorReply(new StagecraftError('UNAVAILABLE', `at most ${max} event streams are served at once: close one, or retry later`)),
    );
  openStreams.set(edge, open + 1);
  res.once('close', () => openStreams.set(edge, (openStreams.get(edge) ?? 1) - 1));
  const follow = await followFeed(edge.log, { runId: parsed.data.runId, after: parsed.data.lastEventId });
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    'x-accel-buffering': 'no',
    connection: 'keep-alive',
  });
  res.write('retry: 2000\n\n');
  const heartbeat = setInterval(() => res.write(SSE_HEARTBEAT), edge.heartbeatMs ?? 15_000);
  const closed = () => {
    clearInterval(heartbeat);
    void follow.close();
  };
  // The response closes when the client goes away (or the server stops): the stream ends with it.
  res.once('close', closed);
  try {
    for await (const event of follow) {
      if (res.destroyed) break;
      if (!res.write(sseMessage(event)))
        await new Promise((resume) => {
          res.once('drain', resume);
          res.once('close', resume);
        });
    }
  } finally {
    closed();
    res.end();
  }
}

async function serveApi(edge: ConsoleEdge, req: IncomingMessage, res: ServerResponse, url: URL, bindHost: string): Promise<void> {
  // Addressing first (a rebinding page is refused whatever it sends), then the token, then the size.
  const refused =
    checkAddressing(req.headers, edge.settings, bindHost) ??
    checkToken(req.headers, edge.settings) ??
    checkDeclaredSize(req.headers, edge.settings);
  if (refused) return refuse(res, refused);
  const method = req.method ?? 'GET';
  if (url.pathname === '/api/openapi.json' && method === 'GET') return send(res, { status: 200, body: edge.openApi });
  if (url.pathname === '/api/v1/events' && method === 'GET') return serveEvents(edge, req, res, url);
  let body: unknown;
  if (method === 'POST') {
    // A POST that carries nothing is an empty object.
    body = await readJsonBody(req, edge.settings.maxBodyBytes, {});
    if (body === TOO_LARGE) return refuse(res, tooLarge(edge.settings));
    if (body === NOT_JSON)
      return send(res, errorReply(new StagecraftError('VALIDATION', 'the body is not JSON', [{ path: ['body'], message: 'not JSON' }])));
  }
  send(res, await edge.api({ method, path: url.pathname, query: url.searchParams, body }));
}

/** One server: the API under `/api/` (token, host and origin checked) and the console's static files elsewhere (host checked). */
export async function listenConsole(
  edge: ConsoleEdge,
  port: number,
  host: string,
): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const url = requestUrl(req.url);
    if (!url) return refuse(res, badTarget());
    const handled = url.pathname.startsWith('/api/')
      ? serveApi(edge, req, res, url, host)
      : (() => {
          const refused = checkAddressing(req.headers, edge.settings, host);
          if (refused) return Promise.resolve(refuse(res, refused));
          if (req.method !== 'GET' && req.method !== 'HEAD')
            return Promise.resolve(res.writeHead(405, { allow: 'GET, HEAD', ...PAGE_HEADERS }).end());
          return serveStatic(edge.dist, url, res, req.method === 'HEAD');
        })();
    handled.catch((error: unknown) => {
      edge.onError?.(error);
      if (!res.headersSent) send(res, errorReply(new StagecraftError('INTERNAL', 'internal error')));
      else res.end();
    });
  });
  await new Promise<void>((listening, failed) => {
    server.once('error', failed);
    server.listen(port, host, () => listening());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    server,
    port: bound,
    close: () =>
      new Promise<void>((closed) => {
        server.close(() => closed());
        server.closeAllConnections();
      }),
  };
}

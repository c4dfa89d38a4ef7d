import { randomBytes, randomUUID } from 'node:crypto';
import { IncomingMessage, ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { openEventStore } from '@stagecraft/event-store';
import type { ShellConfig } from '@stagecraft/service-shell';
import { connectSystem } from '../commands/session';
import type { McpContext } from './context';
import {
  NOT_JSON,
  Refusal,
  TOO_LARGE,
  badTarget,
  checkAddressing,
  checkDeclaredSize,
  checkToken,
  plain,
  readJsonBody,
  requestUrl,
  tooLarge,
} from './http-guard';
import { McpHttpSettings, mcpHttpSettings } from './http-settings';
import { allowedRootsOf } from './roots';
import { createMcpServer } from './server';
import { createSessionTable } from './sessions';

export interface McpFlags {
  /** Serve Streamable HTTP on this port (0: any free one) instead of stdio. */
  http?: number;
  host: string;
  root?: string;
  chatTimeout: number;
}

/** Stdout is the protocol on stdio: everything the server has to say goes to stderr. */
const note = (line: string) => process.stderr.write(`stagecraft mcp: ${line}\n`);

/** `stagecraft mcp`: the tools and resources over stdio, or over Streamable HTTP at `/mcp`; embedded unless a NATS URL is given. */
export async function serveMcp(flags: McpFlags, config: ShellConfig): Promise<void> {
  // Every setting is checked before the system starts: a refused start-up leaves nothing running.
  const allowedRoots = allowedRootsOf(flags.root, config.projectRoots, flags.http !== undefined);
  const settings = flags.http === undefined ? null : mcpHttpSettings(process.env, flags.host, () => randomBytes(32).toString('base64url'));
  // `json` keeps connectSystem quiet on stdout; a server lives on, so it goes on with unfinished runs and workflows.
  // The embedded services get the same roots, so that they refuse what the tools would.
  const system = await connectSystem({ ...config, projectRoots: allowedRoots ?? config.projectRoots }, true, { resume: true });
  const log = openEventStore(config.store);
  const context: McpContext = {
    bus: system.bus,
    requester: system.requester,
    prefix: config.prefix,
    root: flags.root ? resolve(flags.root) : null,
    allowedRoots,
    log,
    chatTimeoutMs: flags.chatTimeout,
  };
  note(config.natsUrl ? `using the distributed system at ${config.natsUrl}` : `embedded, store ${config.store}`);
  note(allowedRoots ? `tool calls may work in ${allowedRoots.join(', ')}` : 'tool calls may work in any directory (no --root)');
  let stopping: Promise<void> | null = null;
  const stopSystem = () =>
    (stopping ??= (async () => {
      await log.close();
      await system.close();
    })());
  const stop =
    settings === null ? await serveStdio(context, stopSystem) : await serveHttp(context, flags.http!, flags.host, settings, stopSystem);
  const exit = () => void stop().finally(() => process.exit(0));
  process.once('SIGINT', exit);
  process.once('SIGTERM', exit);
}

async function serveStdio(context: McpContext, stopSystem: () => Promise<void>): Promise<() => Promise<void>> {
  const server = createMcpServer(context);
  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      await server.close();
      await stopSystem();
    })());
  // The client closing its end of the pipe ends the server.
  const ended = () => void stop().finally(() => process.exit(0));
  server.server.onclose = ended;
  process.stdin.once('end', ended);
  await server.connect(new StdioServerTransport());
  note('serving MCP on stdio');
  return stop;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
}

async function serveHttp(
  context: McpContext,
  port: number,
  host: string,
  settings: McpHttpSettings,
  stopSystem: () => Promise<void>,
): Promise<() => Promise<void>> {
  const sessions = createSessionTable<Session>({ max: settings.maxSessions, idleMs: settings.sessionIdleMs, now: () => Date.now() });
  const closeAll = (closing: Session[]) => Promise.all(closing.map(({ server }) => server.close().catch(() => undefined)));
  // Expired sessions are closed at the latest one idle period (at most 30 s) late; every new session sweeps too.
  const sweep = setInterval(() => void closeAll(sessions.expire()), Math.min(settings.sessionIdleMs, 30_000));
  sweep.unref();

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      note(`request failed: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) refuse(res, plain(500, 'INTERNAL', 'internal error'));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = requestUrl(req.url);
    if (!url) return refuse(res, badTarget());
    if (url.pathname !== '/mcp') return refuse(res, plain(404, 'NOT_FOUND', 'the MCP endpoint is /mcp'));
    // Addressing first (a rebinding page is refused whatever it sends), then the token, then the size.
    const refused =
      checkAddressing(req.headers, settings, host) ?? checkToken(req.headers, settings) ?? checkDeclaredSize(req.headers, settings);
    if (refused) return refuse(res, refused);
    const sessionId = req.headers['mcp-session-id'];
    const session = typeof sessionId === 'string' ? sessions.use(sessionId) : undefined;
    if (session) {
      try {
        return await session.transport.handleRequest(req, res);
      } finally {
        // A long call (chat follows a run for up to a minute) counts as use until it ends.
        if (typeof sessionId === 'string') sessions.use(sessionId);
      }
    }
    if (sessionId !== undefined) return refuse(res, plain(404, 'NOT_FOUND', 'unknown or expired session: initialize again'));
    if (req.method !== 'POST') return refuse(res, plain(400, 'VALIDATION', 'no session: initialize first'));
    const body = await readJsonBody(req, settings.maxBodyBytes, NOT_JSON);
    if (body === TOO_LARGE) return refuse(res, tooLarge(settings));
    if (body === NOT_JSON) return refuse(res, plain(400, 'VALIDATION', 'the body is not JSON'));
    if (!isInitializeRequest(body)) return refuse(res, plain(400, 'VALIDATION', 'no session: initialize first'));
    await closeAll(sessions.expire());
    // One MCP server per session, all over the same system. The session is counted from its creation,
    // so that concurrent initializes cannot pass the cap before their ids are known.
    const id = randomUUID();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => id, maxRequestBodySize: settings.maxBodyBytes });
    const server = createMcpServer(context);
    transport.onclose = () => sessions.delete(id);
    await closeAll(sessions.add(id, { transport, server }));
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
    // An initialize the transport refused leaves no session behind.
    if (transport.sessionId === undefined) {
      sessions.delete(id);
      await server.close();
    }
  }

  await new Promise<void>((listening, failed) => {
    http.once('error', failed);
    http.listen(port, host, () => listening());
  });
  const { port: bound } = http.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${bound}/mcp`;
  if (settings.generatedToken)
    note(
      `no STAGECRAFT_MCP_TOKEN set; this run's token (clients send it as a header): Authorization: Bearer ${settings.token}\n` +
        '  set STAGECRAFT_MCP_TOKEN to keep one token across restarts',
    );
  note(`serving MCP on ${url}`);
  return async () => {
    clearInterval(sweep);
    await closeAll(sessions.clear());
    await new Promise<void>((closed) => http.close(() => closed()));
    await stopSystem();
  };
}

function refuse(res: ServerResponse, refusal: Refusal): void {
  res.writeHead(refusal.status, { 'content-type': 'application/json', ...refusal.headers }).end(JSON.stringify(refusal.body));
}

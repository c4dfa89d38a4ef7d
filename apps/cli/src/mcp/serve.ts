import { randomUUID } from 'node:crypto';
import { IncomingMessage, ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { openEventStore } from '@stagecraft/event-store';
import type { ShellConfig } from '@stagecraft/service-shell';
import { connectSystem } from '../commands/chat';
import type { McpContext } from './context';
import { createMcpServer } from './server';

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
  // `json` keeps connectSystem quiet on stdout; a server lives on, so it goes on with unfinished runs and workflows.
  const system = await connectSystem(config, true, { resume: true });
  const log = openEventStore(config.store);
  const context: McpContext = {
    bus: system.bus,
    requester: system.requester,
    prefix: config.prefix,
    root: flags.root ? resolve(flags.root) : null,
    log,
    chatTimeoutMs: flags.chatTimeout,
  };
  note(config.natsUrl ? `using the distributed system at ${config.natsUrl}` : `embedded, store ${config.store}`);
  let stopping: Promise<void> | null = null;
  const stopSystem = () =>
    (stopping ??= (async () => {
      await log.close();
      await system.close();
    })());
  const stop =
    flags.http === undefined ? await serveStdio(context, stopSystem) : await serveHttp(context, flags.http, flags.host, stopSystem);
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

async function serveHttp(context: McpContext, port: number, host: string, stopSystem: () => Promise<void>): Promise<() => Promise<void>> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      note(`request failed: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) jsonRpcError(res, 500, -32603, 'internal error');
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== '/mcp') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('the MCP endpoint is /mcp\n');
      return;
    }
    // A server on a loopback address answers only requests addressed to one (DNS rebinding from a browser page).
    if (LOOPBACK.has(host) && !LOOPBACK.has(hostnameOf(req.headers.host))) return jsonRpcError(res, 403, -32000, 'host not allowed');
    const sessionId = req.headers['mcp-session-id'];
    const session = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (session) return session.handleRequest(req, res);
    if (sessionId !== undefined) return jsonRpcError(res, 404, -32001, 'unknown session: initialize again');
    if (req.method !== 'POST') return jsonRpcError(res, 400, -32000, 'no session: initialize first');
    const body = await readJson(req);
    if (body === undefined) return jsonRpcError(res, 400, -32700, 'the body is not JSON');
    if (!isInitializeRequest(body)) return jsonRpcError(res, 400, -32000, 'no session: initialize first');
    // One MCP server per session, all over the same system.
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => void sessions.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await createMcpServer(context).connect(transport);
    await transport.handleRequest(req, res, body);
  }

  await new Promise<void>((listening, failed) => {
    http.once('error', failed);
    http.listen(port, host, () => listening());
  });
  const { port: bound } = http.address() as AddressInfo;
  note(`serving MCP on http://${host.includes(':') ? `[${host}]` : host}:${bound}/mcp`);
  return async () => {
    await Promise.all([...sessions.values()].map((transport) => transport.close()));
    await new Promise<void>((closed) => http.close(() => closed()));
    await stopSystem();
  };
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);
/** The name a request was addressed to (its Host header, without the port); empty when it has none or it is not one. */
function hostnameOf(header: string | undefined): string {
  try {
    return header ? new URL(`http://${header}`).hostname.replace(/^\[(.*)\]$/, '$1') : '';
  } catch {
    return '';
  }
}

const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** The request's JSON body; undefined when it is not JSON (or too large to be a request). */
async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function jsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

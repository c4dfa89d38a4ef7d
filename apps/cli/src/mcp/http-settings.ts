import { isIP } from 'node:net';
import { StagecraftError, issuesFromZod } from '@stagecraft/contracts';
import { z } from 'zod';

/** The variables an HTTP edge is configured by, named in its refusals, and the realm of its bearer challenge. */
export interface HttpEdgeNames {
  token: string;
  origins: string;
  hosts: string;
  realm: string;
}

export const MCP_EDGE_NAMES: HttpEdgeNames = {
  token: 'STAGECRAFT_MCP_TOKEN',
  origins: 'STAGECRAFT_MCP_ORIGINS',
  hosts: 'STAGECRAFT_MCP_HOSTS',
  realm: 'stagecraft-mcp',
};
export const API_EDGE_NAMES: HttpEdgeNames = {
  token: 'STAGECRAFT_API_TOKEN',
  origins: 'STAGECRAFT_API_ORIGINS',
  hosts: 'STAGECRAFT_API_HOSTS',
  realm: 'stagecraft-api',
};

/** What guards an HTTP edge (`stagecraft mcp --http`, the console API): who may call it, from where, and how much it holds. */
export interface McpHttpSettings {
  /** Absent: the MCP server's. */
  names?: HttpEdgeNames;
  /** The bearer token every request must carry. */
  token: string;
  /** True when the token was generated for this run (it is then printed once at start). */
  generatedToken: boolean;
  /** Origins (scheme://host[:port]) a browser request may come from, besides the loopback ones on a loopback bind. */
  origins: readonly string[];
  /** Host names a request may be addressed to, besides the loopback ones on a loopback bind; empty on another bind: any. */
  hosts: readonly string[];
  /** A session with no request for this long is closed. */
  sessionIdleMs: number;
  /** At most this many sessions are held; a new one past it closes the least recently used. */
  maxSessions: number;
  /** The largest request body read, in bytes. */
  maxBodyBytes: number;
}

/** The largest body a request may have: a chat message (200,000 characters) with room to spare, far below what would hurt. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** A token shorter than this is guessable; the generated one has 43 characters (32 random bytes). */
const MIN_TOKEN_LENGTH = 32;

const listOf = (value: string) =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

const Origin = z.string().transform((value, ctx) => {
  try {
    const url = new URL(value);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value.replace(/\/$/, '')) return url.origin;
  } catch {
    // reported below
  }
  ctx.addIssue({ code: 'custom', message: `'${value}' is not an origin (scheme://host[:port], no path)` });
  return z.NEVER;
});

const Token = z
  .string()
  .min(MIN_TOKEN_LENGTH, `at least ${MIN_TOKEN_LENGTH} characters`)
  .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces')
  .optional();
const Origins = z.string().transform(listOf).pipe(z.array(Origin)).default([]);
const Hosts = z
  .string()
  .transform(listOf)
  .pipe(z.array(z.string().regex(/^[A-Za-z0-9.-]+$|^\[[0-9A-Fa-f:.]+\]$/, 'a host name without port')))
  .default([]);

const McpHttpEnv = z.object({
  STAGECRAFT_MCP_TOKEN: Token,
  STAGECRAFT_MCP_ORIGINS: Origins,
  STAGECRAFT_MCP_HOSTS: Hosts,
  STAGECRAFT_MCP_SESSION_IDLE_MS: z.coerce.number().int().min(100).max(86_400_000).default(600_000),
  STAGECRAFT_MCP_MAX_SESSIONS: z.coerce.number().int().min(1).max(10_000).default(64),
});

export const isLoopback = (host: string): boolean => {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost' || bare === '::1') return true;
  return isIP(bare) === 4 && bare.startsWith('127.');
};

function parseEnv<S extends z.ZodType>(schema: S, env: Record<string, string | undefined>): z.infer<S> {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const issues = issuesFromZod(parsed.error);
    const detail = issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new StagecraftError('VALIDATION', `invalid configuration: ${detail}`, issues);
  }
  return parsed.data;
}

/** A token generated beyond the loopback would be printed into a log others read, and the server open meanwhile. */
function requireTokenOffLoopback(token: string | undefined, bindHost: string, name: string): void {
  if (token || isLoopback(bindHost)) return;
  const message = `--host ${bindHost} is not a loopback address: set ${name} (at least ${MIN_TOKEN_LENGTH} characters) for clients to send as a bearer token, or serve on 127.0.0.1`;
  throw new StagecraftError('VALIDATION', `invalid configuration: ${message}`, [{ path: [name], message }]);
}

const normalHosts = (hosts: readonly string[]) => hosts.map((h) => h.toLowerCase().replace(/^\[(.*)\]$/, '$1'));

/**
 * The HTTP server's settings from the environment and the address it binds. A bind beyond the
 * loopback without STAGECRAFT_MCP_TOKEN is refused: a token generated there would be printed into a
 * log that other people read, and the server would be open to every host that reaches it meanwhile.
 */
export function mcpHttpSettings(env: Record<string, string | undefined>, bindHost: string, newToken: () => string): McpHttpSettings {
  const e = parseEnv(McpHttpEnv, env);
  requireTokenOffLoopback(e.STAGECRAFT_MCP_TOKEN, bindHost, 'STAGECRAFT_MCP_TOKEN');
  return {
    token: e.STAGECRAFT_MCP_TOKEN ?? newToken(),
    generatedToken: !e.STAGECRAFT_MCP_TOKEN,
    origins: e.STAGECRAFT_MCP_ORIGINS,
    hosts: normalHosts(e.STAGECRAFT_MCP_HOSTS),
    sessionIdleMs: e.STAGECRAFT_MCP_SESSION_IDLE_MS,
    maxSessions: e.STAGECRAFT_MCP_MAX_SESSIONS,
    maxBodyBytes: MAX_BODY_BYTES,
  };
}

const ApiHttpEnv = z.object({ STAGECRAFT_API_TOKEN: Token, STAGECRAFT_API_ORIGINS: Origins, STAGECRAFT_API_HOSTS: Hosts });

/** The console API's edge: the same checks as the MCP server's, under its own variables; it holds no sessions. */
export function apiHttpSettings(env: Record<string, string | undefined>, bindHost: string, newToken: () => string): McpHttpSettings {
  const e = parseEnv(ApiHttpEnv, env);
  requireTokenOffLoopback(e.STAGECRAFT_API_TOKEN, bindHost, 'STAGECRAFT_API_TOKEN');
  return {
    names: API_EDGE_NAMES,
    token: e.STAGECRAFT_API_TOKEN ?? newToken(),
    generatedToken: !e.STAGECRAFT_API_TOKEN,
    origins: e.STAGECRAFT_API_ORIGINS,
    hosts: normalHosts(e.STAGECRAFT_API_HOSTS),
    sessionIdleMs: 0,
    maxSessions: 0,
    maxBodyBytes: MAX_BODY_BYTES,
  };
}

import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { ErrorCode, ErrorIssue } from '@stagecraft/contracts';
import { MCP_EDGE_NAMES, McpHttpSettings, isLoopback } from './http-settings';

/**
 * A request the HTTP edge refuses before any session or MCP server sees it. The body is the
 * `{ code, message, issues }` every Stagecraft refusal has, with the status that says the same.
 */
export interface Refusal {
  status: number;
  headers?: Record<string, string>;
  body: { code: ErrorCode; message: string; issues: ErrorIssue[] };
}

const refusal = (status: number, code: ErrorCode, message: string, header?: string, headers?: Record<string, string>): Refusal => ({
  status,
  headers,
  body: { code, message, issues: header ? [{ path: ['headers', header], message }] : [] },
});

/** The name a request was addressed to (its Host header, without port or brackets); empty when it has none or it is not one. */
export function hostnameOf(header: string | undefined): string {
  try {
    return header ? new URL(`http://${header}`).hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase() : '';
  } catch {
    return '';
  }
}

/**
 * DNS rebinding: a page on another site whose name now resolves to this machine sends requests that
 * the browser addresses to that name (Host) and marks with that site (Origin). On a loopback bind only
 * loopback names and the listed hosts are answered; a present Origin must be a loopback one (on a
 * loopback bind) or a listed one. A request without Origin is not from a browser page and passes.
 */
export function checkAddressing(headers: IncomingHttpHeaders, settings: McpHttpSettings, bindHost: string): Refusal | null {
  const names = settings.names ?? MCP_EDGE_NAMES;
  const host = hostnameOf(headers.host);
  const loopbackBind = isLoopback(bindHost);
  const hostAllowed = settings.hosts.includes(host) || (loopbackBind ? isLoopback(host) : settings.hosts.length === 0);
  if (!hostAllowed)
    return refusal(403, 'FORBIDDEN', `requests addressed to '${headers.host ?? ''}' are not answered here (${names.hosts})`, 'host');
  const origin = headers.origin;
  if (origin === undefined) return null;
  if (settings.origins.includes(origin)) return null;
  let originHost: string | null = null;
  try {
    const url = new URL(origin);
    if (url.protocol === 'http:' || url.protocol === 'https:') originHost = url.hostname;
  } catch {
    originHost = null;
  }
  if (loopbackBind && originHost !== null && isLoopback(originHost)) return null;
  return refusal(403, 'FORBIDDEN', `requests from origin '${origin}' are not answered here (${names.origins})`, 'origin');
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** The bearer token, compared in constant time (digests of equal length, whatever the lengths sent). */
export function checkToken(headers: IncomingHttpHeaders, settings: McpHttpSettings): Refusal | null {
  const names = settings.names ?? MCP_EDGE_NAMES;
  const challenge = (error?: string) => ({
    'www-authenticate': `Bearer realm="${names.realm}"${error ? `, error="${error}"` : ''}`,
  });
  const header = headers.authorization;
  const sent = header === undefined ? undefined : /^Bearer ([\x21-\x7e]+)$/i.exec(header.trim())?.[1];
  if (header === undefined)
    return refusal(401, 'UNAUTHORIZED', `a bearer token is required: Authorization: Bearer <${names.token}>`, 'authorization', challenge());
  if (sent === undefined || !timingSafeEqual(digest(sent), digest(settings.token)))
    return refusal(401, 'UNAUTHORIZED', 'the bearer token is not this server’s', 'authorization', challenge('invalid_token'));
  return null;
}

/** A body declared larger than the bound is refused before a byte is read. */
export function checkDeclaredSize(headers: IncomingHttpHeaders, settings: McpHttpSettings): Refusal | null {
  const declared = Number(headers['content-length'] ?? 0);
  return declared > settings.maxBodyBytes ? tooLarge(settings) : null;
}

export const tooLarge = (settings: McpHttpSettings): Refusal =>
  refusal(413, 'LIMIT_EXCEEDED', `a request body may have at most ${settings.maxBodyBytes} bytes`);

export const plain = (status: number, code: ErrorCode, message: string): Refusal => refusal(status, code, message);

/**
 * The request's target as a URL, or null when it is none (`GET //[ HTTP/1.1` parses as HTTP but not as a URL):
 * a hostile client must get a 400, not an exception on the server's request handler.
 */
export function requestUrl(target: string | undefined): URL | null {
  try {
    return new URL(target ?? '/', 'http://localhost');
  } catch {
    return null;
  }
}

export const badTarget = (): Refusal => plain(400, 'VALIDATION', 'the request target is not a URL path');

export const TOO_LARGE = Symbol('too large');
export const NOT_JSON = Symbol('not JSON');

/**
 * A request's body as JSON: `empty` when none was sent, NOT_JSON when it does not parse, TOO_LARGE once it
 * passes `maxBytes` (the read stops there, so a large body is never held).
 */
export async function readJsonBody(req: AsyncIterable<Buffer>, maxBytes: number, empty: unknown): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > maxBytes) return TOO_LARGE;
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return empty;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NOT_JSON;
  }
}

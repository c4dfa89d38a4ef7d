import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { dirname, extname, join, resolve, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.map': 'application/json',
  '.woff2': 'font/woff2',
};

/** The page may load only what this server serves, and may not be framed by another site. */
export const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** The built console (`dist` beside the console-web package); null when it is not installed or not built. */
export function consoleDist(): string | null {
  try {
    // Only the directory of its static files is looked up; no code of the other app is loaded.
    // eslint-disable-next-line @nx/enforce-module-boundaries
    return join(dirname(require.resolve('@stagecraft/console-web/package.json')), 'dist');
  } catch {
    return null;
  }
}

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Stagecraft console</title>
<h1>The console was not built</h1><p>Build it with <code>npm run build</code>; the API under <code>/api/v1/</code> works meanwhile.</p>\n`;

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isFile() ?? false;
}

/**
 * A file of the console under `/assets/` (or at the top, such as a favicon), and `index.html` for every
 * other path: the page routes itself (/runs/…, /workflows/…). Nothing outside `dist` is ever read.
 */
export async function serveStatic(dist: string | null, url: URL, res: ServerResponse, head: boolean): Promise<void> {
  const path = url.pathname;
  const index = dist === null ? null : join(dist, 'index.html');
  if (dist === null || index === null || !(await isFile(index))) {
    res.writeHead(503, { 'content-type': 'text/html; charset=utf-8', ...PAGE_HEADERS }).end(head ? undefined : NOT_BUILT);
    return;
  }
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    decoded = '/';
  }
  const wanted = resolve(dist, `.${decoded}`);
  const inside = wanted.startsWith(`${resolve(dist)}${sep}`) && !decoded.includes('\0');
  const asset = inside && extname(wanted) !== '' && (await isFile(wanted)) ? wanted : null;
  if (asset === null && decoded.startsWith('/assets/')) {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', ...PAGE_HEADERS }).end(head ? undefined : 'not found\n');
    return;
  }
  const file = asset ?? index;
  const type = TYPES[extname(file)] ?? 'application/octet-stream';
  // The page names its files with a content hash (`?v=`): such a URL never changes what it serves.
  const cache = file === index ? 'no-cache' : url.searchParams.has('v') ? 'public, max-age=31536000, immutable' : 'public, max-age=300';
  res.writeHead(200, { 'content-type': type, 'cache-control': cache, ...PAGE_HEADERS });
  if (head) {
    res.end();
    return;
  }
  createReadStream(file).pipe(res);
}

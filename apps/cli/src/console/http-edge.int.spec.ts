import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiV1, streams } from '@stagecraft/contracts';
import { EventStore, createMemoryEventStore } from '@stagecraft/event-store';
import { consoleViewReader, createApi } from '@stagecraft/http-api';
import type { Requester } from '@stagecraft/messaging';
import { eventually } from '@stagecraft/testing';
import { apiHttpSettings } from '../mcp/http-settings';
import { listenConsole } from './http-edge';

const TOKEN = 'k'.repeat(43);
const AUTH = { authorization: `Bearer ${TOKEN}` };
const noRequests: Requester = { request: (subject) => Promise.reject(new Error(`unexpected request ${subject}`)) };

/** A raw GET, for paths fetch would normalise (`..`). */
function rawGet(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the console edge over node:http', () => {
  let store: EventStore;
  let dir: string;
  let server: Awaited<ReturnType<typeof listenConsole>>;
  let base: string;

  beforeAll(async () => {
    store = createMemoryEventStore();
    await store.appendToStream(streams.run('r1'), [
      {
        id: 'e1',
        type: 'RunStarted',
        data: { runId: 'r1', conversationId: 'c1', userMode: 'chat', reasoningEnabled: false, userInput: 'hi', projectRoot: '/p' },
        metadata: { runId: 'r1', conversationId: 'c1', correlationId: 'k', occurredAt: '2026-11-01T10:00:00.000Z' },
      },
    ]);
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-edge-'));
    mkdirSync(join(dir, 'dist', 'assets'), { recursive: true });
    writeFileSync(join(dir, 'dist', 'index.html'), '<!doctype html><title>console</title>');
    writeFileSync(join(dir, 'dist', 'assets', 'app.js'), 'console.log(1)');
    writeFileSync(join(dir, 'secret.txt'), 'not served');
    const settings = apiHttpSettings({ STAGECRAFT_API_TOKEN: TOKEN }, '127.0.0.1', () => 'unused');
    const ports = { log: store, requester: noRequests, restoreRequests: async () => [], prices: {} };
    server = await listenConsole(
      {
        api: createApi(ports, consoleViewReader(store)),
        log: store,
        settings,
        openApi: {},
        dist: join(dir, 'dist'),
        heartbeatMs: 50,
        maxStreams: 1,
      },
      0,
      '127.0.0.1',
    );
    base = `http://127.0.0.1:${server.port}`;
  });
  afterAll(async () => {
    await server?.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves index.html for the page’s routes and files from dist only, without a token', async () => {
    for (const path of ['/', '/runs/r1', '/workflows/w1?x=1']) {
      const page = await fetch(`${base}${path}`);
      expect({ path, status: page.status, body: await page.text() }).toEqual({
        path,
        status: 200,
        body: expect.stringContaining('<title>console'),
      });
      expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    }
    const asset = await fetch(`${base}/assets/app.js?v=1`);
    expect(asset.headers.get('content-type')).toContain('text/javascript');
    expect(await asset.text()).toBe('console.log(1)');
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${base}/assets/app.js`)).headers.get('cache-control')).not.toContain('immutable');
    expect((await fetch(`${base}/assets/missing.js`)).status).toBe(404);
    for (const path of ['/../secret.txt', '/assets/../../secret.txt', '/%2e%2e/secret.txt'])
      expect((await rawGet(server.port, path)).body).not.toContain('not served');
    expect((await fetch(`${base}/`, { method: 'POST' })).status).toBe(405);
  });

  it('answers a request target that is no URL with a 400 and keeps serving', async () => {
    const statusLine = await new Promise<string>((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1', () => socket.write('GET //[ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'));
      socket.once('data', (chunk: Buffer) => {
        resolve(chunk.toString().split('\r\n')[0]);
        socket.destroy();
      });
      socket.once('error', reject);
    });
    expect(statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect((await fetch(`${base}/`)).status).toBe(200);
  });

  it('sends heartbeats on an idle stream, caps open streams, and frees a stream when its client goes', async () => {
    const controller = new AbortController();
    const first = await fetch(`${base}/api/v1/events?runId=r1`, { headers: AUTH, signal: controller.signal });
    const reader = (first.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while (!text.includes(': heartbeat')) text += new TextDecoder().decode((await reader.read()).value);
    expect(text).toContain('id: 1\nevent: RunStarted\n');
    const refused = await fetch(`${base}/api/v1/events`, { headers: AUTH });
    expect(refused.status).toBe(503);
    expect(apiV1.ApiError.parse(await refused.json()).code).toBe('UNAVAILABLE');
    controller.abort();
    await eventually(async () => {
      const again = await fetch(`${base}/api/v1/events?runId=r1`, { headers: AUTH });
      await again.body?.cancel();
      return again.status === 200 ? true : undefined;
    }, 'the stream to be freed');
  });
});

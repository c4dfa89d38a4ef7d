import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from '@stagecraft/testing';
import { followEvents, type LiveEvent } from './live';

/**
 * The page's event stream reader against a real HTTP server that drops the stream: it asks again from the
 * last position it saw (`Last-Event-ID`), with the bearer token, and hands each event over once.
 */
describe('following the API event stream with fetch', () => {
  let server: Server;
  let base: string;
  const realFetch = globalThis.fetch;
  const requests: { url: string; lastEventId?: string; authorization?: string }[] = [];
  const message = (position: number, type: string) =>
    `id: ${position}\nevent: ${type}\ndata: ${JSON.stringify({ version: 1, position: String(position), type, data: { n: position } })}\n\n`;

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      requests.push({
        url: req.url ?? '',
        lastEventId: req.headers['last-event-id'] as string | undefined,
        authorization: req.headers.authorization,
      });
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
      if (requests.length === 1) {
        // Two events, the second split across writes, then the connection drops mid-message.
        res.write(`: heartbeat\n\n${message(11, 'RunStarted')}`);
        const second = message(12, 'StageEntered');
        res.write(second.slice(0, 10));
        setImmediate(() => {
          res.write(second.slice(10));
          res.write('id: 13\nevent: ModelRequested\ndata: {"half');
          setImmediate(() => res.destroy());
        });
      } else res.write(message(13, 'ModelRequested'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // The reader asks for same-origin paths, as the page does.
    globalThis.fetch = ((input: string, init?: RequestInit) => realFetch(`${base}${input}`, init)) as typeof fetch;
  });

  afterAll(async () => {
    globalThis.fetch = realFetch;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('resumes after a drop from the last id it saw, without a gap or a repeat', async () => {
    const seen: LiveEvent[] = [];
    const states: string[] = [];
    const stop = followEvents({
      token: 'secret-token',
      runId: 'run 1',
      after: '10',
      onEvent: (e) => seen.push(e),
      onState: (s) => states.push(s),
    });
    try {
      await eventually(async () => (seen.length >= 3 ? true : undefined), 'three events across the drop', { timeoutMs: 20_000 });
    } finally {
      stop();
    }
    expect(seen.map((e) => [e.position, e.type])).toEqual([
      ['11', 'RunStarted'],
      ['12', 'StageEntered'],
      ['13', 'ModelRequested'],
    ]);
    expect(requests.map((r) => [r.url, r.lastEventId, r.authorization])).toEqual([
      ['/api/v1/events?runId=run%201', '10', 'Bearer secret-token'],
      ['/api/v1/events?runId=run%201', '12', 'Bearer secret-token'],
    ]);
    expect(states).toEqual(['live', 'reconnecting', 'live']);
  });
});

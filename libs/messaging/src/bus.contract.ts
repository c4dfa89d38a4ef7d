import { ErrorReply, StagecraftError, RunEvent, publishContracts } from '@stagecraft/contracts';
import { BusFault, HEADER, MessageBus } from './bus';
import { RunFeedEvent, publishRunEvent, subscribeRunEvents } from './publish';
import { FailedRequest, createRequester, serveRequests, watchFailedRequests } from './requests';
import { wireBytes } from './wire-size';

let counter = 0;
const newId = () => `id-${++counter}`;
const prefix = 'test';

const decideRequest = { userMode: 'agent', reasoningEnabled: true, stage: 'act' } as const;
const policyReply = {
  policy: {
    ...decideRequest,
    delegation: { depth: 0, chain: [] },
    tools: ['read_file' as const],
    prompts: ['base/system'],
    reasoning: { rule: 'micro' as const, required: true },
    toolLoop: true,
  },
};

const envelopeOf = (body: string) => JSON.parse(body) as { ok: boolean; data?: unknown; error?: ErrorReply };
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

/** A run event whose JSON is `bytes` long or more: the shape a model's long answer takes in the log. */
const runEvent = (runId: string, content: string): RunEvent => ({
  type: 'ModelResponded',
  data: { requestId: 'req-1', content, toolCalls: [], latencyMs: 1, finishReason: 'stop' },
  metadata: { runId, correlationId: 'corr-1', occurredAt: '2026-11-01T00:00:00.000Z' },
});

export interface BusPair {
  bus: MessageBus;
  peer: MessageBus;
  close(): Promise<void>;
}

/**
 * Every transport passes the same suite: the same subjects, bodies, headers and errors, and the same
 * limits. `open` gives both ends the `onError` hook, so the suite can see the faults each bus absorbed.
 */
export function describeBusContract(name: string, open: (options: { onError: (fault: BusFault) => void }) => Promise<BusPair>) {
  describe(`${name} bus`, () => {
    let bus: MessageBus;
    let peer: MessageBus;
    let close: () => Promise<void>;
    let faults: BusFault[];

    beforeEach(async () => {
      faults = [];
      ({ bus, peer, close } = await open({ onError: (fault) => faults.push(fault) }));
    });
    afterEach(async () => close());

    it('carries a request and its reply with headers', async () => {
      peer.respond('echo', 'q', async (m) => ({ body: m.body.toUpperCase(), headers: { seen: m.headers['x-a'] ?? '' } }));
      await peer.flush();
      const reply = await bus.request('echo', 'hello', { headers: { 'x-a': 'b' }, timeoutMs: 2000 });
      expect(reply.body).toBe('HELLO');
      expect(reply.headers['seen']).toBe('b');
    });

    it('fails fast with UNAVAILABLE when nobody serves the subject', async () => {
      await expect(bus.request('nobody.home', '{}', { timeoutMs: 2000 })).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    });

    it('times out with TIMEOUT when the responder never answers', async () => {
      peer.respond('slow', 'q', () => new Promise(() => undefined));
      await peer.flush();
      await expect(bus.request('slow', '{}', { timeoutMs: 100 })).rejects.toMatchObject({ code: 'TIMEOUT' });
    });

    it('lets exactly one member of a queue group answer each request', async () => {
      const seen: string[] = [];
      peer.respond('work', 'workers', async () => (seen.push('a'), { body: 'a' }));
      peer.respond('work', 'workers', async () => (seen.push('b'), { body: 'b' }));
      await peer.flush();
      for (let i = 0; i < 10; i++) await bus.request('work', '{}', { timeoutMs: 2000 });
      expect(seen).toHaveLength(10);
    });

    it('publishes to wildcard subscribers', async () => {
      const got: string[] = [];
      const done = new Promise<void>((resolve) =>
        peer.subscribe('run.*.events', (m) => {
          got.push(`${m.subject}:${m.body}`);
          if (got.length === 2) resolve();
        }),
      );
      await peer.flush();
      bus.publish('run.r1.events', '1');
      bus.publish('other.r1.events', 'x');
      bus.publish('run.r2.events', '2');
      await bus.flush();
      await done;
      expect(got).toEqual(['run.r1.events:1', 'run.r2.events:2']);
    });

    describe('typed requests', () => {
      it('validates at the edge: an invalid payload never reaches the handler', async () => {
        const handler = jest.fn(async () => policyReply);
        serveRequests(peer, { 'policy.decide': handler }, { prefix, queue: 'policy', newId });
        await peer.flush();
        const reply = await bus.request('test.policy.decide', JSON.stringify({ userMode: 'boss', stage: 'act' }), { timeoutMs: 2000 });
        const envelope = JSON.parse(reply.body);
        expect(envelope.ok).toBe(false);
        expect(envelope.error.code).toBe('VALIDATION');
        expect(envelope.error.issues.map((i: { path: unknown[] }) => i.path[0]).sort()).toEqual(['reasoningEnabled', 'userMode']);
        expect(handler).not.toHaveBeenCalled();
      });

      it('answers non-JSON with a VALIDATION error', async () => {
        serveRequests(peer, { 'policy.decide': async () => policyReply }, { prefix, queue: 'policy', newId });
        await peer.flush();
        const reply = await bus.request('test.policy.decide', '{not json', { timeoutMs: 2000 });
        expect(JSON.parse(reply.body).error).toMatchObject({ code: 'VALIDATION', message: 'request body is not JSON' });
      });

      it('round-trips a valid request and carries the correlation id to the handler', async () => {
        let correlation = '';
        serveRequests(
          peer,
          { 'policy.decide': async (_r, ctx) => ((correlation = ctx.correlationId), policyReply) },
          { prefix, queue: 'policy', newId },
        );
        await peer.flush();
        const client = createRequester(bus, { prefix, newId });
        const reply = await client.request('policy.decide', decideRequest, { correlationId: 'corr-42' });
        expect(reply).toEqual(policyReply);
        expect(correlation).toBe('corr-42');
      });

      it('maps a handler error to its code and a reply outside the contract to INTERNAL', async () => {
        serveRequests(
          peer,
          {
            'conversation.run.get': async () => {
              throw new StagecraftError('NOT_FOUND', 'no run r9');
            },
            'policy.decide': async () => ({ policy: { nonsense: true } }) as never,
          },
          { prefix, queue: 'q', newId },
        );
        await peer.flush();
        const client = createRequester(bus, { prefix, newId });
        await expect(client.request('conversation.run.get', { runId: 'r9' })).rejects.toMatchObject({
          code: 'NOT_FOUND',
          message: 'no run r9',
        });
        await expect(client.request('policy.decide', decideRequest)).rejects.toMatchObject({ code: 'INTERNAL' });
      });

      it('tells the serving side about every request it answered with an error, on either lane', async () => {
        const failures: FailedRequest[] = [];
        watchFailedRequests(peer, (f) => failures.push(f));
        serveRequests(
          peer,
          {
            'conversation.run.get': async ({ runId }) => {
              throw new StagecraftError('NOT_FOUND', `no run ${runId}`);
            },
            'policy.decide': async () => policyReply,
          },
          { prefix, queue: 'q', newId },
        );
        await peer.flush();
        const client = createRequester(bus, { prefix, newId });
        await expect(client.request('conversation.run.get', { runId: 'r9' }, { correlationId: 'corr-9' })).rejects.toMatchObject({
          code: 'NOT_FOUND',
        });
        await bus.request('test.policy.decide', '{not json', { timeoutMs: 2000 });
        await client.request('policy.decide', decideRequest);
        expect(failures.map(({ durationMs, ...f }) => ({ ...f, measured: durationMs >= 0 }))).toEqual([
          { subject: 'conversation.run.get', code: 'NOT_FOUND', message: 'no run r9', correlationId: 'corr-9', measured: true },
          {
            subject: 'policy.decide',
            code: 'VALIDATION',
            message: 'request body is not JSON',
            correlationId: expect.any(String),
            measured: true,
          },
        ]);
      });

      it('echoes the correlation id header on the reply', async () => {
        serveRequests(peer, { 'policy.decide': async () => policyReply }, { prefix, queue: 'q', newId });
        await peer.flush();
        const reply = await bus.request('test.policy.decide', JSON.stringify(decideRequest), {
          headers: { [HEADER.correlationId]: 'c-1' },
          timeoutMs: 2000,
        });
        expect(reply.headers[HEADER.correlationId]).toBe('c-1');
      });

      it('answers the 9,000-bad-element policy.decide of the hardening issue with a small structured error, and keeps serving', async () => {
        // Before the fix the error reply was over 1 MiB: msg.respond threw in the NATS callback and the process exited.
        serveRequests(peer, { 'policy.decide': async () => policyReply }, { prefix, queue: 'policy', newId });
        await peer.flush();
        const body = JSON.stringify({ ...decideRequest, delegation: { depth: 0, chain: Array(9_000).fill('') } });
        const reply = await bus.request('test.policy.decide', body, { timeoutMs: 5000 });
        const { ok, error } = envelopeOf(reply.body);
        expect({ ok, code: ErrorReply.parse(error).code }).toEqual({ ok: false, code: 'VALIDATION' });
        expect(reply.body.length).toBeLessThan(10_000);
        expect(await createRequester(bus, { prefix, newId }).request('policy.decide', decideRequest)).toEqual(policyReply);
      });

      it('refuses structure over the limits before parsing, on either lane: nothing reaches the handler, the service keeps serving', async () => {
        const handler = jest.fn(async () => policyReply);
        serveRequests(peer, { 'policy.decide': handler }, { prefix, queue: 'policy', newId });
        await peer.flush();
        const wide = JSON.stringify({ ...decideRequest, delegation: { depth: 0, chain: Array(349_000).fill('') } });
        const deep = `{"delegation":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
        for (const body of [wide, deep]) {
          const { ok, error } = envelopeOf((await bus.request('test.policy.decide', body, { timeoutMs: 5000 })).body);
          expect({ ok, code: ErrorReply.parse(error).code }).toEqual({ ok: false, code: 'LIMIT_EXCEEDED' });
        }
        // Through a requester: the value lane in process, the text lane over NATS; the same refusal.
        let nested: unknown = [];
        for (let i = 0; i < 1_000; i++) nested = [nested];
        const client = createRequester(bus, { prefix, newId });
        await expect(client.request('policy.decide', { ...decideRequest, delegation: nested } as never)).rejects.toMatchObject({
          code: 'LIMIT_EXCEEDED',
          // The path to the 65th level, cut as every error path is (16 segments).
          issues: [{ path: ['delegation', ...Array(14).fill(0), '… 49 more'], message: 'nested more than 64 levels deep' }],
        });
        expect(handler).not.toHaveBeenCalled();
        expect(await client.request('policy.decide', decideRequest)).toEqual(policyReply);
      });

      it('caps any error at the edge: 20 issues, each bounded, the rest counted in omittedIssues and in the message', async () => {
        const longPath = Array.from({ length: 40 }, (_, i) => `segment-${i}-${'p'.repeat(100)}`);
        const issues = Array.from({ length: 9_000 }, (_, i) => ({ path: [...longPath, i], message: 'm'.repeat(5_000), code: 'too_small' }));
        serveRequests(
          peer,
          {
            'conversation.run.get': async ({ runId }) => {
              if (runId === 'amplified') throw new StagecraftError('VALIDATION', 'invalid run', issues);
              throw new StagecraftError('NOT_FOUND', `no run ${runId}`);
            },
          },
          { prefix, queue: 'q', newId },
        );
        await peer.flush();
        const reply = await bus.request('test.conversation.run.get', JSON.stringify({ runId: 'amplified' }), { timeoutMs: 5000 });
        const error = ErrorReply.parse(envelopeOf(reply.body).error);
        expect(error).toMatchObject({ code: 'VALIDATION', message: 'invalid run (8,980 more issues left out)', omittedIssues: 8_980 });
        expect(error.issues).toHaveLength(20);
        expect(Math.max(...error.issues.map((i) => i.message.length))).toBe(300);
        expect(error.issues[0].path).toHaveLength(16);
        expect(error.issues[0].path[15]).toBe('… 26 more');
        expect(Math.max(...error.issues[0].path.map((p) => String(p).length))).toBe(64);
        // 20 × (300 characters of message + 16 path segments of up to 64): about 27 KB, whatever was asked.
        expect(reply.body.length).toBeLessThan(30_000);
        // Relayed through a requester, the error keeps its count and says it once.
        const relayed = await createRequester(bus, { prefix, newId })
          .request('conversation.run.get', { runId: 'amplified' })
          .catch((e: StagecraftError) => e.toReply());
        expect(relayed).toEqual(error);
        await expect(createRequester(bus, { prefix, newId }).request('conversation.run.get', { runId: 'r1' })).rejects.toMatchObject({
          code: 'NOT_FOUND',
        });
      });

      it('bounds one huge issue: every key of a strict request named in one message', async () => {
        serveRequests(
          peer,
          {
            'policy.health': async () => ({
              service: 'policy',
              status: 'ok',
              version: '0',
              pid: 1,
              uptimeMs: 0,
              transport: bus.kind,
              store: null,
              dependencies: [],
            }),
          },
          { prefix, queue: 'policy', newId },
        );
        await peer.flush();
        // Just under the structure limit of 10,000 members (above it the request is refused before validation).
        const keys = Object.fromEntries(Array.from({ length: 9_999 }, (_, i) => [`unexpected-key-${i}`, 1]));
        const reply = await bus.request('test.policy.health', JSON.stringify(keys), { timeoutMs: 5000 });
        const { error } = envelopeOf(reply.body);
        expect(error).toMatchObject({ code: 'VALIDATION', issues: [{ code: 'unrecognized_keys' }] });
        expect(error?.issues[0].message.length).toBeLessThanOrEqual(300);
        expect(reply.body.length).toBeLessThan(2_000);
      });
    });

    describe('limits and faults (the same on every transport)', () => {
      it('a reply over maxPayload becomes a small LIMIT_EXCEEDED reply; the responder keeps serving', async () => {
        let calls = 0;
        peer.respond('big', 'q', async (m) => ((calls += 1), { body: m.body === 'small' ? 'fine' : 'x'.repeat(peer.maxPayload + 1) }));
        await peer.flush();
        const reply = await bus.request('big', 'huge please', { timeoutMs: 5000 });
        const { ok, error } = envelopeOf(reply.body);
        expect({ ok, code: error?.code }).toEqual({ ok: false, code: 'LIMIT_EXCEEDED' });
        expect(error?.message).toBe(
          `the reply on big is ${(peer.maxPayload + 1).toLocaleString('en-US')} bytes, over the transport's limit of ${peer.maxPayload.toLocaleString('en-US')}`,
        );
        expect((await bus.request('big', 'small', { timeoutMs: 5000 })).body).toBe('fine');
        expect(calls).toBe(2);
        expect(faults.map((f) => [f.during, f.subject, (f.error as StagecraftError).code])).toEqual([['reply', 'big', 'LIMIT_EXCEEDED']]);
      });

      it('refuses a request over maxPayload before sending it, counting the headers as NATS does', async () => {
        let calls = 0;
        peer.respond('sink', 'q', async () => ((calls += 1), { body: 'ok' }));
        await peer.flush();
        const headers = { 'x-a': 'b' };
        const fits = 'x'.repeat(bus.maxPayload - wireBytes('', headers));
        expect((await bus.request('sink', fits, { headers, timeoutMs: 5000 })).body).toBe('ok');
        await expect(bus.request('sink', `${fits}x`, { headers, timeoutMs: 5000 })).rejects.toMatchObject({
          code: 'LIMIT_EXCEEDED',
          name: 'PayloadTooLargeError',
        });
        expect(calls).toBe(1);
      });

      it('a responder that rejects or throws answers INTERNAL, and the subject keeps serving', async () => {
        peer.respond('fragile', 'q', async (m) => {
          if (m.body === 'reject') throw new Error('responder broke');
          return { body: 'fine' };
        });
        peer.respond('sync-throw', 'q', () => {
          throw new StagecraftError('CONFLICT', 'thrown before any promise');
        });
        await peer.flush();
        expect(envelopeOf((await bus.request('fragile', 'reject', { timeoutMs: 5000 })).body).error).toEqual({
          code: 'INTERNAL',
          message: 'responder broke',
          issues: [],
        });
        expect(envelopeOf((await bus.request('sync-throw', '', { timeoutMs: 5000 })).body).error).toMatchObject({ code: 'CONFLICT' });
        expect((await bus.request('fragile', 'again', { timeoutMs: 5000 })).body).toBe('fine');
        expect(faults.map((f) => [f.during, f.subject])).toEqual([
          ['reply', 'fragile'],
          ['reply', 'sync-throw'],
        ]);
      });

      it('a throwing listener is reported and neither it nor its neighbours miss the next message', async () => {
        const thrower: string[] = [];
        const neighbour: string[] = [];
        peer.subscribe('news', (m) => {
          thrower.push(m.body);
          throw new Error(`listener broke on ${m.body}`);
        });
        peer.subscribe('news', (m) => neighbour.push(m.body));
        await peer.flush();
        bus.publish('news', '1');
        bus.publish('news', '2');
        await bus.flush();
        await settle();
        expect({ thrower, neighbour }).toEqual({ thrower: ['1', '2'], neighbour: ['1', '2'] });
        expect(faults.map((f) => [f.during, f.subject, (f.error as Error).message])).toEqual([
          ['deliver', 'news', 'listener broke on 1'],
          ['deliver', 'news', 'listener broke on 2'],
        ]);
      });

      it('drops a published message over maxPayload as a fault, never as a throw', async () => {
        const got: string[] = [];
        peer.subscribe('feed', (m) => got.push(m.body.slice(0, 5)));
        await peer.flush();
        bus.publish('feed', 'first');
        expect(() => bus.publish('feed', 'y'.repeat(bus.maxPayload + 1))).not.toThrow();
        bus.publish('feed', 'third');
        await bus.flush();
        await settle();
        expect(got).toEqual(['first', 'third']);
        expect(faults.map((f) => [f.during, (f.error as StagecraftError).code])).toEqual([['publish', 'LIMIT_EXCEEDED']]);
      });

      it('publishes a run event over maxPayload cut to fit, still valid, in order between its neighbours', async () => {
        const seen: RunFeedEvent[] = [];
        subscribeRunEvents(peer, prefix, 'run-big', (event) => seen.push(event));
        await peer.flush();
        const huge = 'é'.repeat(bus.maxPayload); // two bytes each: twice the limit
        publishRunEvent(bus, prefix, runEvent('run-big', 'before'));
        publishRunEvent(bus, prefix, runEvent('run-big', huge));
        publishRunEvent(bus, prefix, runEvent('run-big', 'after'));
        await bus.flush();
        await settle();
        expect(seen.map((e) => (e.type === 'ModelResponded' ? e.data.content.slice(0, 6) : e.type))).toEqual(['before', 'éééééé', 'after']);
        const cut = seen[1];
        expect(publishContracts['run.events'].message.safeParse(cut).success).toBe(true);
        expect(
          cut.type === 'ModelResponded' &&
            cut.data.content.endsWith(`[… ${Buffer.byteLength(huge) - 2 * 2048} bytes cut; the full event is in the store]`),
        ).toBe(true);
        expect(faults).toEqual([]);
      });

      it('an onError hook that throws changes nothing', async () => {
        const {
          bus: quiet,
          peer: quietPeer,
          close: closeQuiet,
        } = await open({
          onError: () => {
            throw new Error('the hook itself broke');
          },
        });
        try {
          quietPeer.subscribe('loud', () => {
            throw new Error('listener broke');
          });
          quietPeer.respond('bad', 'q', async () => {
            throw new Error('responder broke');
          });
          await quietPeer.flush();
          quiet.publish('loud', 'x');
          quiet.publish('loud', 'z'.repeat(quiet.maxPayload + 1));
          expect(envelopeOf((await quiet.request('bad', '', { timeoutMs: 5000 })).body).error?.code).toBe('INTERNAL');
          await quiet.flush();
          await settle();
        } finally {
          await closeQuiet();
        }
      });
    });
  });
}

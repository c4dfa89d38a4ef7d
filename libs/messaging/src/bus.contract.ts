import { StagecraftError } from '@stagecraft/contracts';
import { HEADER, MessageBus } from './bus';
import { createRequester, serveRequests } from './requests';

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

/** Every transport passes the same suite: the same subjects, bodies, headers and errors. */
export function describeBusContract(name: string, open: () => Promise<{ bus: MessageBus; peer: MessageBus; close(): Promise<void> }>) {
  describe(`${name} bus`, () => {
    let bus: MessageBus;
    let peer: MessageBus;
    let close: () => Promise<void>;

    beforeEach(async () => ({ bus, peer, close } = await open()));
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
        serveRequests(peer, { 'policy.decide': async (_r, ctx) => ((correlation = ctx.correlationId), policyReply) }, { prefix, queue: 'policy', newId });
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
        await expect(client.request('conversation.run.get', { runId: 'r9' })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'no run r9' });
        await expect(client.request('policy.decide', decideRequest)).rejects.toMatchObject({ code: 'INTERNAL' });
      });

      it('echoes the correlation id header on the reply', async () => {
        serveRequests(peer, { 'policy.decide': async () => policyReply }, { prefix, queue: 'q', newId });
        await peer.flush();
        const reply = await bus.request('test.policy.decide', JSON.stringify(decideRequest), { headers: { [HEADER.correlationId]: 'c-1' }, timeoutMs: 2000 });
        expect(reply.headers[HEADER.correlationId]).toBe('c-1');
      });
    });
  });
}

import { StagecraftError } from '@stagecraft/contracts';
import { BusFault, HEADER, MessageBus } from './bus';
import { describeBusContract } from './bus.contract';
import { createInprocBus } from './inproc-bus';
import { subjectMatches } from './subject-match';
import { createRequester, serveRequests } from './requests';
import { wireBytes } from './wire-size';

describeBusContract('in-process', async (options) => {
  const bus = createInprocBus(options);
  return { bus, peer: bus, close: () => bus.close() };
});

describe('subjectMatches', () => {
  it.each([
    ['a.*.c', 'a.b.c', true],
    ['a.*.c', 'a.b.d', false],
    ['a.>', 'a.b.c', true],
    ['a.>', 'a', false],
    ['a.b', 'a.b.c', false],
  ])('%s ~ %s → %s', (pattern, subject, expected) => expect(subjectMatches(pattern, subject)).toBe(expected));
});

describe('in-process subscriptions', () => {
  it('delivers to exact and wildcard subscribers, and stops after unsubscribe', async () => {
    const bus = createInprocBus();
    const seen: string[] = [];
    const a = bus.subscribe('run.r1.events', (m) => seen.push(`a:${m.body}`));
    const b = bus.subscribe('run.r1.events', (m) => seen.push(`b:${m.body}`));
    bus.subscribe('run.>', (m) => seen.push(`w:${m.body}`));
    bus.publish('run.r1.events', '1');
    await new Promise((r) => setImmediate(r));
    a.unsubscribe();
    a.unsubscribe();
    bus.publish('run.r1.events', '2');
    await new Promise((r) => setImmediate(r));
    b.unsubscribe();
    const c = bus.subscribe('run.r1.events', (m) => seen.push(`c:${m.body}`));
    b.unsubscribe();
    bus.publish('run.r1.events', '3');
    await new Promise((r) => setImmediate(r));
    c.unsubscribe();
    expect(seen).toEqual(['a:1', 'b:1', 'w:1', 'b:2', 'w:2', 'c:3', 'w:3']);
    await bus.close();
  });
});

describe('in-process requests (the local lane: values, no JSON)', () => {
  const prefix = 'test';
  const newId = () => 'id-1';
  const request = {
    userMode: 'agent' as const,
    reasoningEnabled: true,
    stage: 'act' as const,
    delegation: { depth: 1, chain: ['reviewer'] },
  };
  const reply = {
    policy: {
      ...request,
      delegation: { depth: 1, chain: ['reviewer'] },
      tools: ['read_file' as const],
      prompts: ['base/system'],
      reasoning: { rule: 'micro' as const, required: true },
      toolLoop: true,
    },
  };

  it('never goes through text, and still validates at the edge', async () => {
    const bus = createInprocBus();
    const sent = jest.spyOn(bus, 'request');
    const handler = jest.fn(async () => reply);
    serveRequests(bus, { 'policy.decide': handler }, { prefix, newId });
    const client = createRequester(bus, { prefix, newId });
    expect(await client.request('policy.decide', request)).toEqual(reply);
    await expect(client.request('policy.decide', { ...request, userMode: 'boss' } as never)).rejects.toMatchObject({
      code: 'VALIDATION',
      issues: [{ path: ['userMode'] }],
    });
    expect(handler).toHaveBeenCalledTimes(1);
    expect(sent).not.toHaveBeenCalled();
    await bus.close();
  });

  it('shares no object between caller and handler, either way', async () => {
    const bus = createInprocBus();
    serveRequests(
      bus,
      {
        'policy.decide': async (r) => {
          r.delegation?.chain.push('changed by the handler');
          return reply;
        },
      },
      { prefix, newId },
    );
    const client = createRequester(bus, { prefix, newId });
    const mine = structuredClone(request);
    const first = await client.request('policy.decide', mine);
    expect(mine).toEqual(request);
    first.policy.tools.push('write_file');
    expect(reply.policy.tools).toEqual(['read_file']);
    expect((await client.request('policy.decide', mine)).policy.tools).toEqual(['read_file']);
    await bus.close();
  });

  it('times out like a bus request, and takes turns between two responders', async () => {
    const bus = createInprocBus();
    serveRequests(bus, { 'conversation.run.get': () => new Promise<never>(() => undefined) }, { prefix, newId });
    const client = createRequester(bus, { prefix, newId, timeoutMs: 50 });
    await expect(client.request('conversation.run.get', { runId: 'r1' })).rejects.toMatchObject({ code: 'TIMEOUT' });

    const answered: string[] = [];
    for (const name of ['a', 'b']) serveRequests(bus, { 'policy.decide': async () => (answered.push(name), reply) }, { prefix, newId });
    for (let i = 0; i < 4; i++) await client.request('policy.decide', request);
    // Which one starts is not promised (as with a NATS queue group); that they alternate is.
    expect(answered[0]).not.toBe(answered[1]);
    expect(answered.slice(2)).toEqual(answered.slice(0, 2));
    await bus.close();
  });
});

describe('in-process limits (the same as NATS, on both lanes)', () => {
  const prefix = 'test';
  const newId = () => 'id-1';
  const maxPayload = 2_000;
  const request = { userMode: 'agent' as const, reasoningEnabled: true, stage: 'act' as const };
  const replyWith = (prompt: string) => ({
    policy: {
      ...request,
      delegation: { depth: 0, chain: [] },
      tools: [],
      prompts: [prompt],
      reasoning: { rule: 'micro' as const, required: true },
      toolLoop: true,
    },
  });
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (e: StagecraftError) => e.toReply(),
    );
  /** The same bus without its value lane, so a requester has to go through text. */
  const textOnly = (bus: MessageBus): MessageBus => ({ ...bus, local: undefined });

  it('uses NATS’s default max_payload unless told otherwise', async () => {
    expect(createInprocBus().maxPayload).toBe(1_048_576);
    expect(createInprocBus({ maxPayload }).maxPayload).toBe(maxPayload);
  });

  it('refuses the same request on the value lane as on the text lane, byte for byte', async () => {
    const bus = createInprocBus({ maxPayload });
    const handler = jest.fn(async () => replyWith('base/system'));
    serveRequests(bus, { 'policy.decide': handler }, { prefix, newId });
    const correlationId = 'corr-1';
    const headerSize = wireBytes('', { [HEADER.correlationId]: correlationId });
    const sized = (bytes: number) => ({
      ...request,
      delegation: undefined,
      pad: 'x'.repeat(bytes - Buffer.byteLength(JSON.stringify({ ...request, pad: '' })) - headerSize),
    });
    for (const lane of [bus, textOnly(bus)]) {
      const client = createRequester(lane, { prefix, newId });
      await expect(client.request('policy.decide', sized(maxPayload) as never, { correlationId })).resolves.toEqual(
        replyWith('base/system'),
      );
      expect(await failure(client.request('policy.decide', sized(maxPayload + 1) as never, { correlationId }))).toEqual({
        code: 'LIMIT_EXCEEDED',
        message: "the request on test.policy.decide is 2,001 bytes, over the transport's limit of 2,000",
        issues: [],
      });
    }
    expect(handler).toHaveBeenCalledTimes(2);
    await bus.close();
  });

  it('answers LIMIT_EXCEEDED for a reply over the limit on both lanes, reports it, and keeps serving', async () => {
    const faults: BusFault[] = [];
    const bus = createInprocBus({ maxPayload, onError: (f) => faults.push(f) });
    serveRequests(
      bus,
      { 'policy.decide': async (r) => replyWith(r.stage === 'act' ? 'p'.repeat(maxPayload) : 'base/system') },
      { prefix, newId },
    );
    for (const lane of [bus, textOnly(bus)]) {
      const client = createRequester(lane, { prefix, newId });
      expect(await failure(client.request('policy.decide', request))).toMatchObject({
        code: 'LIMIT_EXCEEDED',
        message: expect.stringMatching(/^the reply on test\.policy\.decide is 2,\d{3} bytes/),
      });
      await expect(client.request('policy.decide', { ...request, stage: 'warmup' })).resolves.toEqual(replyWith('base/system'));
    }
    expect(faults.map((f) => [f.during, f.subject])).toEqual([
      ['reply', 'test.policy.decide'],
      ['reply', 'test.policy.decide'],
    ]);
    await bus.close();
  });
});

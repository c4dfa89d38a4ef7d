import { describeBusContract } from './bus.contract';
import { createInprocBus } from './inproc-bus';
import { subjectMatches } from './subject-match';
import { createRequester, serveRequests } from './requests';

describeBusContract('in-process', async () => {
  const bus = createInprocBus();
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
  const request = { userMode: 'agent' as const, reasoningEnabled: true, stage: 'act' as const, delegation: { depth: 1, chain: ['reviewer'] } };
  const reply = {
    policy: { ...request, delegation: { depth: 1, chain: ['reviewer'] }, tools: ['read_file' as const], prompts: ['base/system'], reasoning: { rule: 'micro' as const, required: true }, toolLoop: true },
  };

  it('never goes through text, and still validates at the edge', async () => {
    const bus = createInprocBus();
    const sent = jest.spyOn(bus, 'request');
    const handler = jest.fn(async () => reply);
    serveRequests(bus, { 'policy.decide': handler }, { prefix, newId });
    const client = createRequester(bus, { prefix, newId });
    expect(await client.request('policy.decide', request)).toEqual(reply);
    await expect(client.request('policy.decide', { ...request, userMode: 'boss' } as never)).rejects.toMatchObject({ code: 'VALIDATION', issues: [{ path: ['userMode'] }] });
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

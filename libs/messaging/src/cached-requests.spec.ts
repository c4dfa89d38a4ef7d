import { ParsedRequestOf, PolicyDecideReply, StagecraftError } from '@stagecraft/contracts';
import { cachedRequests } from './cached-requests';
import { createInprocBus } from './inproc-bus';
import { createRequester, serveRequests } from './requests';

const prefix = 'test';
const newId = () => 'id-1';
const request = { userMode: 'agent' as const, reasoningEnabled: true, stage: 'qa_review' as const };

/** A policy owner that answers from the request and counts what it was asked; `failNext` makes it fail once. */
function policyOwner() {
  const bus = createInprocBus();
  const asked: ParsedRequestOf<'policy.decide'>[] = [];
  const state = { failNext: false, version: 'base/system' };
  serveRequests(
    bus,
    {
      'policy.decide': async (r): Promise<PolicyDecideReply> => {
        asked.push(r);
        if (state.failNext) {
          state.failNext = false;
          throw new StagecraftError('UNAVAILABLE', 'restarting');
        }
        return {
          policy: { ...r, tools: ['read_file'], prompts: [state.version], reasoning: { rule: 'micro', required: true }, toolLoop: true },
        };
      },
      'conversation.run.get': async () => {
        throw new StagecraftError('NOT_FOUND', 'no such run');
      },
    },
    { prefix, newId },
  );
  const clock = { now: 0 };
  const requester = createRequester(bus, { prefix, newId });
  return {
    bus,
    asked,
    state,
    clock,
    requester,
    cached: (maxEntries = 4) => cachedRequests(requester, 'policy.decide', { maxEntries, ttlMs: 1_000, now: () => clock.now }),
  };
}

describe('cachedRequests', () => {
  it('asks the owner once per distinct request, and gives every caller its own copy', async () => {
    const owner = policyOwner();
    const cached = owner.cached();
    const first = await cached.request('policy.decide', request);
    first.policy.tools.push('write_file');
    const second = await cached.request('policy.decide', { ...request, delegation: { depth: 0, chain: [] } });
    expect(second.policy.tools).toEqual(['read_file']);
    expect(owner.asked).toHaveLength(1);
    await cached.request('policy.decide', { ...request, reasoningEnabled: false });
    expect(owner.asked).toHaveLength(2);
    await owner.bus.close();
  });

  it('hands every caller the one remembered reply when told the callers never change it', async () => {
    const owner = policyOwner();
    const shared = cachedRequests(owner.requester, 'policy.decide', { shareReplies: true });
    const first = await shared.request('policy.decide', request);
    const second = await shared.request('policy.decide', request);
    expect(second).toBe(first);
    expect(owner.asked).toHaveLength(1);
    await owner.bus.close();
  });

  it('shares one request in flight between concurrent callers', async () => {
    const owner = policyOwner();
    const cached = owner.cached();
    const replies = await Promise.all([1, 2, 3].map(() => cached.request('policy.decide', request)));
    expect(new Set(replies.map((r) => JSON.stringify(r))).size).toBe(1);
    expect(owner.asked).toHaveLength(1);
    await owner.bus.close();
  });

  it('asks again once the answer is older than ttlMs, and hears what a redeployed owner says', async () => {
    const owner = policyOwner();
    const cached = owner.cached();
    await cached.request('policy.decide', request);
    owner.state.version = 'v2/system';
    owner.clock.now = 999;
    expect((await cached.request('policy.decide', request)).policy.prompts).toEqual(['base/system']);
    owner.clock.now = 1_000;
    expect((await cached.request('policy.decide', request)).policy.prompts).toEqual(['v2/system']);
    expect(owner.asked).toHaveLength(2);
    await owner.bus.close();
  });

  it('keeps at most maxEntries answers, dropping the least recently used', async () => {
    const owner = policyOwner();
    const cached = owner.cached(2);
    const qa = request;
    const act = { ...request, stage: 'act' as const };
    const warmup = { ...request, stage: 'warmup' as const };
    await cached.request('policy.decide', qa);
    await cached.request('policy.decide', act);
    await cached.request('policy.decide', qa);
    await cached.request('policy.decide', warmup);
    expect(owner.asked.map((r) => r.stage)).toEqual(['qa_review', 'act', 'warmup']);
    await cached.request('policy.decide', qa);
    await cached.request('policy.decide', act);
    expect(owner.asked.map((r) => r.stage)).toEqual(['qa_review', 'act', 'warmup', 'act']);
    await owner.bus.close();
  });

  it('never remembers a failure, and leaves bad requests and other subjects to their owner', async () => {
    const owner = policyOwner();
    const cached = owner.cached();
    owner.state.failNext = true;
    await expect(cached.request('policy.decide', request)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    await expect(cached.request('policy.decide', request)).resolves.toMatchObject({ policy: { stage: 'qa_review' } });
    await expect(cached.request('policy.decide', { ...request, userMode: 'boss' } as never)).rejects.toMatchObject({
      code: 'VALIDATION',
      issues: [{ path: ['userMode'] }],
    });
    await expect(cached.request('conversation.run.get', { runId: 'r1' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(owner.asked).toHaveLength(2);
    await owner.bus.close();
  });
});

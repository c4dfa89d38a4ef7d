import { prng } from '@stagecraft/testing';
import { PolicyDecideRequest, Stage, StagePolicy, UserMode } from '@stagecraft/contracts';
import { decideStagePolicy } from './decide';
import { toolClassOf } from './tool-classes';

function randomRequest(next: () => number): PolicyDecideRequest {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
  const depth = next() < 0.4 ? 0 : Math.floor(next() * 8);
  return {
    userMode: pick(UserMode.options),
    reasoningEnabled: next() < 0.5,
    stage: pick(Stage.options),
    delegation: { depth, chain: Array.from({ length: depth }, (_, i) => `${pick(['analyst', 'tester', 'planner'])}-${i}`) },
  };
}

const SEED = 20_260_121;
const RUNS = 2_000;

describe('decideStagePolicy over random inputs', () => {
  const next = prng(SEED);
  const samples: Array<{ request: PolicyDecideRequest; policy: StagePolicy }> = Array.from({ length: RUNS }, () => {
    const request = randomRequest(next);
    return { request, policy: decideStagePolicy(request) };
  });

  it('draws a spread of inputs', () => {
    const kinds = new Set(samples.map(({ request: r }) => `${r.userMode}/${r.reasoningEnabled}/${r.stage}/${r.delegation.depth > 0}`));
    expect(kinds.size).toBe(2 * 2 * 5 * 2);
  });

  it("never changes the user's mode, reasoning switch, stage or delegation", () => {
    for (const { request, policy } of samples) {
      expect([policy.userMode, policy.reasoningEnabled, policy.stage, policy.delegation]).toEqual([
        request.userMode,
        request.reasoningEnabled,
        request.stage,
        request.delegation,
      ]);
    }
  });

  it('gives delivery no tools and QA only read-only tools (recall being the one memory tool that only reads)', () => {
    for (const { policy } of samples) {
      if (policy.stage === 'delivery_check') expect([policy.tools, policy.toolLoop]).toEqual([[], false]);
      if (policy.stage === 'qa_review')
        expect(policy.tools.filter((tool) => toolClassOf(tool) !== 'read_only' && tool !== 'memory_recall')).toEqual([]);
    }
  });

  it('gives chat no tools that write or execute, and no tool loop', () => {
    for (const { policy } of samples.filter((s) => s.request.userMode === 'chat')) {
      expect(policy.tools.filter((tool) => toolClassOf(tool) !== 'read_only')).toEqual([]);
      expect(policy.toolLoop).toBe(false);
    }
  });

  it('requires reasoning exactly when the user turned it on', () => {
    for (const { request, policy } of samples) {
      expect(policy.reasoning.required).toBe(request.reasoningEnabled);
      expect(policy.reasoning.rule === 'none').toBe(!request.reasoningEnabled);
    }
  });

  it('answers the same request the same way every time', () => {
    for (const { request, policy } of samples.slice(0, 200)) expect(decideStagePolicy(request)).toEqual(policy);
  });
});

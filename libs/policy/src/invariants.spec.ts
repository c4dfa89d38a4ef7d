import { PolicyDecideRequest, StagePolicy, StagecraftError } from '@stagecraft/contracts';
import { decideStagePolicy } from './decide';
import { assertPolicyInvariants, isReasoningPrompt, policyViolations } from './invariants';

const request = (over: Partial<PolicyDecideRequest> = {}): PolicyDecideRequest => ({
  userMode: 'agent',
  reasoningEnabled: true,
  stage: 'act',
  delegation: { depth: 0, chain: [] },
  ...over,
});

function tampered(req: PolicyDecideRequest, change: (p: StagePolicy) => StagePolicy): StagePolicy {
  return change(decideStagePolicy(req));
}

describe('policy invariants', () => {
  it('accept every policy the decision produces', () => {
    expect(policyViolations(request(), decideStagePolicy(request()))).toEqual([]);
  });

  it.each<[string, PolicyDecideRequest, (p: StagePolicy) => StagePolicy, string]>([
    ['a flipped mode', request(), (p) => ({ ...p, userMode: 'chat' }), 'mode changed from agent to chat'],
    ['a flipped reasoning switch', request(), (p) => ({ ...p, reasoningEnabled: false }), 'reasoning switch changed'],
    ['another stage', request(), (p) => ({ ...p, stage: 'warmup' }), 'stage changed from act to warmup'],
    ['a rewritten delegation', request(), (p) => ({ ...p, delegation: { depth: 1, chain: ['x'] } }), 'delegation changed'],
    [
      'tools at delivery',
      request({ stage: 'delivery_check' }),
      (p) => ({ ...p, tools: ['read_file'], toolLoop: true }),
      'delivery_check has tools',
    ],
    [
      'a memory tool the stage does not grant',
      request({ stage: 'qa_review' }),
      (p) => ({ ...p, tools: [...p.tools, 'memory_retain'] }),
      'the memory tools offered differ from the memory operations granted',
    ],
    [
      'a granted memory operation without its tool',
      request(),
      (p) => ({ ...p, tools: p.tools.filter((t) => t !== 'memory_reflect') }),
      'the memory tools offered differ from the memory operations granted',
    ],
    [
      'a write tool in QA',
      request({ stage: 'qa_review' }),
      (p) => ({ ...p, tools: [...p.tools, 'apply_patch'] }),
      'qa_review has a tool that is not read-only',
    ],
    [
      'an execute tool in chat',
      request({ userMode: 'chat' }),
      (p) => ({ ...p, tools: ['run_command'], toolLoop: true }),
      'chat has a write or execute tool',
    ],
    ['a tool loop in chat', request({ userMode: 'chat' }), (p) => ({ ...p, toolLoop: true }), 'chat has a tool loop'],
    ['tools that never run', request(), (p) => ({ ...p, toolLoop: false }), 'tools are offered but never executed'],
    ['memory writes in QA', request({ stage: 'qa_review' }), (p) => ({ ...p, memory: ['recall', 'retain'] }), 'qa_review may write memory'],
    ['memory without a loop', request({ stage: 'warmup' }), (p) => ({ ...p, memory: ['recall'] }), 'memory is offered but never executed'],
    ['reasoning dropped', request(), (p) => ({ ...p, reasoning: { rule: 'none', required: false } }), 'reasoning is on but not required'],
    [
      'reasoning made optional',
      request(),
      (p) => ({ ...p, reasoning: { rule: 'micro', required: false } }),
      'reasoning is on but not required',
    ],
    [
      'the reasoning prompt lost',
      request(),
      (p) => ({ ...p, prompts: p.prompts.filter((id) => !isReasoningPrompt(id)) }),
      'reasoning is on but the prompt set has no single reasoning prompt',
    ],
    ['the reasoning prompt moved', request(), (p) => ({ ...p, prompts: [...p.prompts].reverse() }), 'the reasoning prompt is not last'],
    [
      'reasoning forced on',
      request({ reasoningEnabled: false }),
      (p) => ({ ...p, reasoning: { rule: 'micro', required: true } }),
      'reasoning is asked for while the user turned it off',
    ],
    [
      'a reasoning prompt slipped in',
      request({ reasoningEnabled: false }),
      (p) => ({ ...p, prompts: [...p.prompts, 'agent/reasoning_micro'] }),
      'reasoning is asked for while the user turned it off',
    ],
  ])('reject %s', (_label, req, change, message) => {
    const policy = tampered(req, change);
    expect(policyViolations(req, policy)).toContain(message);
    let thrown: unknown;
    try {
      assertPolicyInvariants(req, policy);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(StagecraftError);
    expect((thrown as StagecraftError).code).toBe('INVARIANT_VIOLATION');
    expect((thrown as StagecraftError).issues.map((i) => i.message)).toContain(message);
  });

  it('recognises exactly the reasoning prompts', () => {
    expect(
      ['agent/reasoning_macro', 'agent/reasoning_micro', 'chat/reasoning_micro', 'qa/review_micro_reasoning'].every(isReasoningPrompt),
    ).toBe(true);
    expect(['delivery/reasoning_format_correction', 'delivery/low_quality_reasoning', 'agent/act'].some(isReasoningPrompt)).toBe(false);
  });
});

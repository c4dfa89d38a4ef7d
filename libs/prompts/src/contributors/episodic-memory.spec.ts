import { Stage, UserMode } from '@stagecraft/contracts';
import { decideStagePolicy } from '@stagecraft/policy';
import { findPromptViolations } from '../prompt-guard';
import { episodicMemoryContributor, episodicMemoryGuidance } from './episodic-memory';

const policyFor = (userMode: UserMode, stage: Stage) => decideStagePolicy({ userMode, reasoningEnabled: true, stage, delegation: { depth: 0, chain: [] } });
const context = (userMode: UserMode, stage: Stage) => ({ agentType: 'main', policy: policyFor(userMode, stage), variables: {}, instructions: [] });

describe('episodic memory contributor', () => {
  it("applies exactly where the run's requests offer memory tools: every agent stage (docs/decisions/0052)", () => {
    const applies = UserMode.options.flatMap((mode) => Stage.options.filter((stage) => episodicMemoryContributor.appliesTo?.(policyFor(mode, stage))).map((s) => `${mode}/${s}`));
    expect(applies).toEqual(['agent/warmup', 'agent/act', 'agent/tool_followup', 'agent/delivery_check', 'agent/qa_review']);
  });

  it('follows the stage’s own memory in a policy recorded before requests offered the run’s tools', () => {
    const { offered: _offered, ...recorded } = policyFor('agent', 'warmup');
    expect(episodicMemoryContributor.appliesTo?.(recorded)).toBe(false);
    const { offered: _o, memory: _memory, ...withoutMemory } = policyFor('agent', 'act');
    expect(episodicMemoryContributor.appliesTo?.(withoutMemory)).toBe(false);
  });

  it('guides all three operations in the acting stages, RETAIN, REFLECT, RECALL in the seed order', () => {
    const text = episodicMemoryContributor.contribute(context('agent', 'act')) ?? '';
    const at = (s: string) => text.indexOf(s);
    expect(at('### RETAIN')).toBeGreaterThan(0);
    expect(at('### RETAIN')).toBeLessThan(at('### REFLECT'));
    expect(at('### REFLECT')).toBeLessThan(at('### RECALL'));
    expect(text).toContain('`memory_retain`');
    expect(text).toContain('`memory_reflect`');
    expect(text).toContain('`memory_recall`');
    expect(text).toContain('**Recommended flow**: RECALL → work → RETAIN key learnings → REFLECT on connections');
    expect(text).toMatch(/tier `architecture`/);
  });

  it('gives QA recall only, and says nothing of storing', () => {
    const text = episodicMemoryContributor.contribute(context('agent', 'qa_review')) ?? '';
    expect(text).toContain('### RECALL');
    expect(text).toContain('read-only');
    expect(text).not.toMatch(/RETAIN|REFLECT|memory_retain|memory_reflect|Recommended flow/);
  });

  it('contributes nothing without operations', () => {
    expect(episodicMemoryGuidance([])).toBeNull();
  });

  it('never suggests a mode switch or optional reasoning', () => {
    expect(findPromptViolations(episodicMemoryGuidance(['recall', 'retain', 'reflect']) ?? '')).toEqual([]);
  });
});

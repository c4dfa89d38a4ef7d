import { createHash } from 'node:crypto';
import { Instruction, PromptAssembleReply, PromptAssembleRequest, StagePolicy } from '@stagecraft/contracts';
import { decideStagePolicy } from '@stagecraft/policy';
import { assemblePrompt } from './assemble';
import { PromptContributor } from './contributors/contributor';
import { createContributorRegistry } from './contributors/registry';
import { createPromptRepository } from './repository';

const policy: StagePolicy = {
  ...decideStagePolicy({ userMode: 'agent', reasoningEnabled: true, stage: 'tool_followup', delegation: { depth: 0, chain: [] } }),
  prompts: ['base/system', 'base/project_root_context', 'agent/tool_followup', 'agent/reasoning_micro'],
};

const repo = createPromptRepository([
  { id: 'agent/reasoning_micro', body: 'Reason in 3-8 bullets.' },
  { id: 'base/system', body: 'You are Stagecraft.' },
  { id: 'base/project_root_context', body: 'Root: {{project_root}}' },
  { id: 'agent/tool_followup', body: 'Tools: {{tool_summary}}\nLast: {{last_step_outcome}}' },
  { id: 'unused/prompt', body: 'Never composed.' },
]);

const variables = { project_root: '/repo', tool_summary: 'read_file ok', last_step_outcome: 'NEEDS_WORK' };
const instructions: Instruction[] = [
  { kind: 'DelegateReasoning', agentType: 'analyst', agentPrompt: 'Analyse.', markIntermediate: true },
  { kind: 'IntermediateReasoning' },
  { kind: 'ReturnControl' },
];
const request: PromptAssembleRequest = { policy, variables, instructions, agentType: 'main' };

const section = (name: string, priority: number, text: string | null = `## ${name}`, extra: Partial<PromptContributor> = {}): PromptContributor => ({
  name,
  priority,
  agentTypes: 'all',
  contribute: () => text,
  ...extra,
});

describe('assemblePrompt', () => {
  it('composes prompts in policy order, then contributors by priority and name, then instruction lines', () => {
    const contributors = createContributorRegistry([section('zz-late', 50), section('b-mid', 10), section('a-mid', 10), section('silent', 1, null), section('blank', 2, '  \n')]);
    const reply = assemblePrompt(repo, request, contributors);
    expect(reply.system).toBe(
      [
        'You are Stagecraft.',
        'Root: /repo',
        'Tools: read_file ok\nLast: NEEDS_WORK',
        'Reason in 3-8 bullets.',
        '## a-mid',
        '## b-mid',
        '## zz-late',
        '<delegate-reasoning>Specialist active (8 chars)</delegate-reasoning>\n<intermediate>Internal reasoning</intermediate>\n<return-control>Returning to main agent</return-control>',
      ].join('\n\n') + '\n',
    );
    expect(reply.promptIds).toEqual([...policy.prompts, 'contributor:a-mid', 'contributor:b-mid', 'contributor:zz-late']);
  });

  describe('split layout (docs/decisions/0052)', () => {
    const split: PromptAssembleRequest = { ...request, policy: { ...policy, runPrompts: 2 }, layout: 'split' };
    const contributors = createContributorRegistry([section('role', 10, '## Role', { runWide: true }), section('memory', 5)]);

    it('puts the run prompts and run-wide sections in system, and the rest, in the same order, in stage', () => {
      const reply = assemblePrompt(repo, split, contributors);
      expect(reply.system).toBe('You are Stagecraft.\n\nRoot: /repo\n\n## Role\n');
      expect(reply.stage).toBe(
        [
          'Tools: read_file ok\nLast: NEEDS_WORK',
          'Reason in 3-8 bullets.',
          '## memory',
          '<delegate-reasoning>Specialist active (8 chars)</delegate-reasoning>\n<intermediate>Internal reasoning</intermediate>\n<return-control>Returning to main agent</return-control>',
        ].join('\n\n') + '\n',
      );
      expect(reply.promptIds).toEqual([...policy.prompts, 'contributor:memory', 'contributor:role']);
      expect(reply.hash).toBe(createHash('sha256').update(`${reply.system}\u0000${reply.stage}`).digest('hex'));
    });

    it('keeps system byte-identical while the per-step values change, and the whole layout as it was', () => {
      const later = assemblePrompt(repo, { ...split, variables: { ...variables, tool_summary: '1. read_file ok\n2. write_file ok' } }, contributors);
      const first = assemblePrompt(repo, split, contributors);
      expect(later.system).toBe(first.system);
      expect(later.stage).not.toBe(first.stage);
      expect(later.hash).not.toBe(first.hash);
      const whole = assemblePrompt(repo, request, contributors);
      expect(whole.stage).toBeUndefined();
      expect(whole.system).toContain('Tools: read_file ok');
    });

    it('gives the real policies of one run the same system message in every stage but QA', () => {
      const real = createPromptRepository([
        { id: 'base/system', body: 'Base.' },
        { id: 'base/project_root_context', body: 'Root: {{project_root}}' },
        { id: 'agent/mode_addition', body: 'Agent mode.' },
        { id: 'agent/tool_loop_context', body: 'Tools.' },
        { id: 'agent/user_input_request_block', body: 'Proceed.' },
      ]);
      const systems = (['warmup', 'act', 'tool_followup', 'delivery_check'] as const).map((stage) => {
        const p = decideStagePolicy({ userMode: 'agent', reasoningEnabled: true, stage, delegation: { depth: 0, chain: [] } });
        const withKnown = { ...p, prompts: p.prompts.slice(0, p.runPrompts) };
        return assemblePrompt(real, { policy: withKnown, variables, instructions: [], agentType: 'main', layout: 'split' }).system;
      });
      expect(new Set(systems)).toEqual(new Set(['Base.\n\nRoot: /repo\n\nAgent mode.\n\nTools.\n\nProceed.\n']));
    });
  });

  it('hashes the exact bytes of the system prompt with sha256', () => {
    const reply = assemblePrompt(repo, request);
    expect(reply.hash).toBe(createHash('sha256').update(reply.system).digest('hex'));
    expect(PromptAssembleReply.parse(reply)).toEqual(reply);
  });

  it('gives the same bytes and hash for the same inputs, and a new hash when anything changes', () => {
    const contributors = createContributorRegistry([section('x', 1)]);
    const first = assemblePrompt(repo, request, contributors);
    expect(assemblePrompt(repo, structuredClone(request), createContributorRegistry([section('x', 1)]))).toEqual(first);
    expect(assemblePrompt(repo, { ...request, variables: { ...variables, tool_summary: 'read_file failed' } }, contributors).hash).not.toBe(first.hash);
    expect(assemblePrompt(repo, { ...request, instructions: [] }, contributors).hash).not.toBe(first.hash);
    expect(assemblePrompt(repo, request).hash).not.toBe(first.hash);
  });

  it('adds no instruction section when none is active', () => {
    const reply = assemblePrompt(repo, { ...request, instructions: [] });
    expect(reply.system.endsWith('Reason in 3-8 bullets.\n')).toBe(true);
  });

  it('passes the request to contributors and filters them by agent type', () => {
    const seen: string[] = [];
    const contributors = createContributorRegistry([
      section('echo', 1, null, { contribute: (c) => (seen.push(`${c.agentType}:${c.policy.stage}:${c.variables.project_root}:${c.instructions.length}`), 'echo') }),
      section('reviewer-only', 2, 'reviewer', { agentTypes: ['qa-reviewer'] }),
    ]);
    const reply = assemblePrompt(repo, request, contributors);
    expect(seen).toEqual(['main:tool_followup:/repo:3']);
    expect(reply.promptIds).not.toContain('contributor:reviewer-only');
  });

  it('fails clearly when a composed prompt needs a value that is missing', () => {
    const { last_step_outcome: _dropped, ...partial } = variables;
    expect(() => assemblePrompt(repo, { ...request, variables: partial })).toThrow(
      expect.objectContaining({ code: 'VALIDATION', message: expect.stringContaining('{{last_step_outcome}}') }),
    );
  });

  it('fails with NOT_FOUND when the policy names a prompt that does not exist', () => {
    expect(() => assemblePrompt(repo, { ...request, policy: { ...policy, prompts: ['base/system', 'agent/ghost'] } })).toThrow(
      expect.objectContaining({ code: 'NOT_FOUND', message: expect.stringContaining('agent/ghost') }),
    );
  });
});

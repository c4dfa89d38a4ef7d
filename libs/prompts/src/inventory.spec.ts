import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { QAReport, Stage, UserMode, WORKFLOW_AGENT_TYPES } from '@stagecraft/contracts';
import { decideStagePolicy } from '@stagecraft/policy';
import { assemblePrompt } from './assemble';
import { defaultContributors } from './contributors/defaults';
import { loadPromptDirectory } from './load-prompts';
import { findPromptViolations } from './prompt-guard';
import { RECOVERY_PROMPTS, SUMMARIZE_PROMPT } from './recovery-prompts';
import { workflowRolePromptId } from './contributors/workflow-role';

const PROMPTS_DIR = join(__dirname, '..', '..', '..', 'prompts');
const repo = loadPromptDirectory(PROMPTS_DIR);
const body = (id: string) => repo.get(id).body;

/** Seed 002 §5.1, with the "ConversationFlow" migration folders mapped to corrections/, delivery/ and qa/. */
const SEED_INVENTORY = [
  'base/system', 'base/project_root_context', 'agent/mode_addition', 'chat/mode_addition',
  'agent/reasoning_macro', 'agent/reasoning_micro', 'agent/tool_loop_context', 'agent/empty_response_recovery',
  'agent/user_input_request_block', 'agent/delivery_gate',
  'corrections/force_tool_followup', 'corrections/no_user_input_next_step', 'corrections/empty_response_followup',
  'delivery/reasoning_format_correction', 'delivery/low_quality_reasoning', 'delivery/reasoning_only_no_answer',
  'delivery/enforce_delivery_completion', 'qa/tool_output_review_system', 'qa/quality_review_system',
  'qa/system', 'qa/review_micro_reasoning', 'qa/report_schema',
];

const LIBS_DIR = join(__dirname, '..', '..');

/** Every library source file (not a test, not the prompt table itself), relative to libs/. */
function librarySources(): string[] {
  return readdirSync(LIBS_DIR, { recursive: true, encoding: 'utf8' }).filter(
    (path) => /(^|\/)src\//.test(path) && path.endsWith('.ts') && !path.endsWith('.spec.ts') && !path.includes('node_modules') && !path.endsWith('recovery-prompts.ts'),
  );
}

/** The recovery prompts some library source names as `RECOVERY_PROMPTS.<key>`. */
function recoveryPromptsNamedInCode(): string[] {
  const sources = librarySources();
  const keys = new Set(sources.flatMap((path) => [...readFileSync(join(LIBS_DIR, path), 'utf8').matchAll(/RECOVERY_PROMPTS\.(\w+)/g)].map((m) => m[1])));
  return Object.entries(RECOVERY_PROMPTS).flatMap(([key, id]) => (keys.has(key) ? [id] : []));
}

/** Guards the guard: the scan above finds the decider's own uses. */
const decideSource = relative(LIBS_DIR, join(LIBS_DIR, 'run', 'src', 'interpret.ts'));

const policies = UserMode.options.flatMap((userMode) =>
  [true, false].flatMap((reasoningEnabled) =>
    Stage.options.flatMap((stage) =>
      [0, 1, 3].map((depth) =>
        decideStagePolicy({ userMode, reasoningEnabled, stage, delegation: { depth, chain: Array.from({ length: depth }, (_, i) => `specialist-${i}`) } }),
      ),
    ),
  ),
);

describe('the prompt inventory under prompts/', () => {
  it('holds every prompt the seed lists', () => {
    expect(SEED_INVENTORY.filter((id) => !repo.has(id))).toEqual([]);
  });

  it('holds every prompt any stage policy composes, and every recovery prompt', () => {
    const needed = new Set([...policies.flatMap((p) => p.prompts), ...Object.values(RECOVERY_PROMPTS)]);
    expect([...needed].filter((id) => !repo.has(id))).toEqual([]);
  });

  it('has no prompt that nothing uses: each is composed by a stage policy or named by the code that adds it', () => {
    // The summarize prompt is added by the compaction, which names it (the library's own exports do not count).
    const summarizeNamed = librarySources().some((path) => !path.startsWith('prompts/') && readFileSync(join(LIBS_DIR, path), 'utf8').includes('SUMMARIZE_PROMPT'));
    // A workflow agent's role prompt is added by the workflow-role contributor, by its agent type.
    const roles = WORKFLOW_AGENT_TYPES.map(workflowRolePromptId);
    const used = new Set([...policies.flatMap((p) => p.prompts), ...recoveryPromptsNamedInCode(), ...(summarizeNamed ? [SUMMARIZE_PROMPT] : []), ...roles]);
    expect(repo.ids().filter((id) => !used.has(id))).toEqual([]);
  });

  it('finds the recovery prompts the run decider names', () => {
    expect(readFileSync(join(LIBS_DIR, decideSource), 'utf8')).toContain('RECOVERY_PROMPTS.reasoningFormatCorrection');
    expect(recoveryPromptsNamedInCode()).toContain(RECOVERY_PROMPTS.reasoningFormatCorrection);
  });

  it('never suggests switching mode or leaves reasoning to the model', () => {
    const violations = repo.ids().flatMap((id) => findPromptViolations(body(id)).map((v) => `${id}: ${v.rule}: "${v.match}"`));
    expect(violations).toEqual([]);
  });

  it('assembles for every mode × reasoning × stage × delegation with no placeholder left over', () => {
    const variables = { project_root: '/repo', user_input: 'Add a --json flag', tool_summary: 'read_file src/cli.ts: ok', last_step_outcome: 'Delivery: NEEDS_WORK' };
    for (const policy of policies) {
      const instructions = policy.delegation.depth > 0 ? [{ kind: 'DelegateReasoning' as const, agentType: 'specialist', agentPrompt: 'Check the CLI tests.', markIntermediate: true }] : [];
      const reply = assemblePrompt(repo, { policy, variables, instructions, agentType: 'main' }, defaultContributors());
      expect(reply.system).not.toContain('{{');
      expect(reply.promptIds.slice(0, policy.prompts.length)).toEqual(policy.prompts);
      // Memory guidance follows the memory tools every request of the run offers (docs/decisions/0052).
      expect(reply.system.includes('## Episodic memory')).toBe((policy.offered ?? []).some((t) => t.startsWith('memory_')));
      expect(reply.system.includes('## Specialist brief')).toBe(policy.delegation.depth > 0);
    }
  });

  it('asks for the macro format: one block, six sections, NEEDS_WORK until done, then next steps', () => {
    const macro = body('agent/reasoning_macro');
    expect(macro).toContain('exactly one reasoning block, `<ide_reasoning>`');
    for (const section of ['Analyze', 'Research', 'Plan', 'Reflect', 'Action', 'Delivery']) expect(macro).toContain(`**${section}**`);
    expect(macro).toContain('`NEEDS_WORK`');
    expect(macro).toMatch(/After the block, tell the user/);
  });

  it.each(['agent/reasoning_micro', 'chat/reasoning_micro', 'qa/review_micro_reasoning'])('asks for the micro format in %s', (id) => {
    const micro = body(id);
    expect(micro).toContain('exactly one reasoning block, `<ide_reasoning>`');
    expect(micro).toContain('3 to 8 bullets');
    for (const label of ['Plan delta:', 'Next action:', 'Known risks:', 'Delivery:']) expect(micro).toContain(`\`${label}\``);
  });

  it('gives a QA report example that the QAReport contract accepts', () => {
    const example = /```json\n([\s\S]*?)\n```/.exec(body('qa/report_schema'));
    expect(example).not.toBeNull();
    expect(QAReport.safeParse(JSON.parse(example?.[1] ?? '')).success).toBe(true);
  });

  it('keeps QA advisory: no prompt of the reviewer asks it to rewrite the answer', () => {
    const sentences = repo.ids().filter((id) => id.startsWith('qa/')).flatMap((id) => body(id).split(/(?<=[.!?])\s+|\n/));
    const rewriting = /\b(?:provide|write|give|produce|rewrite)\s+(?:a\s+|an\s+|the\s+)?(?:improved|corrected|revised|better|answer|version)/i;
    expect(body('qa/system')).toMatch(/Do not rewrite the answer/);
    expect(sentences.filter((s) => rewriting.test(s) && !/\b(?:not|never|no)\b/i.test(s))).toEqual([]);
  });

  it('reads files that are what the repository serves', () => {
    expect(readFileSync(join(PROMPTS_DIR, 'base', 'system.md'), 'utf8').trim()).toBe(body('base/system'));
  });
});

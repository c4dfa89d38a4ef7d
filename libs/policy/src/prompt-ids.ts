import { ReasoningRule, Stage, StagecraftError, UserMode } from '@stagecraft/contracts';

/**
 * Prompt ids are paths under prompts/ without `.md`. The composition order is the seed's:
 * base → project root context → mode addition → stage prompts → reasoning (only when the user enabled it).
 * The QA reviewer is a different role, so its own system prompt takes the base slot.
 */
const BASE = 'base/system';
const PROJECT_ROOT = 'base/project_root_context';
const DELEGATION = 'base/delegation_context';
const QA_BASE = 'qa/system';

const modeAddition: Record<UserMode, string> = { agent: 'agent/mode_addition', chat: 'chat/mode_addition' };
const qaModeAddition: Record<UserMode, string> = { agent: 'qa/agent_mode_addition', chat: 'qa/chat_mode_addition' };

/**
 * How an agent run works with its tools and proceeds on its own: the same for every stage of the run, so
 * they close the shared head (docs/decisions/0052); warmup and delivery_check are asked with the run's
 * tools offered and `tool_choice: "none"`, and their own stage prompt says what this step does.
 */
const agentRunPrompts = ['agent/tool_loop_context', 'agent/user_input_request_block'];

const agentStagePrompts: Record<Stage, readonly string[]> = {
  warmup: ['agent/warmup'],
  act: ['agent/act'],
  tool_followup: ['agent/tool_followup'],
  delivery_check: ['agent/delivery_gate'],
  // An agent run executed tools, so the reviewer also checks what those tools returned.
  qa_review: ['qa/quality_review_system', 'qa/tool_output_review_system', 'qa/report_schema'],
};

const chatStagePrompts: Record<Stage, readonly string[]> = {
  warmup: ['chat/warmup'],
  act: ['chat/answer'],
  tool_followup: ['chat/answer'],
  delivery_check: ['chat/delivery_check'],
  qa_review: ['qa/quality_review_system', 'qa/report_schema'],
};

function reasoningPrompt(mode: UserMode, stage: Stage, rule: ReasoningRule): string | null {
  switch (rule) {
    case 'none':
      return null;
    case 'macro':
      return 'agent/reasoning_macro';
    case 'micro':
      if (stage === 'qa_review') return 'qa/review_micro_reasoning';
      return mode === 'agent' ? 'agent/reasoning_micro' : 'chat/reasoning_micro';
    default: {
      const unreachable: never = rule;
      throw new StagecraftError('INVARIANT_VIOLATION', `unhandled reasoning rule ${String(unreachable)}`);
    }
  }
}

/**
 * How many leading prompts of a stage are the same in every stage of the run (base, project root, mode
 * addition): the system message of a split request (docs/decisions/0052). The reviewer is not the run's
 * model and is asked on its own, so its prompts are all its stage's.
 */
export const runPromptCount = (mode: UserMode, stage: Stage): number => runHead(mode, stage).length;

const runHead = (mode: UserMode, stage: Stage): string[] =>
  stage === 'qa_review' ? [] : [BASE, PROJECT_ROOT, modeAddition[mode], ...(mode === 'agent' ? agentRunPrompts : [])];

export function promptsFor(mode: UserMode, stage: Stage, rule: ReasoningRule, delegated: boolean): string[] {
  const head = stage === 'qa_review' ? [QA_BASE, PROJECT_ROOT, qaModeAddition[mode]] : runHead(mode, stage);
  const stagePrompts = mode === 'agent' ? agentStagePrompts[stage] : chatStagePrompts[stage];
  const reasoning = reasoningPrompt(mode, stage, rule);
  return [...head, ...stagePrompts, ...(delegated ? [DELEGATION] : []), ...(reasoning === null ? [] : [reasoning])];
}

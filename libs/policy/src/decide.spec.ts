import { DelegationState, MemoryOperation, PolicyDecideRequest, Stage, StagePolicy, ToolName, UserMode } from '@stagecraft/contracts';
import { decideStagePolicy } from './decide';

const READ: ToolName[] = ['read_file', 'list_dir', 'search_code', 'find_symbol', 'list_entry_points', 'search_index', 'read_tool_output'];
const ALL: ToolName[] = [...READ, 'write_file', 'apply_patch', 'run_command'];
const ACTING_MEMORY: MemoryOperation[] = ['recall', 'retain', 'reflect'];
const ACTING_TOOLS: ToolName[] = [...ALL, 'memory_recall', 'memory_retain', 'memory_reflect'];

interface StageRow {
  tools: ToolName[];
  memory: MemoryOperation[];
  head: string[];
  stagePrompts: string[];
  /** Reasoning prompt and rule when the user turned reasoning on. */
  reasoning: { rule: 'macro' | 'micro'; prompt: string };
}

const AGENT = [
  'base/system',
  'base/project_root_context',
  'agent/mode_addition',
  'agent/tool_loop_context',
  'agent/user_input_request_block',
];
const CHAT = ['base/system', 'base/project_root_context', 'chat/mode_addition'];
const agentMicro = { rule: 'micro', prompt: 'agent/reasoning_micro' } as const;
const chatMicro = { rule: 'micro', prompt: 'chat/reasoning_micro' } as const;
const qaMicro = { rule: 'micro', prompt: 'qa/review_micro_reasoning' } as const;

const expected: Record<UserMode, Record<Stage, StageRow>> = {
  agent: {
    warmup: {
      tools: [],
      memory: [],
      head: AGENT,
      stagePrompts: ['agent/warmup'],
      reasoning: { rule: 'macro', prompt: 'agent/reasoning_macro' },
    },
    act: {
      tools: ACTING_TOOLS,
      memory: ACTING_MEMORY,
      head: AGENT,
      stagePrompts: ['agent/act'],
      reasoning: agentMicro,
    },
    tool_followup: {
      tools: ACTING_TOOLS,
      memory: ACTING_MEMORY,
      head: AGENT,
      stagePrompts: ['agent/tool_followup'],
      reasoning: agentMicro,
    },
    delivery_check: { tools: [], memory: [], head: AGENT, stagePrompts: ['agent/delivery_gate'], reasoning: agentMicro },
    qa_review: {
      tools: [...READ, 'memory_recall'],
      memory: ['recall'],
      head: ['qa/system', 'base/project_root_context', 'qa/agent_mode_addition'],
      stagePrompts: ['qa/quality_review_system', 'qa/tool_output_review_system', 'qa/report_schema'],
      reasoning: qaMicro,
    },
  },
  chat: {
    warmup: { tools: [], memory: [], head: CHAT, stagePrompts: ['chat/warmup'], reasoning: chatMicro },
    act: { tools: [], memory: [], head: CHAT, stagePrompts: ['chat/answer'], reasoning: chatMicro },
    tool_followup: { tools: [], memory: [], head: CHAT, stagePrompts: ['chat/answer'], reasoning: chatMicro },
    delivery_check: { tools: [], memory: [], head: CHAT, stagePrompts: ['chat/delivery_check'], reasoning: chatMicro },
    qa_review: {
      tools: [],
      memory: [],
      head: ['qa/system', 'base/project_root_context', 'qa/chat_mode_addition'],
      stagePrompts: ['qa/quality_review_system', 'qa/report_schema'],
      reasoning: qaMicro,
    },
  },
};

const delegations: Record<'none' | 'depth 1' | 'depth 3', DelegationState> = {
  none: { depth: 0, chain: [] },
  'depth 1': { depth: 1, chain: ['architecture-analyst'] },
  'depth 3': { depth: 3, chain: ['planner', 'architecture-analyst', 'test-writer'] },
};

const cases = UserMode.options.flatMap((userMode) =>
  [true, false].flatMap((reasoningEnabled) =>
    Stage.options.flatMap((stage) =>
      Object.entries(delegations).map(([label, delegation]) => ({ userMode, reasoningEnabled, stage, label, delegation })),
    ),
  ),
);

function expectedPolicy(c: (typeof cases)[number]): StagePolicy {
  const row = expected[c.userMode][c.stage];
  const delegated = c.delegation.depth > 0 ? ['base/delegation_context'] : [];
  return {
    userMode: c.userMode,
    reasoningEnabled: c.reasoningEnabled,
    stage: c.stage,
    delegation: { depth: c.delegation.depth, chain: [...c.delegation.chain] },
    tools: row.tools,
    prompts: [...row.head, ...row.stagePrompts, ...delegated, ...(c.reasoningEnabled ? [row.reasoning.prompt] : [])],
    reasoning: c.reasoningEnabled ? { rule: row.reasoning.rule, required: true } : { rule: 'none', required: false },
    toolLoop: row.tools.length > 0,
    memory: row.memory,
    // Every request of a run offers the acting stages' tools (docs/decisions/0052); the reviewer only its own.
    offered: c.stage === 'qa_review' ? row.tools : expected[c.userMode].act.tools,
    runPrompts: c.stage === 'qa_review' ? 0 : row.head.length,
  };
}

describe('decideStagePolicy, every mode × reasoning × stage × delegation', () => {
  it('covers all 60 combinations', () => {
    expect(cases).toHaveLength(60);
  });

  it.each(cases)('$userMode, reasoning $reasoningEnabled, $stage, delegation $label', (c) => {
    const request: PolicyDecideRequest = {
      userMode: c.userMode,
      reasoningEnabled: c.reasoningEnabled,
      stage: c.stage,
      delegation: c.delegation,
    };
    expect(decideStagePolicy(request)).toEqual(expectedPolicy(c));
  });
});

describe('decideStagePolicy, the specialist under delegation', () => {
  it.each(Stage.options)('changes only the framing prompt in %s', (stage) => {
    const main = decideStagePolicy({ userMode: 'agent', reasoningEnabled: true, stage, delegation: delegations.none });
    const specialist = decideStagePolicy({ userMode: 'agent', reasoningEnabled: true, stage, delegation: delegations['depth 1'] });
    expect({ ...specialist, delegation: main.delegation, prompts: main.prompts }).toEqual(main);
    expect(specialist.prompts.filter((id) => !main.prompts.includes(id))).toEqual(['base/delegation_context']);
  });
});

describe('decideStagePolicy, purity', () => {
  const request: PolicyDecideRequest = Object.freeze({
    userMode: 'agent',
    reasoningEnabled: true,
    stage: 'act',
    delegation: Object.freeze({ depth: 1, chain: Object.freeze(['specialist']) as unknown as string[] }),
  });

  it('gives equal policies for equal requests and leaves a frozen request untouched', () => {
    expect(decideStagePolicy(request)).toEqual(decideStagePolicy(request));
  });

  it('never shares arrays between decisions, so a caller mutating one cannot change the next', () => {
    const first = decideStagePolicy(request);
    first.tools.length = 0;
    first.prompts.push('rogue/prompt');
    first.memory?.splice(0);
    first.delegation.chain.push('intruder');
    const second = decideStagePolicy(request);
    expect(second.tools).toContain('write_file');
    expect(second.prompts).not.toContain('rogue/prompt');
    expect(second.memory).toEqual(['recall', 'retain', 'reflect']);
    expect(second.delegation.chain).toEqual(['specialist']);
  });
});

describe('decideStagePolicy, a workflow agent’s part (docs/decisions/0036)', () => {
  const policyOf = (workflowAgentType: string | undefined, stage: Stage) =>
    decideStagePolicy({
      userMode: 'agent',
      reasoningEnabled: false,
      stage,
      delegation: { depth: 0, chain: [] },
      ...(workflowAgentType ? { workflowAgentType } : {}),
    });

  it.each([
    'discovery-agent',
    'discovery-orchestrator',
    'planning-agent',
    'planning-collector',
    'ticket-orchestrator',
    'ticket-collector',
    'workflow-step',
  ])('offers a %s only read-only tools (and memory) in every acting stage', (agentType) => {
    for (const stage of ['act', 'tool_followup'] as const) {
      expect({ stage, tools: policyOf(agentType, stage).tools }).toEqual({
        stage,
        tools: [...READ, 'memory_recall', 'memory_retain', 'memory_reflect'],
      });
    }
  });

  it('offers a ticket agent, which works in its own copy, the write and execute tools like a person’s run', () => {
    expect(policyOf('ticket-agent', 'act').tools).toEqual(ACTING_TOOLS);
    expect(policyOf(undefined, 'act').tools).toEqual(ACTING_TOOLS);
  });
});

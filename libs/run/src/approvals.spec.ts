import { AgentBrief, ApprovalPolicy, StagecraftError } from '@stagecraft/contracts';
import { approvalSummary, isGated } from './approvals';
import { auditRun } from './audit';
import { AT, ShellKnowledge, call, given, like, reply, requested, runSpec, toolAnswers } from './given.testing';
import { RunInput } from './inputs';
import { DEFAULT_RUN_LIMITS } from './limits';
import { nextStep } from './next-step';
import { replayRun } from './replay';
import { runViewOf } from './run-view';
import { RunState } from './state';

type Requested = Extract<RunInput, { type: 'RunRequested' }>;
const startWith = (extra: Partial<Requested>, reasoning = false): RunInput => ({
  ...(requested('agent', reasoning) as Requested),
  ...extra,
});

const answer = (approvalId: string, decision: 'approve' | 'deny', reason?: string): RunInput => ({
  type: 'ApprovalAnswered',
  approvalId,
  decision,
  ...(reason !== undefined ? { reason } : {}),
  at: AT,
});

const write = (path = 'NOTES.md', id = 'c1') => call('write_file', { path, content: 'notes' }, id);
const command = (id = 'c2') => call('run_command', { command: 'npm', args: ['test'] }, id);
const CALL_1 = 'r1.m1.c1';
const CALL_2 = 'r1.m1.c2';

const stepOf = (g: { state: RunState }) => nextStep(g.state);

describe('approvals: which calls wait', () => {
  it.each<[ApprovalPolicy | undefined, string, boolean]>([
    ['writes', 'write_file', true],
    ['writes', 'apply_patch', true],
    ['writes', 'run_command', true],
    ['writes', 'read_file', false],
    ['writes', 'memory_retain', true],
    ['writes', 'memory_reflect', true],
    ['writes', 'memory_recall', false],
    ['commands', 'memory_retain', false],
    ['commands', 'memory_reflect', false],
    ['commands', 'run_command', true],
    ['commands', 'write_file', false],
    ['never', 'run_command', false],
    [undefined, 'write_file', false],
  ])('approve=%s: %s waits: %s', (approve, tool, waits) => {
    expect(isGated(approve, tool as never)).toBe(waits);
  });

  it('sums a call up in one line: the tool and what it touches', () => {
    expect(approvalSummary('write_file', { path: 'NOTES.md', content: 'x'.repeat(5_000) })).toBe('write_file NOTES.md');
    expect(approvalSummary('run_command', { command: 'npm', args: ['test', '--', 'a'] })).toBe('run_command npm test -- a');
    expect(approvalSummary('apply_patch', { patch: '---' })).toBe('apply_patch');
    expect(approvalSummary('memory_retain', { content: 'We chose\nSQLite', tier: 'architecture', tags: [] })).toBe(
      'memory_retain We chose SQLite',
    );
    expect(approvalSummary('memory_reflect', { query: 'storage' })).toBe('memory_reflect storage');
  });
});

describe('approvals: the run waits', () => {
  const writes = given().after(startWith({ approve: 'writes' }));

  it('records the choice in RunStarted, and leaves it out when none was made', () => {
    given()
      .when(startWith({ approve: 'writes' }))
      .then(like('RunStarted', { approve: 'writes' }), like('MessageAppended'), like('StageEntered'));
    const [started] = given().when(startWith({})).events();
    expect(started.type === 'RunStarted' && 'approve' in started.data).toBe(false);
  });

  it('given approve=writes, when the model asks for a write, then the same commit asks a person and the run waits', () => {
    const { state } = writes.when(reply('Writing the notes.', [write()])).then(
      like('ModelRequested'),
      like('ModelResponded'),
      like('MessageAppended', { role: 'assistant' }),
      like('ToolCallRequested', { callId: CALL_1, tool: 'write_file' }),
      like('ApprovalRequested', {
        approvalId: `${CALL_1}.approval`,
        kind: 'tool_call',
        summary: 'write_file NOTES.md',
        callId: CALL_1,
        tool: 'write_file',
        arguments: { path: 'NOTES.md', content: 'notes' },
      }),
    );
    expect(nextStep(state)).toMatchObject({ kind: 'await_approval', approval: { approvalId: `${CALL_1}.approval`, callId: CALL_1 } });
    expect(runViewOf(state, 8)).toMatchObject({
      status: 'running',
      pendingApproval: { approvalId: `${CALL_1}.approval`, summary: 'write_file NOTES.md' },
    });
  });

  it('given approve=writes, when the model only reads, then nothing waits', () => {
    const { state } = writes
      .when(reply('Reading.', [call('read_file')]))
      .then(like('ModelRequested'), like('ModelResponded'), like('MessageAppended'), like('ToolCallRequested'));
    expect(nextStep(state).kind).toBe('run_tool');
  });

  it('given approve=commands, a write runs at once and a command waits', () => {
    const commands = given().after(startWith({ approve: 'commands' }));
    expect(stepOf(commands.after(reply('Writing.', [write()])))).toMatchObject({ kind: 'run_tool' });
    expect(stepOf(commands.after(reply('Testing.', [command()])))).toMatchObject({
      kind: 'await_approval',
      approval: { tool: 'run_command', summary: 'run_command npm test' },
    });
  });

  it('given approve=writes, when the model retains a memory, then it waits like a write; under commands it does not', () => {
    const retain = call('memory_retain', { content: 'We chose SQLite for the store', tier: 'architecture' }, 'c1');
    expect(stepOf(writes.after(reply('Remembering.', [retain])))).toMatchObject({
      kind: 'await_approval',
      approval: { approvalId: `${CALL_1}.approval`, tool: 'memory_retain', summary: 'memory_retain We chose SQLite for the store' },
    });
    const commands = given().after(startWith({ approve: 'commands' }));
    expect(stepOf(commands.after(reply('Remembering.', [retain])))).toMatchObject({ kind: 'run_tool' });
  });

  it('given no choice, a write runs as before', () => {
    expect(stepOf(given().after(startWith({}), reply('Writing.', [write()])))).toMatchObject({ kind: 'run_tool' });
  });
});

describe('approvals: the answer', () => {
  const waiting = given().after(startWith({ approve: 'writes' }), reply('Writing the notes.', [write()]));
  const approvalId = `${CALL_1}.approval`;

  it('given a waiting write, when a person approves, then ApprovalGiven alone, and the call runs', () => {
    const { state } = waiting.when(answer(approvalId, 'approve')).then(like('ApprovalGiven', { approvalId }));
    expect(nextStep(state)).toMatchObject({ kind: 'run_tool', request: { callId: CALL_1, tool: 'write_file' } });
    expect(runViewOf(state, 9)?.pendingApproval).toBeNull();
  });

  it('given an approved write, when it ran, then the run goes on as any tool round', () => {
    waiting
      .after(answer(approvalId, 'approve'))
      .when(toolAnswers('wrote NOTES.md'))
      .then(
        like('ToolCallCompleted', { callId: CALL_1 }),
        like('MessageAppended', { role: 'tool' }),
        like('StageEntered', { stage: 'tool_followup' }),
      );
  });

  it('given a waiting write, when a person denies it, then the model is told as the call’s result, and the run goes on', () => {
    const { state } = waiting.when(answer(approvalId, 'deny', 'not in this folder')).then(
      like('ApprovalDenied', { approvalId, reason: 'not in this folder' }),
      like('ToolCallRejected', {
        callId: CALL_1,
        tool: 'write_file',
        code: 'FORBIDDEN_TOOL',
        reason: 'denied by the user: not in this folder',
      }),
      like('MessageAppended', { role: 'tool', kind: 'tool_result', toolCallId: 'c1' }),
      like('StageEntered', { stage: 'tool_followup' }),
    );
    const told = state.status === 'running' ? state.history.at(-1)?.message.content : '';
    expect(told).toContain('the user denied this write_file call: not in this folder');
    expect(told).toContain('do not retry this call');
    expect(nextStep(state).kind).toBe('call_model');
  });

  it('given a denial without a reason, the model is told that none was given', () => {
    const { state } = waiting
      .when(answer(approvalId, 'deny'))
      .then(like('ApprovalDenied', { reason: '' }), like('ToolCallRejected'), like('MessageAppended'), like('StageEntered'));
    expect(state.status === 'running' && state.history.at(-1)?.message.content).toContain('(no reason given)');
  });

  it('an answer for an approval that is not pending is a conflict and decides nothing', () => {
    waiting.when(answer('r1.m1.other.approval', 'approve')).thenThrows('CONFLICT');
    waiting.after(answer(approvalId, 'approve')).when(answer(approvalId, 'approve')).thenThrows('CONFLICT');
    given()
      .after(startWith({ approve: 'writes' }))
      .when(answer(approvalId, 'deny'))
      .thenThrows('CONFLICT');
  });

  it('never changes the user’s switches: mode, reasoning and approve stay as started', () => {
    const after = waiting.after(answer(approvalId, 'deny', 'no'));
    const state = after.state;
    expect(state.status === 'running' && [state.start.userMode, state.start.reasoningEnabled, state.start.approve]).toEqual([
      'agent',
      false,
      'writes',
    ]);
    expect(after.events.filter((e) => e.type === 'RunStarted')).toHaveLength(1);
  });
});

describe('approvals: a decision asks about one call at a time, in order', () => {
  const two = given().after(startWith({ approve: 'writes' }), reply('Two steps.', [write('a.md', 'c1'), command('c2')]));

  it('asks about the first; once it ran, the same commit asks about the second', () => {
    expect(two.events.filter((e) => e.type === 'ApprovalRequested')).toHaveLength(1);
    expect(stepOf(two)).toMatchObject({ kind: 'await_approval', approval: { callId: CALL_1 } });
    const ran = two.after(answer(`${CALL_1}.approval`, 'approve'));
    ran
      .when(toolAnswers('wrote a.md'))
      .then(
        like('ToolCallCompleted', { callId: CALL_1 }),
        like('MessageAppended'),
        like('ApprovalRequested', { callId: CALL_2, tool: 'run_command' }),
      );
  });

  it('after a denial of the first, asks about the second in the same commit', () => {
    two
      .when(answer(`${CALL_1}.approval`, 'deny'))
      .then(like('ApprovalDenied'), like('ToolCallRejected'), like('MessageAppended'), like('ApprovalRequested', { callId: CALL_2 }));
  });

  it('a whole run with approvals audits clean and replays to the same events', () => {
    const log = two.after(
      answer(`${CALL_1}.approval`, 'approve'),
      toolAnswers('wrote a.md'),
      answer(`${CALL_2}.approval`, 'deny', 'not now'),
      reply('Done: a.md written, tests not run.'),
    ).events;
    expect(log.some((e) => e.type === 'StageEntered' && e.data.stage === 'delivery_check')).toBe(true);
    expect(auditRun(log)).toEqual([]);
    expect(replayRun(log, DEFAULT_RUN_LIMITS)).toMatchObject({ identical: true, events: log.length });
  });

  it('the audit names a gated call that ran without approval', () => {
    const log = given().after(startWith({ approve: 'writes' })).events;
    const unapproved = given()
      .after(startWith({}), reply('Writing.', [write()]), toolAnswers('wrote'))
      .events.slice(1);
    const findings = auditRun([...log.slice(0, 1), ...unapproved]);
    expect(findings).toMatchObject([{ type: 'ToolCallCompleted', invariant: 'approval-before-gated-call' }]);
  });
});

describe('an agent of a workflow: every prompt carries its brief', () => {
  const brief: AgentBrief = {
    workflowId: 'w1',
    agentId: 'a-1',
    agentType: 'discovery-agent',
    role: 'agent',
    phase: 'discovery',
    contextId: 'w1/discovery-agent/001/2026-01-01T00:00:00Z',
    attempt: 2,
    upstream: [{ kind: 'goal', workflowRunId: 'w1', goal: 'Map the project.' }],
    previousAttempt: {
      previousContextId: 'w1/discovery-agent/001/2026-01-01T00:00:00Z',
      attemptNumber: 1,
      previousAttemptAt: '2026-01-01T00:00:00Z',
      serializedOutput: '',
      priorContexts: [],
    },
  };

  it('records the brief, and assembles the model’s prompt as the agent, with its upstream and previous attempt', () => {
    const agent = given().after(startWith({ agent: brief }));
    expect(agent.events[0]).toMatchObject({ type: 'RunStarted', data: { agent: { agentId: 'a-1' } } });
    const step = stepOf(agent);
    expect(step.kind === 'call_model' && step.plan.assemble).toMatchObject({
      agentType: 'discovery-agent',
      upstream: brief.upstream,
      previousAttempt: brief.previousAttempt,
    });
  });

  it('enters each stage under the context id its dispatch gave it (seed 001), not a scheme of the run’s own', () => {
    const agent = given().after(startWith({ agent: brief }));
    const stages = agent.events.flatMap((e) => (e.type === 'StageEntered' ? [e.data.contextId] : []));
    expect(stages.length).toBeGreaterThan(0);
    expect(stages.every((id) => id === brief.contextId)).toBe(true);
  });

  it('assembles a recovery prompt with the brief too', () => {
    const need = runSpec(given().after(startWith({ agent: brief }, true)))
      .when(reply(''))
      .thenNeeds();
    expect(need).toMatchObject({ kind: 'prompt', request: { agentType: 'discovery-agent', upstream: brief.upstream } });
  });

  it('leaves the brief out of every prompt of a run that is no agent', () => {
    const step = stepOf(given().after(startWith({})));
    expect(step.kind === 'call_model' && Object.keys(step.plan.assemble).sort()).toEqual([
      'agentType',
      'instructions',
      'layout',
      'policy',
      'variables',
    ]);
    expect(step.kind === 'call_model' && step.plan.assemble.agentType).toBe('main');
  });

  it('speaks as the delegated specialist while one is active', () => {
    const delegated = given().after(
      startWith({ agent: brief }),
      reply('Handing over.\n<delegate-reasoning agent="reviewer">Review the diff.</delegate-reasoning>'),
    );
    const step = stepOf(delegated);
    expect(step.kind === 'call_model' && step.plan.assemble.agentType).toBe('reviewer');
  });
});

it('a StagecraftError is what a conflicting answer throws', () => {
  const started = given().after(startWith({ approve: 'writes' }));
  runSpec(started, new ShellKnowledge().view(true))
    .when(answer('x', 'approve'))
    .thenThrows((error) => expect(error).toBeInstanceOf(StagecraftError));
});

import { RunInput } from './inputs';
import { AT, MACRO, When, call, given, like, micro, recordedRun, refusedWith, reply, requested, reviewed, runSpec } from './given.testing';
import { nextStep } from './next-step';
import { replayRun } from './replay';
import { NEVER_MADE, completedCall } from './cancellation';
import { DEFAULT_RUN_LIMITS } from './limits';
import { runViewOf } from './run-view';
import { RunState } from './state';

const AGENT = {
  workflowId: 'wf1',
  agentId: 'discovery-agent.1',
  agentType: 'discovery-agent',
  role: 'agent' as const,
  phase: 'discovery',
  contextId: 'wf1/discovery-agent/001/2026-01-01T00:00:00.000Z',
  attempt: 1,
  upstream: [],
};

const cancelled = (reason = 'taking too long'): RunInput => ({ type: 'RunCancelled', by: 'cli', reason, at: AT });

const acting = given().after(requested(), reply(`${MACRO}\nI will run the tests.`));
const inTool = acting.after(reply(`${micro()}\nRunning.`, [call('run_command', { command: 'sleep', args: ['30'] })]));
const review = acting.after(reply(`${micro({ delivery: 'DONE' })}\nDone.`), reply(micro({ delivery: 'DONE' })));
const CALL_ID = 'r1.m2.call_run_command';

/** An input as the shell built it before the cancellation, when the run still waited for it. */
const builtBefore = (when: When, state: RunState): RunInput => (typeof when === 'function' ? when(state) : when);

const interrupted: RunInput = {
  type: 'ToolAnswered',
  callId: CALL_ID,
  result: {
    callId: CALL_ID,
    tool: 'run_command',
    ok: false,
    output: 'tool_error: INTERRUPTED',
    truncated: false,
    durationMs: 3,
    replayed: false,
    interrupted: true,
  },
  at: AT,
};

describe('decide: cancellation', () => {
  it('cancels a running run with who and why, in the stage it was in; nothing is decided after', () => {
    const { state } = inTool.when(cancelled()).then(like('RunCancelled', { by: 'cli', reason: 'taking too long', stage: 'act' }));
    expect(state).toMatchObject({ status: 'cancelled', cancellation: { by: 'cli', reason: 'taking too long' } });
    expect(nextStep(state)).toEqual({ kind: 'finished' });
    expect(runViewOf(state, 1)).toMatchObject({ status: 'cancelled', answer: null });
  });

  it('keeps a reason within bounds (a workflow quotes its own)', () => {
    const { events } = inTool.when(cancelled('w'.repeat(600))).then(like('RunCancelled'));
    const { reason } = events[0].data as { reason: string };
    expect(reason).toHaveLength(500);
    expect(reason.endsWith('…')).toBe(true);
  });

  it('records the interrupted call that was in flight, once, and decides nothing on it', () => {
    const stopped = inTool.after(cancelled());
    const { state } = stopped.when(interrupted).then(like('ToolCallCompleted', { callId: CALL_ID, ok: false, interrupted: true }));
    expect(state.status).toBe('cancelled');
    stopped.after(interrupted).when(interrupted).thenNothing();
  });

  it('closes at once the calls that cannot be running: those after the first, and one that waits for a person', () => {
    const two = acting.after(reply(`${micro()}\nRunning.`, [call('run_command', { command: 'sleep' }), call('read_file')]));
    two
      .when(cancelled())
      .then(like('RunCancelled'), like('ToolCallRejected', { callId: 'r1.m2.call_read_file', code: 'CONFLICT', reason: NEVER_MADE }));
    const asks = { ...(requested('agent', false) as Extract<RunInput, { type: 'RunRequested' }>), approve: 'commands' as const };
    const waiting = given().after(asks, reply('Running.', [call('run_command', { command: 'sleep' })]));
    expect(nextStep(waiting.state).kind).toBe('await_approval');
    const { state } = waiting
      .when(cancelled())
      .then(like('RunCancelled'), like('ToolCallRejected', { callId: 'r1.m1.call_run_command', code: 'CONFLICT' }));
    expect(state).toMatchObject({ status: 'cancelled', pendingApproval: null, current: { step: { kind: 'ask' } } });
  });

  it('closes the calls its stopped driver never made, and replays them the same', () => {
    const stopped = inTool.after(cancelled());
    stopped
      .when({ type: 'RunStopped', fault: { code: 'CONFLICT', message: 'the run was cancelled' }, at: AT })
      .then(like('ToolCallRejected', { callId: CALL_ID, code: 'CONFLICT', reason: NEVER_MADE }));
    stopped
      .after(interrupted)
      .when({ type: 'RunStopped', fault: { code: 'CONFLICT', message: 'x' }, at: AT })
      .thenNothing();
    const log = stopped.after({ type: 'RunStopped', fault: { code: 'CONFLICT', message: 'the run was cancelled' }, at: AT }).events;
    expect(replayRun(log, DEFAULT_RUN_LIMITS)).toMatchObject({ identical: true });
  });

  it('records a tool service that could not answer as an interrupted call, and a refusal as a refusal', () => {
    const stopped = inTool.after(cancelled());
    stopped
      .when({ type: 'ToolCallFailed', callId: CALL_ID, fault: { code: 'UNAVAILABLE', message: 'no tool service' }, at: AT })
      .then(like('ToolCallCompleted', { callId: CALL_ID, ok: false, interrupted: true }));
    stopped
      .when({ type: 'ToolCallFailed', callId: CALL_ID, fault: { code: 'FORBIDDEN_TOOL', message: 'no' }, at: AT })
      .then(like('ToolCallRejected', { callId: CALL_ID, code: 'FORBIDDEN_TOOL' }));
  });

  it('records the request and answer of a model call in flight, without reading them', () => {
    const answer = builtBefore(reply(`${micro()}\nRunning.`, [call('run_command')]), acting.state);
    acting
      .after(cancelled())
      .when(answer)
      .then(like('ModelRequested', { requestId: 'r1.m2' }), like('ModelResponded'));
  });

  it('leaves an ended run as it ended, and refuses a run that does not exist', () => {
    const completed = review.after(reviewed());
    expect(completed.state.status).toBe('completed');
    runSpec(completed).when(cancelled()).then([]);
    runSpec(given()).when(cancelled()).thenThrows(refusedWith('NOT_FOUND'));
    runSpec(inTool.after(cancelled())).when(cancelled('again')).then([]);
  });

  it('writes no QA report for a review answered after the cancellation', () => {
    runSpec(review.after(cancelled())).when(reviewed()).then([]);
  });

  it('refuses an approval answer on a cancelled run', () => {
    runSpec(inTool.after(cancelled()))
      .when({ type: 'ApprovalAnswered', approvalId: 'a1', decision: 'approve', at: AT })
      .thenThrows(refusedWith('CONFLICT'));
  });

  it('replays a cancelled run and its late answers to the same events', () => {
    const log = inTool.after(cancelled(), interrupted).events;
    expect(log.map((e) => e.type).slice(-2)).toEqual(['RunCancelled', 'ToolCallCompleted']);
    expect(replayRun(log, DEFAULT_RUN_LIMITS)).toMatchObject({ identical: true });
    const model = acting.after(cancelled(), builtBefore(reply('late'), acting.state)).events;
    expect(model.map((e) => e.type).slice(-3)).toEqual(['RunCancelled', 'ModelRequested', 'ModelResponded']);
    expect(replayRun(model, DEFAULT_RUN_LIMITS)).toMatchObject({ identical: true });
    expect(replayRun(recordedRun(), DEFAULT_RUN_LIMITS)).toMatchObject({ identical: true });
  });

  describe('taken up again (runs resume)', () => {
    const continued: RunInput = { type: 'RunContinued', by: 'cli', at: AT };

    it('goes on where it was cancelled: the cut-off call is answered as interrupted, never run again', () => {
      const { state, events } = inTool
        .after(cancelled(), interrupted)
        .when(continued)
        .then(
          like('RunContinued', { by: 'cli' }),
          like('MessageAppended', { role: 'tool', kind: 'tool_result', toolCallId: 'call_run_command' }),
          like('StageEntered', { stage: 'tool_followup', iteration: 1 }),
        );
      expect((events[1].data as { content: string }).content).toContain('INTERRUPTED');
      expect(state.status).toBe('running');
      expect(nextStep(state)).toMatchObject({ kind: 'call_model' });
    });

    it('asks the model again when it was cancelled while the model answered', () => {
      const { state } = acting.after(cancelled()).when(continued).then(like('RunContinued'));
      expect(nextStep(state)).toMatchObject({ kind: 'call_model' });
    });

    it('replays a continued run to the same events', () => {
      const log = inTool.after(cancelled(), interrupted, continued).events;
      expect(replayRun(log, DEFAULT_RUN_LIMITS)).toMatchObject({ identical: true });
    });

    it('leaves a running run as it is, and refuses an ended run and a workflow agent', () => {
      runSpec(inTool).when(continued).then([]);
      runSpec(review.after(reviewed())).when(continued).thenThrows(refusedWith('CONFLICT'));
      runSpec(given()).when(continued).thenThrows(refusedWith('NOT_FOUND'));
      const agentRun = given().after({ ...(requested() as Extract<RunInput, { type: 'RunRequested' }>), agent: AGENT });
      runSpec(agentRun.after(reply(`${MACRO}\nI will look.`), cancelled()))
        .when(continued)
        .thenThrows(refusedWith('CONFLICT'));
    });
  });
});

describe('completedCall', () => {
  const result = { callId: 'c1', tool: 'write_file' as const, ok: true, output: 'wrote', truncated: false, durationMs: 1, replayed: true };
  const change = { path: 'a.txt', kind: 'created' as const, added: 1, removed: 0, diff: '--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+x\n' };

  it("keeps a write's changes, and adds no field where a call changed nothing, so older logs replay the same", () => {
    expect(completedCall('c1', { ...result, changes: [change] })).toEqual({ ...result, replayed: undefined, changes: [change] });
    expect(Object.keys(completedCall('c1', { ...result, changes: [] }))).toEqual([
      'callId',
      'tool',
      'ok',
      'output',
      'truncated',
      'durationMs',
    ]);
  });
});

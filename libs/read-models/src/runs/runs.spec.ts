import {
  AT,
  Log,
  at,
  fold,
  foldThroughCheckpoint,
  modelRequested,
  modelResponded,
  outcome,
  runStarted,
  stageEntered,
  usage,
} from '../log.testing';
import { isStuck, runOf } from './list-runs';
import { QA_MODEL, UNKNOWN_MODEL, runsModel } from './runs';

const CONTEXT = 'r1/main/001/2026-11-01T10:00:00Z';
const report = (verdict: 'pass' | 'concerns') => ({ verdict, summary: 'looked', findings: [] });
const cachedOf = (tokens: ReturnType<typeof usage>, cachedPromptTokens: number) => ({ ...tokens, cachedPromptTokens });

describe('the runs view', () => {
  it('given a started run, then it is running with its switches, at no stage yet', () => {
    const log = new Log();
    log.run('r1')('RunStarted', { ...runStarted('r1'), userMode: 'chat', reasoningEnabled: false });
    expect(runOf(fold(runsModel, log.events), 'r1')).toEqual({
      runId: 'r1',
      conversationId: 'c1',
      userMode: 'chat',
      reasoningEnabled: false,
      status: 'running',
      stage: null,
      startedAt: AT,
      updatedAt: AT,
      endedAt: null,
      modelCalls: 0,
      tokens: {},
      deliveryState: null,
      qaVerdict: null,
      failure: null,
    });
  });

  it('given a completed run, then it has its stage, times, model calls and tokens by model (the model named by its request), delivery and QA verdict', () => {
    const log = new Log();
    const r1 = log.run('r1');
    r1('RunStarted', runStarted('r1'));
    r1('StageEntered', stageEntered('act', CONTEXT), at(1));
    r1('ModelRequested', modelRequested('r1.m1', 'gpt-a'), at(2));
    r1('ModelResponded', modelResponded('r1.m1', usage(100, 20)), at(3));
    r1('ModelRequested', modelRequested('r1.m2', 'gpt-b'), at(4));
    r1('ModelResponded', modelResponded('r1.m2', usage(50, 5)), at(5));
    r1('ModelRequested', modelRequested('r1.m3', 'gpt-a'), at(6));
    r1('ModelResponded', modelResponded('r1.m3', usage(10, 1)), at(7));
    r1('DeliveryChecked', { state: 'DONE', iteration: 0 }, at(8));
    r1('StageEntered', stageEntered('qa_review', CONTEXT), at(9));
    r1(
      'QAReportIssued',
      {
        report: report('concerns'),
        modelCalls: [
          { requestId: 'qa.1', latencyMs: 3, usage: usage(7, 3), finishReason: 'stop' },
          { requestId: 'qa.2', latencyMs: 3, finishReason: 'stop' },
        ],
      },
      at(10),
    );
    r1('RunCompleted', { deliveryState: 'DONE', answer: 'fixed' }, at(11));

    expect(runOf(fold(runsModel, log.events), 'r1')).toMatchObject({
      status: 'completed',
      stage: 'qa_review',
      startedAt: AT,
      updatedAt: at(11),
      endedAt: at(11),
      modelCalls: 5,
      tokens: {
        'gpt-a': usage(110, 21),
        'gpt-b': usage(50, 5),
        [QA_MODEL]: usage(7, 3),
      },
      deliveryState: 'DONE',
      qaVerdict: 'concerns',
      failure: null,
    });
  });

  it('given calls that report cached prompt tokens and a reviewer that names its model, then cached tokens are summed and the reviewer’s tokens filed under its model', () => {
    const log = new Log();
    const r1 = log.run('r1');
    r1('RunStarted', runStarted('r1'));
    r1('ModelRequested', modelRequested('r1.m1', 'gpt-a'), at(1));
    r1('ModelResponded', modelResponded('r1.m1', cachedOf(usage(100, 20), 60)), at(2));
    r1('ModelRequested', modelRequested('r1.m2', 'gpt-a'), at(3));
    r1('ModelResponded', modelResponded('r1.m2', usage(40, 2)), at(4));
    r1(
      'QAReportIssued',
      {
        report: report('pass'),
        modelCalls: [
          { requestId: 'qa.1', model: 'gpt-a', latencyMs: 3, usage: cachedOf(usage(30, 3), 10), finishReason: 'stop' },
          { requestId: 'qa.2', model: 'gpt-r', latencyMs: 3, usage: usage(7, 1), finishReason: 'stop' },
        ],
      },
      at(5),
    );
    expect(runOf(fold(runsModel, log.events), 'r1')?.tokens).toEqual({
      'gpt-a': cachedOf(usage(170, 25), 70),
      'gpt-r': usage(7, 1),
    });
  });

  it('given a DONE delivery check, then neither a later NEEDS_WORK check nor a NEEDS_WORK completion turns it back', () => {
    const log = new Log();
    const r1 = log.run('r1');
    r1('RunStarted', runStarted('r1'));
    r1('DeliveryChecked', { state: 'NEEDS_WORK', iteration: 0 });
    expect(runOf(fold(runsModel, log.events), 'r1')?.deliveryState).toBe('NEEDS_WORK');
    r1('DeliveryChecked', { state: 'DONE', iteration: 1 });
    r1('DeliveryChecked', { state: 'NEEDS_WORK', iteration: 2 });
    r1('RunCompleted', { deliveryState: 'NEEDS_WORK', answer: 'x' });
    expect(runOf(fold(runsModel, log.events), 'r1')?.deliveryState).toBe('DONE');
  });

  it('given a run completed short of DONE with a cause, then the view shows the bound and the cause; a run without one shows neither', () => {
    const log = new Log();
    const r1 = log.run('r1');
    r1('RunStarted', runStarted('r1'));
    r1('RunCompleted', { deliveryState: 'NEEDS_WORK', answer: '', limit: 'maxDeliveryChecks', cause: 'no answer was given' });
    expect(runOf(fold(runsModel, log.events), 'r1')).toMatchObject({ limit: 'maxDeliveryChecks', cause: 'no answer was given' });
    const r2 = log.run('r2');
    r2('RunStarted', runStarted('r2'));
    r2('RunCompleted', { deliveryState: 'NEEDS_WORK', answer: 'x' });
    expect(runOf(fold(runsModel, log.events), 'r2')).not.toHaveProperty('cause');
  });

  it('given a failed run, then it has the failure, and a second terminal event changes neither status nor failure', () => {
    const log = new Log();
    const r1 = log.run('r1');
    r1('RunStarted', runStarted('r1'));
    r1('RunFailed', { code: 'UNAVAILABLE', reason: 'model down', stage: 'act' }, at(4));
    r1('RunCompleted', { deliveryState: 'DONE', answer: 'late' }, at(9));
    expect(runOf(fold(runsModel, log.events), 'r1')).toMatchObject({
      status: 'failed',
      endedAt: at(4),
      updatedAt: at(9),
      failure: { code: 'UNAVAILABLE', reason: 'model down' },
    });
  });

  it("given a compaction that called a model, then that call and its tokens are the run's", () => {
    const log = new Log();
    const r1 = log.run('r1');
    r1('RunStarted', runStarted('r1'));
    r1('HistoryCompacted', {
      compactionId: 'k1',
      method: 'model',
      trigger: { messageCount: 40, tokenEstimate: 9000, maxMessages: 30, maxTokens: 8000 },
      replaced: 30,
      covers: [{ stream: 'run-r1', from: 0, to: 30 }],
      summary: {
        goals: { items: [], sources: [] },
        decisions: { items: [], sources: [] },
        currentPlan: { items: [], sources: [] },
        openIssues: { items: [], sources: [] },
        toolOutputs: { items: [], sources: [] },
      },
      tokensBefore: 9000,
      tokensAfter: 2000,
      modelCall: {
        requestId: 'k1.m',
        model: 'gpt-small',
        promptHash: 'h',
        messageCount: 30,
        tokenEstimate: 9000,
        latencyMs: 40,
        usage: usage(9000, 300),
        finishReason: 'stop',
      },
    });
    expect(runOf(fold(runsModel, log.events), 'r1')).toMatchObject({ modelCalls: 1, tokens: { 'gpt-small': usage(9000, 300) } });
  });

  it('given compactions, then the run counts them; a run that never compacted has no count', () => {
    const log = new Log();
    const r1 = log.run('r1');
    const r2 = log.run('r2');
    r1('RunStarted', runStarted('r1'));
    r2('RunStarted', runStarted('r2'));
    const empty = { items: [], sources: [] };
    const compacted = (compactionId: string) => ({
      compactionId,
      method: 'extractive' as const,
      trigger: { messageCount: 12, tokenEstimate: 21_000, maxMessages: 80, maxTokens: 20_000 },
      replaced: 6,
      covers: [{ stream: 'run-r1', from: 0, to: 6 }],
      summary: { goals: empty, decisions: empty, currentPlan: empty, openIssues: empty, toolOutputs: empty },
      tokensBefore: 21_000,
      tokensAfter: 6_000,
    });
    r1('HistoryCompacted', compacted('r1.compaction1'));
    r1('HistoryCompacted', compacted('r1.compaction2'));
    const view = fold(runsModel, log.events);
    expect(runOf(view, 'r1')).toMatchObject({ compactions: 2, modelCalls: 0 });
    expect(runOf(view, 'r2')).not.toHaveProperty('compactions');
  });

  it('given a response to a request it never saw, then its tokens are counted under an unknown model', () => {
    const log = new Log();
    const r1 = log.run('r1');
    r1('RunStarted', runStarted('r1'));
    r1('ModelResponded', modelResponded('r1.m9', usage(3, 4)));
    r1('ModelRequested', modelRequested('r1.m1', 'gpt-a'));
    r1('ModelResponded', modelResponded('r1.m1'));
    expect(runOf(fold(runsModel, log.events), 'r1')).toMatchObject({ modelCalls: 2, tokens: { [UNKNOWN_MODEL]: usage(3, 4) } });
  });

  it('given events of a run it never saw start, or run event types on other streams, then it keeps nothing for them', () => {
    const log = new Log();
    log.run('r1')('DeliveryChecked', { state: 'DONE', iteration: 0 });
    log.append('toolcall-c1', 'RunStarted', runStarted('r2'));
    expect(fold(runsModel, log.events)).toEqual({ runs: {}, started: [], conversations: {} });
  });

  it('given a run’s commits, then updatedAt is the time of its latest commit, without reading its messages or reasoning', () => {
    const log = new Log();
    const r1 = log.run('r1');
    r1('RunStarted', runStarted('r1'));
    // One model step: the answer, its reasoning and the tool call it asks for, committed together.
    r1('ModelRequested', modelRequested('r1.m1', 'gpt-a'), at(1));
    r1('ModelResponded', modelResponded('r1.m1'), at(1));
    r1('ReasoningRecorded', { requestId: 'r1.m1', format: 'micro', text: '…', outcome: outcome('go') }, at(1));
    r1('ToolCallRequested', { callId: 'call-1', tool: 'read_file', arguments: { path: 'a' }, stage: 'act' }, at(1));
    expect(runOf(fold(runsModel, log.events), 'r1')?.updatedAt).toBe(at(1));
    // A tool result while another call is still open: the result and its message.
    r1('ToolCallCompleted', { callId: 'call-1', tool: 'read_file', ok: true, output: 'x', truncated: false, durationMs: 1 }, at(3));
    r1(
      'MessageAppended',
      { messageId: 'm', role: 'tool', content: 'x', instructions: [], intermediate: false, kind: 'tool_result' },
      at(3),
    );
    expect(runOf(fold(runsModel, log.events), 'r1')?.updatedAt).toBe(at(3));
    expect(runsModel.handles).not.toContain('MessageAppended');
    expect(runsModel.handles).not.toContain('ReasoningRecorded');
  });

  it('never changes an entry it handed out, replaces only the entry of the run an event belongs to, and resumes from a checkpoint to the same view', () => {
    const log = new Log();
    const [a, b] = [log.run('ra'), log.run('rb')];
    a('RunStarted', runStarted('ra'));
    b('RunStarted', runStarted('rb'));
    a('ModelRequested', modelRequested('ra.m1', 'gpt-a'));
    const view = fold(runsModel, log.events);
    const [entryA, entryB] = [view.runs['ra'], view.runs['rb']];
    const before = structuredClone(entryA);
    a('ModelResponded', modelResponded('ra.m1', usage(1, 1)), at(5));
    a('RunCompleted', { deliveryState: 'DONE', answer: 'ok' }, at(6));
    const same = fold(runsModel, log.events.slice(3), view);
    expect(same).toBe(view);
    expect(entryA).toEqual(before);
    expect(view.runs['rb']).toBe(entryB);
    expect(view.runs['ra']).toMatchObject({ status: 'completed', open: {} });
    for (let cut = 1; cut < log.events.length; cut += 1) {
      expect(JSON.stringify(foldThroughCheckpoint(runsModel, log.events, cut))).toBe(JSON.stringify(fold(runsModel, log.events)));
    }
  });

  it('keeps runs whose ids are names of Object properties as runs like any other', () => {
    const log = new Log();
    const run = log.run('constructor');
    run('ModelResponded', modelResponded('x', usage(1, 1)));
    expect(fold(runsModel, log.events).started).toEqual([]);
    run('RunStarted', runStarted('constructor'));
    run('ModelRequested', modelRequested('toString', 'gpt-a'));
    run('ModelResponded', modelResponded('toString', usage(1, 1)));
    const view = fold(runsModel, log.events);
    expect(view.started).toEqual(['constructor']);
    expect(runOf(view, 'constructor')).toMatchObject({ runId: 'constructor', tokens: { 'gpt-a': usage(1, 1) } });
    expect(runOf(view, 'valueOf')).toBeNull();
  });

  it('given a tool call that waits for a person, then the entry shows what waits, the run is not stuck, and an answer clears it', () => {
    const log = new Log();
    const r1 = log.run('r1');
    r1('RunStarted', { ...runStarted('r1'), approve: 'writes' });
    r1('StageEntered', stageEntered('act', CONTEXT), at(1));
    const asked = {
      approvalId: 'r1.m1.c1.approval',
      kind: 'tool_call' as const,
      summary: 'write_file NOTES.md',
      callId: 'r1.m1.c1',
      tool: 'write_file' as const,
    };
    r1('ApprovalRequested', asked, at(2));
    const waiting = runOf(fold(runsModel, log.events), 'r1');
    expect(waiting).toMatchObject({ status: 'running', updatedAt: at(2), pendingApproval: { ...asked, requestedAt: at(2) } });
    expect(isStuck(waiting!, { now: new Date(Date.parse(at(3600))), idleMs: 1_000 })).toBe(false);
    r1('ApprovalGiven', { approvalId: asked.approvalId }, at(3));
    const answered = runOf(fold(runsModel, log.events), 'r1');
    expect(answered).toMatchObject({ status: 'running', updatedAt: at(3) });
    expect(answered).not.toHaveProperty('pendingApproval');
    expect(isStuck(answered!, { now: new Date(Date.parse(at(3600))), idleMs: 1_000 })).toBe(true);
  });

  it('given a run that ends while it waits, then nothing waits any more', () => {
    const log = new Log();
    const r1 = log.run('r1');
    r1('RunStarted', runStarted('r1'));
    r1('ApprovalRequested', { approvalId: 'a1', kind: 'tool_call', summary: 'run_command npm test', callId: 'c1' }, at(1));
    r1('RunFailed', { code: 'INTERNAL', reason: 'stopped' }, at(2));
    expect(runOf(fold(runsModel, log.events), 'r1')).not.toHaveProperty('pendingApproval');
  });
});

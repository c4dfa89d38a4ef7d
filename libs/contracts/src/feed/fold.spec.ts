import { foldFeedRun } from './fold';
import { FeedData, FeedEvent, FeedEventType } from './v1';

const metadata = { runId: 'run-1', occurredAt: '2026-11-01T00:00:00.000Z' };
const e = <T extends FeedEventType>(type: T, data: FeedData<T>): FeedEvent => ({ version: 1, type, data, metadata }) as FeedEvent;

const started = e('RunStarted', {
  runId: 'run-1',
  conversationId: 'conv-1',
  userMode: 'agent',
  reasoningEnabled: false,
  userInput: 'Write notes',
  projectRoot: '/p',
});
const stage = e('StageEntered', { stage: 'act', iteration: 0, contextId: 'run-1/act/001/2026-11-01T00:00:00Z' });
const call = (callId: string) => e('ToolCallRequested', { callId, tool: 'run_command', arguments: {}, stage: 'act' });
const done = (callId: string) =>
  e('ToolCallCompleted', { callId, tool: 'run_command', ok: false, output: '', truncated: false, durationMs: 1, interrupted: true });
const report = { verdict: 'pass' as const, summary: 'Fine.', findings: [] };

describe('a client’s fold of the public run feed', () => {
  it('knows nothing of a run whose RunStarted it did not see (a follower that joined late)', () => {
    expect(foldFeedRun([stage, e('RunCompleted', { deliveryState: 'DONE', answer: 'x' })])).toEqual({ status: 'new' });
  });

  it('ends completed with the answer, the last review, and DONE once any check said DONE', () => {
    const run = foldFeedRun([
      started,
      e('DeliveryChecked', { state: 'DONE', iteration: 0 }),
      e('DeliveryChecked', { state: 'NEEDS_WORK', iteration: 1 }),
      e('QAReportIssued', { report }),
      e('RunCompleted', { deliveryState: 'NEEDS_WORK', answer: 'Notes written.' }),
      e('RunFailed', { code: 'INTERNAL', reason: 'after the end: ignored' }),
    ]);
    expect(run).toEqual({ status: 'completed', answer: 'Notes written.', deliveryState: 'DONE', qaReport: report, openCalls: [] });
  });

  it('ends failed with the failure', () => {
    expect(foldFeedRun([started, e('RunFailed', { code: 'UNAVAILABLE', reason: 'model down' })])).toMatchObject({
      status: 'failed',
      failure: { code: 'UNAVAILABLE', reason: 'model down' },
    });
  });

  it('is cancelled with calls in flight until their late results arrive; nothing else moves it', () => {
    const cancelled = [started, stage, call('c1'), call('c2'), e('RunCancelled', { by: 'user', reason: 'Ctrl-C' })];
    expect(foldFeedRun(cancelled)).toMatchObject({ status: 'cancelled', cancellation: { by: 'user', reason: 'Ctrl-C' }, openCalls: ['c1', 'c2'] });
    expect(foldFeedRun([...cancelled, done('c1'), e('QAReportIssued', { report })])).toMatchObject({ openCalls: ['c2'], qaReport: null });
    expect(foldFeedRun([...cancelled, done('c1'), done('c2')])).toMatchObject({ status: 'cancelled', openCalls: [] });
  });

  it('goes on running after RunContinued, and a new stage or request leaves no call open', () => {
    const run = [started, stage, call('c1'), e('RunCancelled', { by: 'cli', reason: '' }), e('RunContinued', { by: 'cli' })];
    expect(foldFeedRun(run)).toEqual({ status: 'running', deliveryState: null, qaReport: null, openCalls: ['c1'] });
    expect(foldFeedRun([...run, stage])).toMatchObject({ status: 'running', openCalls: [] });
    const correction = e('MessageAppended', {
      messageId: 'm-9',
      role: 'user',
      content: 'again',
      instructions: [],
      intermediate: false,
      kind: 'correction',
    });
    expect(foldFeedRun([...run, correction])).toMatchObject({ openCalls: [] });
  });
});

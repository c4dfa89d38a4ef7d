import type { FeedEvent } from '@stagecraft/contracts';
import { createTwoFilesPatch } from 'diff';
import { beforeOf, diffContent } from './diff-content';
import { evolvePlan, planItems } from './plan';
import { newTurn, updatesOf } from './updates';

const meta = { runId: 'r1', occurredAt: '2026-11-26T00:00:00.000Z' };
const event = (type: string, data: Record<string, unknown>) => ({ version: 1, type, data, metadata: meta }) as unknown as FeedEvent;
const outcome = (plan_delta: string, next_action: string) => ({
  plan_delta,
  next_action,
  known_risks: 'none',
  delivery_state: 'NEEDS_WORK' as const,
  notes: [],
});

describe('ACP updates from the public feed', () => {
  it('ends a turn with the stop reason the run ended on', () => {
    const turn = newTurn('/p', 'never');
    const done = (data: Record<string, unknown>) =>
      updatesOf(turn, event('RunCompleted', { deliveryState: 'DONE', answer: 'ok', ...data })).turn.stop;
    expect(done({})).toBe('end_turn');
    expect(done({ limit: 'maxToolIterations', deliveryState: 'NEEDS_WORK' })).toBe('max_turn_requests');
    const refused = updatesOf(
      turn,
      event('ModelResponded', { requestId: 'q', content: '', toolCalls: [], latencyMs: 1, finishReason: 'content_filter' }),
    ).turn;
    expect(updatesOf(refused, event('RunCompleted', { deliveryState: 'NEEDS_WORK', answer: '' })).turn.stop).toBe('refusal');
    expect(updatesOf(turn, event('RunCancelled', { by: 'user', reason: 'x' })).turn.stop).toBe('cancelled');
  });

  it('sends the answer only when the stream did not already say it', () => {
    const answer = event('RunCompleted', { deliveryState: 'DONE', answer: 'All done.' });
    expect(updatesOf({ ...newTurn('/p', 'never'), streamed: 'Working… All done.' }, answer).updates).toEqual([]);
    expect(updatesOf(newTurn('/p', 'never'), answer).updates).toEqual([
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'All done.' } },
    ]);
  });

  it('a gated call is pending until the person allows it; a denial fails it with the reason', () => {
    let turn = newTurn('/p', 'writes');
    const requested = updatesOf(
      turn,
      event('ToolCallRequested', { callId: 'c1', tool: 'write_file', arguments: { path: 'a.md', content: 'x' }, stage: 'act' }),
    );
    expect(requested.updates[0]).toMatchObject({
      sessionUpdate: 'tool_call',
      status: 'pending',
      kind: 'edit',
      locations: [{ path: '/p/a.md' }],
    });
    turn = updatesOf(turn, event('ApprovalRequested', { approvalId: 'c1.approval', kind: 'tool_call', summary: 's', callId: 'c1' })).turn;
    expect(updatesOf(turn, event('ApprovalGiven', { approvalId: 'c1.approval' })).updates).toEqual([
      { sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'in_progress' },
    ]);
    expect(updatesOf(turn, event('ApprovalDenied', { approvalId: 'c1.approval', reason: 'no' })).updates[0]).toMatchObject({
      status: 'failed',
    });
    const read = updatesOf(turn, event('ToolCallRequested', { callId: 'c2', tool: 'read_file', arguments: { path: 'b' }, stage: 'act' }));
    expect(read.updates[0]).toMatchObject({ status: 'in_progress', kind: 'read' });
  });
});

describe('the plan', () => {
  it('lists the warmup plan, then moves through each next action', () => {
    expect(planItems('1. Read README.md 2. Write NOTES.md')).toEqual(['Read README.md', 'Write NOTES.md']);
    const first = evolvePlan([], outcome('1. Read README.md 2. Write NOTES.md', 'Read README.md'));
    expect(first.map((e) => [e.content, e.status])).toEqual([
      ['Read README.md', 'in_progress'],
      ['Write NOTES.md', 'pending'],
    ]);
    const second = evolvePlan(first, outcome('none', 'Write NOTES.md'));
    expect(second.map((e) => e.status)).toEqual(['completed', 'in_progress']);
  });
});

describe('diff content', () => {
  const before = 'one\ntwo\nthree\n';
  const after = 'one\n2\nthree\nfour\n';
  const diff = createTwoFilesPatch('a/f.txt', 'b/f.txt', before, after, '', '', { context: 3 });
  const change = { path: 'f.txt', kind: 'modified' as const, added: 2, removed: 1, diff };

  it('rebuilds the old text by applying the recorded diff in reverse', async () => {
    expect(beforeOf(after, diff)).toBe(before);
    expect(await diffContent('/p', change, async () => after)).toEqual({ type: 'diff', path: '/p/f.txt', oldText: before, newText: after });
  });

  it('falls back to the unified diff as text when the file changed since, or the diff was cut', async () => {
    expect(await diffContent('/p', change, async () => 'something else\n')).toEqual({
      type: 'content',
      content: { type: 'text', text: diff },
    });
    expect((await diffContent('/p', { ...change, diffTruncated: true }, async () => after)).type).toBe('content');
    expect(await diffContent('/p', { ...change, kind: 'created' }, async () => after)).toEqual({
      type: 'diff',
      path: '/p/f.txt',
      oldText: null,
      newText: after,
    });
  });
});

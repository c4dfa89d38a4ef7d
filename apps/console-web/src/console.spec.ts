import { diffLines, duration, share } from './format';
import { hrefs, routeOf } from './routes';
import { stageSpans, toolCalls, withEvent } from './run-view';
import { sseParser } from './sse';
import type { TimelineEvent } from './types';

describe('the SSE reader', () => {
  it('reads messages split anywhere across chunks, skips heartbeats, and keeps the last id', () => {
    const text =
      ': heartbeat\n\nid: 7\nevent: RunStarted\ndata: {"a":1}\n\nid: 8\r\nevent: StageEntered\r\ndata: line1\r\ndata: line2\r\n\r\n';
    for (const size of [1, 2, 3, 5, 64]) {
      const parser = sseParser();
      const out = [];
      for (let i = 0; i < text.length; i += size) out.push(...parser.push(text.slice(i, i + size)));
      expect(out).toEqual([
        { id: '7', event: 'RunStarted', data: '{"a":1}' },
        { id: '8', event: 'StageEntered', data: 'line1\nline2' },
      ]);
    }
  });

  it('drops a message the stream ended in the middle of', () => {
    const parser = sseParser();
    expect(parser.push('id: 9\ndata: {"half"')).toEqual([]);
    expect(parser.end()).toEqual([]);
  });
});

describe('routes', () => {
  it('maps paths to pages and back, and refuses what is not a page', () => {
    expect(routeOf('/')).toEqual({ page: 'runs' });
    expect(routeOf(hrefs.run('run-1/../x'))).toEqual({ page: 'run', runId: 'run-1/../x' });
    expect(routeOf(hrefs.workflow('wf 1'))).toEqual({ page: 'workflow', workflowRunId: 'wf 1' });
    expect(routeOf(hrefs.conversation('c1'))).toEqual({ page: 'conversation', conversationId: 'c1' });
    expect(routeOf('/runs/a/b')).toEqual({ page: 'not-found', path: '/runs/a/b' });
    expect(routeOf('/runs/%E0%A4%A')).toEqual({ page: 'not-found', path: '/runs/%E0%A4%A' });
    expect(routeOf('/javascript:alert(1)')).toEqual({ page: 'not-found', path: '/javascript:alert(1)' });
  });
});

describe('formatting', () => {
  it('colours each line of a unified diff by its kind', () => {
    const kinds = diffLines('--- a/x.ts\n+++ b/x.ts\n@@ -1,2 +1,2 @@\n keep\n-old\n+new\n\\ No newline at end of file\n').map(
      (l) => l.kind,
    );
    expect(kinds).toEqual(['file', 'file', 'hunk', 'context', 'del', 'add', 'note']);
  });

  it('writes durations and shares for people', () => {
    expect([duration(250), duration(12_300), duration(125_000), duration(undefined)]).toEqual(['250 ms', '12.3 s', '2 min 5 s', '–']);
    expect([share(0.456), share(2), share(Number.NaN)]).toEqual(['46%', '100%', '–']);
  });
});

const event = (position: number, type: string, data: Record<string, unknown>, at = `2026-11-26T10:00:0${position}.000Z`) =>
  ({ position: String(position), type, at, data }) as TimelineEvent;

describe('the run view', () => {
  const events = [
    event(1, 'RunStarted', {}),
    event(2, 'StageEntered', { stage: 'ANALYZE', iteration: 0 }),
    event(3, 'StageEntered', { stage: 'IMPLEMENT', iteration: 0 }),
    event(4, 'ToolCallRequested', { callId: 'c1', tool: 'write_file', arguments: { path: 'a.txt' }, stage: 'IMPLEMENT' }),
    event(5, 'ToolCallCompleted', {
      callId: 'c1',
      tool: 'write_file',
      ok: true,
      output: 'wrote',
      truncated: false,
      durationMs: 3,
      changes: [{ path: 'a.txt', kind: 'created', added: 1, removed: 0, diff: '+x' }],
    }),
    event(6, 'ToolCallRejected', { callId: 'c2', tool: 'run_command', stage: 'IMPLEMENT', code: 'FORBIDDEN_TOOL', reason: 'not here' }),
    event(7, 'RunCompleted', { deliveryState: 'DONE', answer: 'ok' }),
  ];

  it('lays the stages out as spans that end at the next stage or the end of the run', () => {
    expect(stageSpans(events)).toEqual([
      { stage: 'ANALYZE', iteration: 0, at: events[1].at, until: events[2].at },
      { stage: 'IMPLEMENT', iteration: 0, at: events[2].at, until: events[6].at },
    ]);
  });

  it('joins each tool call with its outcome and its file changes', () => {
    expect(toolCalls(events).map((c) => [c.callId, c.state, c.changes.length, c.reason])).toEqual([
      ['c1', 'completed', 1, undefined],
      ['c2', 'rejected', 0, 'FORBIDDEN_TOOL: not here'],
    ]);
  });

  it('adds a live event once, even where the stream repeats the end of the first read', () => {
    const first = events.slice(0, 3);
    expect(withEvent(first, events[2])).toBe(first);
    expect(withEvent(first, events[3]).map((e) => e.position)).toEqual(['1', '2', '3', '4']);
  });
});

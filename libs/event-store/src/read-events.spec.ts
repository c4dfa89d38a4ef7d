import { EventMetadata, runEvents, streams, toolCallEvents } from '@stagecraft/contracts';
import { createMemoryEventStore } from './memory/memory-event-store';
import { readEvents } from './read-events';

const metadata: EventMetadata = { runId: 'r1', correlationId: 'k1', occurredAt: '2026-11-21T00:00:00.000Z' };
const event = (id: string, type: string, data: unknown) => ({ id, type, data, metadata });
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

describe('readEvents', () => {
  it("returns a run stream's events typed, with where the store put them, and skips types outside the family", async () => {
    const store = createMemoryEventStore();
    await store.appendToStream(streams.run('r1'), [
      event(uuid(1), 'RunCompleted', { deliveryState: 'DONE', answer: 'done' }),
      event(uuid(2), 'MemoryRetained', { memoryId: 'm1', scope: 's', tier: 'project', content: 'x', tags: [] }),
      event(uuid(3), 'RunFailed', { code: 'INTERNAL', reason: 'late' }),
    ]);
    const events = await readEvents(store, streams.run('r1'), runEvents);
    expect(events.map((e) => [e.type, e.id, e.revision])).toEqual([
      ['RunCompleted', uuid(1), 0n],
      ['RunFailed', uuid(3), 2n],
    ]);
    const [completed] = events;
    expect(completed.type === 'RunCompleted' && completed.data.answer).toBe('done');
    expect(completed.metadata).toEqual({ ...metadata, chain: { prev: expect.any(String), hash: expect.any(String) } });
    expect(typeof completed.position).toBe('bigint');
    expect(typeof completed.recordedAt).toBe('string');
    expect(await readEvents(store, streams.run('r1'), runEvents, { direction: 'backwards', maxCount: 1 })).toMatchObject([
      { type: 'RunFailed' },
    ]);
    expect(await readEvents(store, streams.run('none'), runEvents)).toEqual([]);
  });

  it('reads a tool-call stream written under the old names as the tool-call types, data unchanged', async () => {
    const store = createMemoryEventStore();
    const started = {
      callId: 'c1',
      tool: 'read_file',
      arguments: { path: 'a' },
      stage: 'act',
      binding: 'b'.repeat(64),
      deadline: '2026-11-21T00:01:00.000Z',
    };
    const finished = { callId: 'c1', tool: 'read_file', ok: true, output: 'x', truncated: false, durationMs: 1 };
    const refused = { callId: 'c2', tool: 'write_file', stage: 'qa_review', code: 'FORBIDDEN_TOOL', reason: 'no' };
    await store.appendToStream(streams.toolCall('c1'), [
      event(uuid(1), 'ToolCallRequested', started),
      event(uuid(2), 'ToolCallCompleted', finished),
    ]);
    await store.appendToStream(streams.toolCall('c2'), [event(uuid(3), 'ToolCallRejected', refused)]);
    await store.appendToStream(streams.toolCall('c3'), [event(uuid(4), 'ToolExecutionFinished', { ...finished, callId: 'c3' })]);
    expect((await readEvents(store, streams.toolCall('c1'), toolCallEvents)).map(({ type, data }) => ({ type, data }))).toEqual([
      { type: 'ToolExecutionStarted', data: started },
      { type: 'ToolExecutionFinished', data: finished },
    ]);
    expect((await readEvents(store, streams.toolCall('c2'), toolCallEvents)).map(({ type, data }) => ({ type, data }))).toEqual([
      { type: 'ToolExecutionRefused', data: refused },
    ]);
    expect((await readEvents(store, streams.toolCall('c3'), toolCallEvents)).map((e) => e.type)).toEqual(['ToolExecutionFinished']);
    // The run stream's own types keep their names there.
    await store.appendToStream(streams.run('r1'), [event(uuid(5), 'ToolCallCompleted', finished)]);
    expect((await readEvents(store, streams.run('r1'), runEvents)).map((e) => e.type)).toEqual(['ToolCallCompleted']);
  });
});

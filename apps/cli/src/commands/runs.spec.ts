import { EventMetadata, streams } from '@stagecraft/contracts';
import { createMemoryEventStore } from '@stagecraft/event-store';
import { runTimeline } from './runs';

const at = (seconds: number): EventMetadata => ({
  runId: 'r1',
  correlationId: 'k1',
  occurredAt: new Date(Date.UTC(2026, 10, 21, 0, 0, seconds)).toISOString(),
});
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

describe('runTimeline', () => {
  it("lists a run's events with their offsets from the first, or as JSON, and null for a run the log does not hold", async () => {
    const store = createMemoryEventStore();
    await store.appendToStream(streams.run('r1'), [
      {
        id: uuid(1),
        type: 'ToolCallRequested',
        data: { callId: 'r1.c1', tool: 'read_file', arguments: { path: 'a.ts' }, stage: 'act' },
        metadata: at(0),
      },
      {
        id: uuid(2),
        type: 'ToolCallCompleted',
        data: { callId: 'r1.c1', tool: 'read_file', ok: true, output: 'x', truncated: false, durationMs: 4 },
        metadata: at(1),
      },
      { id: uuid(3), type: 'RunCompleted', data: { deliveryState: 'DONE', answer: 'done' }, metadata: at(2) },
    ]);
    expect(await runTimeline(store, 'r1', false)).toEqual([
      '   +0.000s  ToolCallRequested  ⚙ read_file {"path":"a.ts"}',
      '   +1.000s  ToolCallCompleted  ✓ read_file (4 ms)',
      '   +2.000s  RunCompleted       ✔ completed (DONE)',
    ]);
    const json = await runTimeline(store, 'r1', true);
    expect(json?.map((line) => JSON.parse(line) as unknown)).toEqual([
      expect.objectContaining({ type: 'ToolCallRequested', metadata: at(0) }),
      expect.objectContaining({ type: 'ToolCallCompleted' }),
      { type: 'RunCompleted', data: { deliveryState: 'DONE', answer: 'done' }, metadata: at(2) },
    ]);
    expect(await runTimeline(store, 'missing', false)).toBeNull();
  });
});

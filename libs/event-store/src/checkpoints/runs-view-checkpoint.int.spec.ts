import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { streams } from '@stagecraft/contracts';
import type { EventData, EventType } from '@stagecraft/contracts';
import { runsModel, type RunsView } from '@stagecraft/read-models';
import { createMemoryEventStore } from '../memory/memory-event-store';
import { createSqliteEventStore } from '../sqlite/sqlite-event-store';
import type { EventStore, RecordedEvent } from '../port';

const RUNS = 10_000;
const at = (run: number, step: number) => new Date(Date.UTC(2026, 10, 1) + run * 60_000 + step * 1_000).toISOString();

/** The events of 10,000 short runs as the log would hand them over, made directly: no store, no services. */
function runLog(): RecordedEvent[] {
  const log: RecordedEvent[] = [];
  for (let n = 0; n < RUNS; n += 1) {
    const runId = `run-${n}`;
    const conversationId = `conv-${n % 300}`;
    let revision = 0n;
    const add = <T extends EventType>(type: T, data: EventData<T>) =>
      log.push({
        id: `${runId}.${revision}`,
        streamId: streams.run(runId),
        revision: revision++,
        position: BigInt(log.length + 1),
        type,
        data,
        metadata: { runId, conversationId, correlationId: runId, occurredAt: at(n, Number(revision)) },
        recordedAt: at(n, Number(revision)),
      });
    add('RunStarted', {
      runId,
      conversationId,
      userMode: 'agent',
      reasoningEnabled: true,
      userInput: `task ${n}`,
      projectRoot: `/p/${n % 7}`,
    });
    for (const [i, model] of ['gpt-a', 'gpt-b', 'gpt-a'].entries()) {
      const requestId = `${runId}.m${i}`;
      add('ModelRequested', {
        requestId,
        stage: 'act',
        model,
        toolNames: [],
        messageCount: 2 + i,
        tokenEstimate: 100,
        promptHash: 'a'.repeat(64),
        messageHashes: [],
        newBodies: {},
      });
      const usage = { promptTokens: 100 + n, completionTokens: 10 + i, totalTokens: 110 + n + i };
      add('ModelResponded', { requestId, content: 'ok', toolCalls: [], usage, latencyMs: 3, finishReason: 'stop' });
    }
    add('DeliveryChecked', { state: n % 3 ? 'DONE' : 'NEEDS_WORK', iteration: 0 });
    if (n % 4 === 3) add('RunFailed', { code: 'UNAVAILABLE', reason: `model down for run ${n}` });
    else add('RunCompleted', { deliveryState: n % 3 ? 'DONE' : 'NEEDS_WORK', answer: `answer ${n}` });
  }
  return log;
}

function foldRuns(log: readonly RecordedEvent[]): RunsView {
  const handles = new Set(runsModel.handles);
  let view = runsModel.initialState();
  for (const event of log) if (handles.has(event.type)) view = runsModel.evolve(view, event);
  return view;
}

describe('the runs view of 10,000 runs, checkpointed', () => {
  let dir: string;
  let log: RecordedEvent[];
  let view: RunsView;
  let text: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'runs-checkpoint-'));
    log = runLog();
    view = foldRuns(log);
    text = JSON.stringify(view);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is far over one KurrentDB event', () => {
    expect(Object.keys(view.runs)).toHaveLength(RUNS);
    expect(Buffer.byteLength(text)).toBeGreaterThan(4 * 1024 * 1024);
  });

  const stores: [string, () => EventStore][] = [
    ['memory (with KurrentDB limits)', () => createMemoryEventStore()],
    ['sqlite', () => createSqliteEventStore({ path: join(dir, 'store.db'), checkpoints: 'inline' })],
  ];

  it.each(stores)('saves and reloads through %s, and the reloaded view folds on as the live one does', async (kind, open) => {
    const store = open();
    try {
      const half = log.length / 2;
      const position = log[half - 1].position;
      const halfView = foldRuns(log.slice(0, half));
      await store.checkpoints.save(runsModel.name, position, halfView);
      const loaded = await store.checkpoints.load<RunsView>(runsModel.name);
      expect(loaded?.position).toBe(position);
      expect(JSON.stringify(loaded?.state)).toBe(JSON.stringify(halfView));
      const handles = new Set(runsModel.handles);
      let resumed = loaded!.state;
      for (const event of log.slice(half)) if (handles.has(event.type)) resumed = runsModel.evolve(resumed, event);
      expect(JSON.stringify(resumed)).toBe(text);

      const saveStarted = performance.now();
      await store.checkpoints.save(runsModel.name, log[log.length - 1].position, view);
      const savedIn = performance.now() - saveStarted;
      const loadStarted = performance.now();
      const reloaded = await store.checkpoints.load<RunsView>(runsModel.name);
      const loadedIn = performance.now() - loadStarted;
      // Not asserted: reported so the cost of checkpointing a large view stays visible.
      process.stdout.write(
        `runs checkpoint, ${kind}: ${text.length} characters, save ${savedIn.toFixed(0)} ms, load ${loadedIn.toFixed(0)} ms\n`,
      );
      expect(reloaded?.position).toBe(log[log.length - 1].position);
      expect(JSON.stringify(reloaded?.state)).toBe(text);
    } finally {
      await store.close();
    }
  });
});

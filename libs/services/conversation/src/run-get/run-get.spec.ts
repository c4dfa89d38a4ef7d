import { StagecraftError, streams } from '@stagecraft/contracts';
import { EventStore, createMemoryEventStore } from '@stagecraft/event-store';
import { runGet } from './run-get.handler';

const AT = '2026-01-01T00:00:00.000Z';

/** A run started in `projectRoot` and finished, as the decider would have stored it. */
async function storeRun(store: EventStore, runId: string, projectRoot: string): Promise<void> {
  const metadata = { runId, correlationId: runId, occurredAt: AT };
  const started = { runId, conversationId: `c-${runId}`, userMode: 'chat', reasoningEnabled: false, userInput: 'hi', projectRoot };
  await store.appendToStream(
    streams.run(runId),
    [
      { id: `${runId}-0`, type: 'RunStarted', data: started, metadata },
      { id: `${runId}-1`, type: 'RunCompleted', data: { deliveryState: 'DONE', answer: 'hello' }, metadata },
    ],
    { expectedRevision: 'no_stream' },
  );
}

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'answered',
    (error: unknown) => (error instanceof StagecraftError ? error.code : String(error)),
  );

describe('conversation.run.get', () => {
  let store: EventStore;
  beforeEach(async () => {
    store = createMemoryEventStore();
    await storeRun(store, 'r1', '/projects/a');
    await storeRun(store, 'r2', '/elsewhere/b');
  });

  it('answers a run as its log tells it', async () => {
    const { run } = await runGet({ runId: 'r1' }, { ports: { store, projectRoots: ['/projects'] } });
    expect(run).toMatchObject({ runId: 'r1', conversationId: 'c-r1', status: 'completed', answer: 'hello', eventCount: 2 });
  });

  it('answers a run this deployment does not serve as one that does not exist', async () => {
    expect(await codeOf(runGet({ runId: 'r2' }, { ports: { store, projectRoots: ['/projects'] } }))).toBe('NOT_FOUND');
    // Without confined roots every project is served.
    expect((await runGet({ runId: 'r2' }, { ports: { store } })).run.runId).toBe('r2');
  });

  it('answers an unknown run with NOT_FOUND', async () => {
    expect(await codeOf(runGet({ runId: 'r3' }, { ports: { store } }))).toBe('NOT_FOUND');
  });
});

import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventOf, StagecraftEvent, streams } from '@stagecraft/contracts';
import { EventStore, RecordedEvent, createMemoryCheckpointStore, createSqliteEventStore, startProcessor } from '@stagecraft/event-store';
import { MessageBus, RunFeedEvent, createInprocBus, subscribeRunEvents } from '@stagecraft/messaging';
import { stableEventId } from '@stagecraft/event-store';
import { rememberTurn } from './conversation-turn';
import { RUN_FOLLOW_UP, runFollowUp } from './run-follow-up';

const prefix = 'stagecraft';
const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('the run follow-up processor', () => {
  let dir: string;
  let store: EventStore;
  let bus: MessageBus;
  let files = 0;

  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'stagecraft-follow-up-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  beforeEach(() => {
    store = createSqliteEventStore({ path: join(dir, `events-${(files += 1)}.db`) });
    bus = createInprocBus();
  });
  afterEach(async () => {
    await bus.close();
    await store.close();
  });

  const metadata = (runId: string, conversationId: string) => ({
    runId,
    conversationId,
    correlationId: `corr-${runId}`,
    occurredAt: '2026-11-01T00:00:00.000Z',
  });
  const runEvent = <T extends StagecraftEvent['type']>(type: T, data: EventOf<T>['data'], runId: string, conversationId: string) => ({
    id: randomUUID(),
    type,
    data,
    metadata: metadata(runId, conversationId),
  });

  /** A run as the driver stores it: started, one message, then `end`. */
  async function storeRun(end: 'RunCompleted' | 'RunFailed', conversationId = `conv-${randomUUID().slice(0, 8)}`) {
    const runId = `run-${randomUUID().slice(0, 8)}`;
    const events = [
      runEvent(
        'RunStarted',
        { runId, conversationId, userMode: 'agent', reasoningEnabled: true, userInput: `question of ${runId}`, projectRoot: '/tmp/p' },
        runId,
        conversationId,
      ),
      runEvent(
        'MessageAppended',
        {
          messageId: `${runId}.input`,
          role: 'user',
          content: `question of ${runId}`,
          instructions: [],
          intermediate: false,
          kind: 'user_input',
        },
        runId,
        conversationId,
      ),
      end === 'RunCompleted'
        ? runEvent('RunCompleted', { deliveryState: 'DONE', answer: `answer of ${runId}` }, runId, conversationId)
        : runEvent('RunFailed', { code: 'UNAVAILABLE', reason: 'model down' }, runId, conversationId),
    ];
    const { position } = await store.appendToStream(streams.run(runId), events, { expectedRevision: 'no_stream' });
    return { runId, conversationId, ids: events.map((e) => e.id), position };
  }

  /** Every message on the run's subject, repeats included. */
  function rawFeed(runId: string): RunFeedEvent[] {
    const seen: RunFeedEvent[] = [];
    bus.subscribe(`${prefix}.run.${runId}.events`, (m) => seen.push(JSON.parse(m.body)));
    return seen;
  }

  const turnOfConversation = async (conversationId: string) =>
    (await store.readStream(streams.conversation(conversationId))).map((e) => ({
      id: e.id,
      ...(e.data as { messageId: string; role: string; content: string; kind: string }),
    }));

  async function follow(checkpoints = store.checkpoints) {
    return startProcessor(store, checkpoints, runFollowUp({ store, bus, prefix }));
  }

  it('stores a completed run’s turn, then publishes each run event with its id and position', async () => {
    const run = await storeRun('RunCompleted');
    const feed = rawFeed(run.runId);
    let turnWhenCompletedArrived: unknown[] = [];
    subscribeRunEvents(bus, prefix, run.runId, (e) => {
      if (e.type === 'RunCompleted')
        turnWhenCompletedArrived = store.readStream(streams.conversation(run.conversationId)) as unknown as unknown[];
    });
    await store.appendToStream('memory-elsewhere', [{ id: randomUUID(), type: 'MemoryRetained', data: {}, metadata: {} }]);
    const running = await follow();
    await running.caughtUp;
    await running.stop();
    await settle();

    expect(await turnOfConversation(run.conversationId)).toEqual([
      {
        id: stableEventId(`${run.runId}/turn/user`),
        messageId: `${run.runId}.user`,
        role: 'user',
        content: `question of ${run.runId}`,
        kind: 'user_input',
        instructions: [],
        intermediate: false,
      },
      {
        id: stableEventId(`${run.runId}/turn/answer`),
        messageId: `${run.runId}.answer`,
        role: 'assistant',
        content: `answer of ${run.runId}`,
        kind: 'assistant',
        instructions: [],
        intermediate: false,
      },
    ]);
    const stored = await store.readStream(streams.run(run.runId));
    expect(feed.map((e) => [e.type, e.id, e.position])).toEqual(stored.map((e) => [e.type, e.id, e.position.toString()]));
    // The subscriber's read ran when RunCompleted arrived: the turn was already there.
    expect(await turnWhenCompletedArrived).toHaveLength(2);
    const [user] = await store.readStream(streams.conversation(run.conversationId));
    expect(user.metadata).toMatchObject({
      runId: run.runId,
      conversationId: run.conversationId,
      causationId: run.ids[2],
      correlationId: `corr-${run.runId}`,
    });
    expect((await store.checkpoints.load(RUN_FOLLOW_UP))?.position).toBeGreaterThanOrEqual(run.position);
  });

  it('leaves no turn for a failed run, and still publishes its events', async () => {
    const run = await storeRun('RunFailed');
    const feed = rawFeed(run.runId);
    const running = await follow();
    await running.waitForPosition(run.position);
    await running.stop();
    await settle();
    expect(await store.readStream(streams.conversation(run.conversationId))).toEqual([]);
    expect(feed.map((e) => e.type)).toEqual(['RunStarted', 'MessageAppended', 'RunFailed']);
  });

  it('stores the turn once when it follows the same events again, and a client sees each event once', async () => {
    const run = await storeRun('RunCompleted');
    const feed = rawFeed(run.runId);
    const client: RunFeedEvent[] = [];
    subscribeRunEvents(bus, prefix, run.runId, (e) => client.push(e));
    for (let restart = 0; restart < 3; restart += 1) {
      // A fresh checkpoint store: the processor starts from zero, as after a crash before any save.
      const running = await follow(createMemoryCheckpointStore());
      await running.waitForPosition(run.position);
      await running.stop();
    }
    await settle();
    expect((await turnOfConversation(run.conversationId)).map((m) => m.messageId)).toEqual([`${run.runId}.user`, `${run.runId}.answer`]);
    expect(feed).toHaveLength(9);
    expect(client.map((e) => e.id)).toEqual(run.ids);
  });

  it('does not repeat a turn an earlier version stored under other ids', async () => {
    const run = await storeRun('RunCompleted');
    const old = (role: 'user' | 'assistant', suffix: string, content: string) => ({
      id: randomUUID(),
      type: 'MessageAppended',
      data: {
        messageId: `${run.runId}.${suffix}`,
        role,
        content,
        instructions: [],
        intermediate: false,
        kind: role === 'user' ? 'user_input' : 'assistant',
      },
      metadata: metadata(run.runId, run.conversationId),
    });
    await store.appendToStream(streams.conversation(run.conversationId), [old('user', 'user', 'q'), old('assistant', 'answer', 'a')]);
    const running = await follow();
    await running.waitForPosition(run.position);
    await running.stop();
    expect(await store.readStream(streams.conversation(run.conversationId))).toHaveLength(2);
  });

  it('stores one turn when followers race on the same completion', async () => {
    const conversationId = `conv-${randomUUID().slice(0, 8)}`;
    const runs = [await storeRun('RunCompleted', conversationId), await storeRun('RunCompleted', conversationId)];
    const completions = await Promise.all(
      runs.map(async (r) => (await store.readStream(streams.run(r.runId))).at(-1) as RecordedEvent & EventOf<'RunCompleted'>),
    );
    const outcomes = await Promise.all([...completions, ...completions].map((c) => rememberTurn(store, c)));
    expect(outcomes.every((o) => o === 'stored' || o === 'present')).toBe(true);
    expect((await turnOfConversation(conversationId)).map((m) => m.messageId).sort()).toEqual(
      runs.flatMap((r) => [`${r.runId}.answer`, `${r.runId}.user`]).sort(),
    );
  });

  it('looks again when another turn lands between its read and its append', async () => {
    const conversationId = `conv-${randomUUID().slice(0, 8)}`;
    const [first, second] = [await storeRun('RunCompleted', conversationId), await storeRun('RunCompleted', conversationId)];
    const [completedFirst, completedSecond] = await Promise.all(
      [first, second].map(async (r) => (await store.readStream(streams.run(r.runId))).at(-1) as RecordedEvent & EventOf<'RunCompleted'>),
    );
    let interleaved = false;
    const racing: EventStore = {
      ...store,
      async readStream(stream, options) {
        const read = await store.readStream(stream, options);
        if (stream === streams.conversation(conversationId) && !interleaved) {
          interleaved = true;
          await rememberTurn(store, completedSecond);
        }
        return read;
      },
    };
    expect(await rememberTurn(racing, completedFirst)).toBe('stored');
    expect(interleaved).toBe(true);
    expect((await turnOfConversation(conversationId)).map((m) => m.messageId)).toEqual([
      `${second.runId}.user`,
      `${second.runId}.answer`,
      `${first.runId}.user`,
      `${first.runId}.answer`,
    ]);
  });

  it('derives uuid-shaped event ids from names, the same each time', () => {
    const id = stableEventId('run-1/turn/user');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(stableEventId('run-1/turn/user')).toBe(id);
    expect(stableEventId('run-1/turn/answer')).not.toBe(id);
  });
});

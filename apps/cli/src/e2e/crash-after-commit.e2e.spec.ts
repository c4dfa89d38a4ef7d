import { randomUUID } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { StagecraftEvent, streams } from '@stagecraft/contracts';
import { EventStore, RecordedEvent, createSqliteEventStore } from '@stagecraft/event-store';
import { RunFeedEvent, subscribeRunEvents } from '@stagecraft/messaging';
import { ScriptedModelServer, startScriptedModelServer } from '@stagecraft/scripted-model';
import { REPO_ROOT, exitOf, freePort, readWriteAgentScript, runCli, spawnApp, waitForHttp } from '@stagecraft/testing';
import { DistributedSystem, startDistributedSystem } from './distributed-system';

/**
 * The conversation process dies (SIGKILL) right after it commits `RunCompleted`, before anything that
 * follows the commit: the conversation turn and the live feed. Those are driven by a checkpointed
 * processor reading the log, so a restarted process stores the turn exactly once and publishes
 * `RunCompleted`, and the next message of the conversation finds the turn.
 */

const CRASH = { STAGECRAFT_CRASH_AFTER_COMMIT: 'RunCompleted' };
type Stored = RecordedEvent & StagecraftEvent;

const read = async (store: EventStore, stream: string) => (await store.readStream(stream)) as unknown as Stored[];
const messages = (events: readonly Stored[]) =>
  events.map((e) => (e.type === 'MessageAppended' ? [e.data.messageId, e.data.role, e.data.content] : [e.type]));

async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe('killed right after committing RunCompleted: distributed', () => {
  const prefix = 'crashcommit';
  let server: ScriptedModelServer;
  let dir: string;
  let system: DistributedSystem;

  beforeAll(async () => {
    server = await startScriptedModelServer({ script: readWriteAgentScript });
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-crash-commit-'));
    system = await startDistributedSystem({
      prefix,
      storePath: join(dir, 'events.db'),
      env: { STAGECRAFT_PROJECT_ROOTS: dir, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'test', STAGECRAFT_MODEL: 'scripted' },
      timeoutMs: 20_000,
    });
  }, 60_000);

  afterAll(async () => {
    await system?.stop();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Replaces the conversation process with one started with `extra` in its environment. */
  async function restartConversation(extra: Record<string, string> = {}): Promise<number> {
    const index = system.services.findIndex((s) => s.name === 'conversation');
    await system.services[index].stop();
    const port = await freePort();
    system.services[index] = spawnApp('conversation', { ...system.envFor('conversation', port), ...extra });
    await waitForHttp(`http://127.0.0.1:${port}/readyz`, 30_000);
    return index;
  }

  it('stores the turn once and publishes RunCompleted after the restart; the next message finds the turn', async () => {
    const index = await restartConversation(CRASH);
    const doomed = system.services[index];
    const project = join(dir, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'README.md'), '# Sample\nA tiny project.\n');
    const runId = `run-${randomUUID().slice(0, 8)}`;
    const conversationId = `conv-${randomUUID().slice(0, 8)}`;
    const message = 'Write notes about this project';

    const live: RunFeedEvent[] = [];
    const raw: RunFeedEvent[] = [];
    system.bus.subscribe(`${prefix}.run.${runId}.events`, (m) => raw.push(JSON.parse(m.body)));
    subscribeRunEvents(system.bus, prefix, runId, (e) => live.push(e));
    await system.bus.flush();
    await system.requester.request('conversation.send', {
      runId,
      conversationId,
      message,
      userMode: 'agent',
      reasoningEnabled: true,
      projectRoot: project,
    });

    expect(await exitOf(doomed.child)).toBeNull();
    expect(doomed.child.signalCode).toBe('SIGKILL');
    const run = await read(system.store, streams.run(runId));
    const completed = run.at(-1);
    expect(completed?.type).toBe('RunCompleted');
    // The process died between the commit and what follows it: no turn yet, and nobody was told.
    expect(await read(system.store, streams.conversation(conversationId))).toEqual([]);
    expect(live.map((e) => e.type)).not.toContain('RunCompleted');

    const port = await freePort();
    system.services[index] = spawnApp('conversation', system.envFor('conversation', port));
    await waitForHttp(`http://127.0.0.1:${port}/readyz`, 30_000);
    await waitFor('RunCompleted on the live feed', () => live.find((e) => e.type === 'RunCompleted'));

    const answer = completed?.type === 'RunCompleted' ? completed.data.answer : '';
    expect(answer).toBe('Wrote NOTES.md from the README.');
    expect(messages(await read(system.store, streams.conversation(conversationId)))).toEqual([
      [`${runId}.user`, 'user', message],
      [`${runId}.answer`, 'assistant', answer],
    ]);
    // The client saw every stored event once, in order, whatever the feed repeated after the restart.
    expect(live.map((e) => e.id)).toEqual(run.map((e) => e.id));
    expect(raw.filter((e) => e.type === 'RunCompleted')).toHaveLength(1);
    expect(raw.find((e) => e.type === 'RunCompleted')).toMatchObject({ id: completed?.id, position: completed?.position.toString() });

    // The next message of the conversation starts from the stored turn.
    const next = `run-${randomUUID().slice(0, 8)}`;
    const ended = new Promise<RunFeedEvent>((resolve) =>
      subscribeRunEvents(system.bus, prefix, next, (e) => (e.type === 'RunCompleted' || e.type === 'RunFailed') && resolve(e)),
    );
    await system.bus.flush();
    await system.requester.request('conversation.send', {
      runId: next,
      conversationId,
      message: 'And now?',
      userMode: 'agent',
      reasoningEnabled: true,
      projectRoot: project,
    });
    expect((await ended).type).toBe('RunCompleted');
    const [started] = await read(system.store, streams.run(next));
    expect(started).toMatchObject({ type: 'RunStarted', data: { historyThrough: 1 } });
    expect(messages(await read(system.store, streams.conversation(conversationId))).map(([id]) => id)).toEqual([
      `${runId}.user`,
      `${runId}.answer`,
      `${next}.user`,
      `${next}.answer`,
    ]);
  }, 120_000);
});

describe('killed right after committing RunCompleted: embedded (stagecraft chat)', () => {
  it('the next `stagecraft chat --conversation` stores the lost turn once, before its own run reads it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stagecraft-crash-chat-'));
    try {
      const project = join(dir, 'p');
      cpSync(join(REPO_ROOT, 'examples', 'sample-project'), project, { recursive: true });
      const path = join(dir, 'events.db');
      const env = { OPENAI_API_KEY: '', OPENAI_BASE_URL: '', NATS_URL: '' };
      const args = (message: string, more: string[] = []) => [
        'chat',
        message,
        '--root',
        project,
        '--mode',
        'chat',
        '--json',
        '--store',
        `sqlite:${path}`,
        ...more,
      ];

      const crashed = await runCli(args('What does convert.js do?'), { ...env, ...CRASH }, 60_000);
      expect({ code: crashed.code, printedResult: crashed.stdout.includes('"deliveryState"') }).toEqual({
        code: null,
        printedResult: false,
      });
      const store = createSqliteEventStore({ path });
      const all = (await store.readAll()) as unknown as Stored[];
      const started = all.find((e) => e.type === 'RunStarted');
      if (started?.type !== 'RunStarted') throw new Error(`no run was stored:\n${crashed.stdout}\n${crashed.stderr}`);
      const { runId, conversationId } = started.data;
      const completed = (await read(store, streams.run(runId))).at(-1);
      expect(completed?.type).toBe('RunCompleted');
      expect(await read(store, streams.conversation(conversationId))).toEqual([]);
      await store.close();

      const second = await runCli(args('And stats.js?', ['--conversation', conversationId]), env, 60_000);
      expect({ code: second.code, stderr: second.stderr }).toEqual({ code: 0, stderr: '' });
      const lines = second.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines[0]).toMatchObject({ type: 'RunStarted', data: { conversationId, historyThrough: 1 } });
      const { runId: nextRunId, answer: nextAnswer } = lines.at(-1);

      const after = createSqliteEventStore({ path });
      const turns = messages(await read(after, streams.conversation(conversationId)));
      await after.close();
      expect(turns).toEqual([
        [`${runId}.user`, 'user', 'What does convert.js do?'],
        [`${runId}.answer`, 'assistant', completed?.type === 'RunCompleted' ? completed.data.answer : ''],
        [`${nextRunId}.user`, 'user', 'And stats.js?'],
        [`${nextRunId}.answer`, 'assistant', nextAnswer],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 150_000);
});

import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kvm } from '@nats-io/kv';
import { EventData, streams } from '@stagecraft/contracts';
import { EventStore, RecordedEvent, createSqliteEventStore } from '@stagecraft/event-store';
import { MessageBus, Requester, connectNatsBus, createRequester, followRunEvents, natsConnectionOf } from '@stagecraft/messaging';
import { RecordedRequest, ScriptedModelServer, ScriptedReply, startScriptedModelServer } from '@stagecraft/scripted-model';
import {
  NatsServerHandle,
  ServiceProcess,
  exitOf,
  freePort,
  readWriteAgentScript,
  spawnApp,
  startNatsServer,
  waitForHttp,
} from '@stagecraft/testing';

/**
 * Three conversation replicas (OS processes) behind one queue group, the other services one process
 * each, one nats-server and one sqlite file. Thirty runs start at once; the replica that leads the run
 * follow-up is killed (SIGKILL) while it drives some of them. Every run must end, none may be driven
 * by two replicas at once, and the survivors must take over the dead replica's runs and processor.
 *
 * What "driven twice" would look like in the log: each commit records its writer (`metadata.writer` on its first event,
 * host:pid:id). A run's writers must form at most two unbroken stretches, the first the killed
 * replica's; no writer may come back after another wrote. And the model is asked for each recorded
 * answer once, plus at most the one call the kill cut off.
 */

const prefix = 'scaleout';
const RUNS = 30;
// Long enough that a loaded machine does not lose a live replica's lease; short enough for a quick takeover.
const LEASE_TTL_MS = 4_000;
const MODEL_DELAY_MS = 150;
const STATELESS = ['policy', 'prompt-assembly', 'tool-execution', 'qa', 'memory'] as const;

type Stored = RecordedEvent & { metadata: { writer?: string; commitStart?: number } };

const writerPid = (writer: string | undefined) => Number(writer?.split(':')[1]);

/** The writer of each commit of a run, in order (one entry per commit). */
function commitWriters(events: readonly Stored[]): (string | undefined)[] {
  const writers: (string | undefined)[] = [];
  let commit: number | undefined;
  for (const e of events) {
    if (e.metadata.commitStart === commit) continue;
    commit = e.metadata.commitStart;
    writers.push(e.metadata.writer);
  }
  return writers;
}

/** Consecutive equal writers folded: [a, a, b, b] → [a, b]. */
const stretches = <T>(xs: readonly T[]): T[] => xs.filter((x, i) => i === 0 || x !== xs[i - 1]);

describe('conversation replicas: leases, takeover, and the retained run feed (distributed)', () => {
  let nats: NatsServerHandle;
  let model: ScriptedModelServer;
  let dir: string;
  let store: EventStore;
  let bus: MessageBus;
  let requester: Requester;
  const services: ServiceProcess[] = [];
  let conversations: ServiceProcess[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-scale-out-'));
    const project = join(dir, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'README.md'), '# Sample\nA tiny project.\n');
    model = await startScriptedModelServer({
      script: (request: RecordedRequest): ScriptedReply => ({
        ...(readWriteAgentScript(request) as ScriptedReply),
        delayMs: MODEL_DELAY_MS,
      }),
    });
    nats = await startNatsServer();
    const storePath = join(dir, 'events.db');
    const envFor = (healthPort: number): Record<string, string> => ({
      NATS_URL: nats.url,
      STAGECRAFT_STORE: `sqlite:${storePath}`,
      STAGECRAFT_SUBJECT_PREFIX: prefix,
      STAGECRAFT_HEALTH_PORT: String(healthPort),
      STAGECRAFT_PROJECT_ROOTS: dir,
      STAGECRAFT_LEASE_TTL_MS: String(LEASE_TTL_MS),
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: 'test',
      STAGECRAFT_MODEL: 'scripted',
      STAGECRAFT_MODEL_MAX_RETRIES: '0',
    });
    const names = [...STATELESS, 'conversation', 'conversation', 'conversation'];
    const ports = await Promise.all(names.map(() => freePort()));
    const started = names.map((name, i) => spawnApp(name, envFor(ports[i])));
    services.push(...started);
    conversations = started.filter((s) => s.name === 'conversation');
    await Promise.all(ports.map((port) => waitForHttp(`http://127.0.0.1:${port}/readyz`, 30_000)));
    bus = await connectNatsBus(nats.url, `${prefix}-test`);
    requester = createRequester(bus, { prefix, newId: randomUUID, timeoutMs: 20_000 });
    store = createSqliteEventStore({ path: storePath });
  }, 90_000);

  afterAll(async () => {
    await bus?.close();
    await store?.close();
    // A process killed by a signal has no exit code, and `stop` would wait for an exit that has happened.
    await Promise.all(services.filter((s) => s.child.signalCode === null).map((s) => s.stop()));
    await nats?.stop();
    await model?.close();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  const readRun = async (runId: string) => (await store.readStream(streams.run(runId))) as Stored[];

  /** The replica whose lease names it, from the lease bucket the replicas share. */
  async function leaseOwner(key: string): Promise<string | undefined> {
    const kv = await new Kvm(natsConnectionOf(bus)!).open(`${prefix}_leases`);
    const entry = await kv.get(key);
    return entry?.operation === 'PUT' ? entry.string() : undefined;
  }

  async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = await probe();
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(100);
    }
  }

  it('30 concurrent runs all end, each driven by one replica at a time, the killed replica’s runs taken over', async () => {
    const project = join(dir, 'project');
    const runIds = Array.from({ length: RUNS }, (_, i) => `scale-${i}-${randomUUID().slice(0, 8)}`);
    await Promise.all(
      runIds.map((runId) =>
        requester.request('conversation.send', {
          runId,
          message: 'Write notes about this project',
          userMode: 'agent',
          reasoningEnabled: true,
          projectRoot: project,
        }),
      ),
    );

    // The queue group shared the sends: every run started once, on more than one replica.
    const starters = await Promise.all(runIds.map(async (runId) => (await readRun(runId)).filter((e) => e.type === 'RunStarted')));
    expect(starters.map((s) => s.length)).toEqual(runIds.map(() => 1));
    expect(new Set(starters.map(([s]) => writerPid(s.metadata.writer))).size).toBeGreaterThan(1);

    // The victim leads the run follow-up and drives runs that have not ended: both must be taken over.
    const leader = await waitFor('a run follow-up leader', () => leaseOwner('processor.conversation-run-follow-up'), 10_000);
    const victim = conversations.find((c) => c.child.pid === writerPid(leader));
    expect(victim).toBeDefined();
    const unfinishedOfVictim = async () => {
      const mine: string[] = [];
      for (const runId of runIds) {
        const events = await readRun(runId);
        const last = events.at(-1)!;
        const ended = last.type === 'RunCompleted' || last.type === 'RunFailed';
        if (!ended && writerPid(commitWriters(events).at(-1)) === victim!.child.pid) mine.push(runId);
      }
      return mine;
    };
    // Mid-way: some answers are in, and the victim still drives runs.
    await waitFor('the first model answers', async () => (model.requests.length >= RUNS ? true : undefined), 30_000);
    victim!.child.kill('SIGKILL');
    await exitOf(victim!.child);
    // Read once it is dead: nothing it drove can end after this.
    const cutOff = await unfinishedOfVictim();
    expect(cutOff.length).toBeGreaterThan(0);

    const ends = await waitFor(
      'every run to end',
      async () => {
        const lasts = await Promise.all(runIds.map(async (runId) => (await readRun(runId)).at(-1)?.type));
        return lasts.every((t) => t === 'RunCompleted' || t === 'RunFailed') ? lasts : undefined;
      },
      120_000,
    );
    expect(ends).toEqual(runIds.map(() => 'RunCompleted'));

    const victimPid = victim!.child.pid;
    let takenOver = 0;
    for (const runId of runIds) {
      const events = await readRun(runId);
      expect(events.filter((e) => e.type === 'RunStarted')).toHaveLength(1);
      const writers = commitWriters(events);
      // Every commit names its writer, and a writer never comes back once another has written.
      expect(writers.every((w) => w !== undefined)).toBe(true);
      const runs = stretches(writers);
      expect(new Set(runs).size).toBe(runs.length);
      // A run changes hands only when its writer died, and only once.
      if (runs.length > 1) {
        takenOver += 1;
        expect(runs).toHaveLength(2);
        expect(writerPid(runs[0])).toBe(victimPid);
        expect(writerPid(runs[1])).not.toBe(victimPid);
      }
      // The model was asked once per recorded answer, plus at most the call the kill cut off.
      const asked = model.requests.filter((r) => r.headers['x-stagecraft-run-id'] === runId).length;
      const answered =
        events.filter((e) => e.type === 'ModelResponded' || e.type === 'ModelCallFailed').length +
        events
          .filter((e) => e.type === 'QAReportIssued')
          .reduce((n, e) => n + ((e.data as EventData<'QAReportIssued'>).modelCalls ?? []).length, 0);
      expect(asked - answered).toBeGreaterThanOrEqual(0);
      expect(asked - answered).toBeLessThanOrEqual(runs.length > 1 ? 1 : 0);
    }
    console.log(`scale-out: ${RUNS} runs on 3 replicas; the killed one drove ${cutOff.length} unfinished, ${takenOver} changed hands`);
    // The survivors finished every run the victim was driving when it died.
    for (const runId of cutOff) expect(writerPid(commitWriters(await readRun(runId)).at(-1))).not.toBe(victimPid);

    // A survivor took the run follow-up over: every run's turn is stored in its conversation, once.
    const turns = await waitFor(
      'every turn',
      async () => {
        const counts = await Promise.all(
          runIds.map(async (runId) => {
            const [started] = await readRun(runId);
            const conversationId = (started.data as EventData<'RunStarted'>).conversationId;
            return (await store.readStream(streams.conversation(conversationId))).filter((e) => e.type === 'MessageAppended').length;
          }),
        );
        return counts.every((n) => n >= 2) ? counts : undefined;
      },
      30_000,
    );
    expect(turns).toEqual(runIds.map(() => 2));
    expect(writerPid(await leaseOwner('processor.conversation-run-follow-up'))).not.toBe(victimPid);
  }, 240_000);

  it('a subscriber that comes after the runs ended reads each from its start on JetStream: every stored event once, in order', async () => {
    const runs = await store.readAll({ types: ['RunStarted'] });
    expect(runs.length).toBeGreaterThanOrEqual(RUNS);
    for (const started of runs) {
      const runId = (started.data as EventData<'RunStarted'>).runId;
      const stored = (await readRun(runId)).map((e) => e.id);
      const fed: string[] = [];
      for await (const event of followRunEvents(bus, prefix, runId)) fed.push(event.id ?? '(no id)');
      expect(fed).toEqual(stored);
    }
  }, 60_000);
});

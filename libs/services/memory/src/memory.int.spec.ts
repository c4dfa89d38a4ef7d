import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { EventOf, StagecraftEvent, streams } from '@stagecraft/contracts';
import type { RequestOf, RequestSubject } from '@stagecraft/contracts';
import type { EventStore } from '@stagecraft/event-store';
import { memoryScopeOf } from '@stagecraft/contracts';
import { Host, startHost } from '@stagecraft/service-shell';
import { memoryServiceWith, runOutcomeMemoryId } from './index';

const config = { prefix: 'stagecraft', requestTimeoutMs: 5000, logLevel: 'silent' as const };

let dir: string;
let host: Host;
let store: EventStore;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'stagecraft-memory-'));
  host = await startHost({
    definitions: [memoryServiceWith({ runOutcomeLimit: 2 })],
    transport: 'inproc',
    store: `sqlite:${join(dir, 'events.db')}`,
    config,
  });
  store = host.ports.store as EventStore;
});
afterAll(async () => {
  await host?.close();
  rmSync(dir, { recursive: true, force: true });
});

const request = <S extends RequestSubject>(subject: S, data: RequestOf<S>) => host.ports.requester.request(subject, data);
const typesOf = async (scope: string) => (await store.readStream(streams.memory(scope))).map((e) => e.type);
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    await sleep(20);
  }
}

/** A run's end as the run stream records it (only what the memories view reads of it). */
const runEnd = (runId: string, deliveryState: 'DONE' | 'NEEDS_WORK') => ({
  id: randomUUID(),
  type: 'RunCompleted',
  data: { deliveryState, answer: 'done' },
  metadata: { runId, occurredAt: '2026-11-01T00:00:00.000Z' },
});

describe('memory.retain and memory.recall', () => {
  const projectRoot = '/projects/recall';
  const scope = memoryScopeOf(projectRoot);

  beforeAll(async () => {
    // Run 7 ended DONE before its memory came: a memory retained inside a run counts once the run is DONE.
    await store.appendToStream(streams.run('run-7'), [runEnd('run-7', 'DONE')], { expectedRevision: 'no_stream' });
    await request('memory.retain', { projectRoot, tier: 'project', content: 'Build with npm run build', memoryId: 'm-build' });
    await request('memory.retain', {
      projectRoot,
      tier: 'project',
      content: 'Tests run with npm test (jest, on Node 24)',
      tags: ['testing'],
      memoryId: 'm-test',
      source: { runId: 'run-7' },
    });
    await request('memory.retain', {
      projectRoot,
      tier: 'architecture',
      content: 'We chose SQLite for the embedded store',
      memoryId: 'm-sqlite',
    });
    await request('memory.retain', {
      projectRoot: '/projects/another',
      tier: 'project',
      content: 'npm test is flaky here',
      memoryId: 'm-elsewhere',
    });
  });

  it('ranks this scope’s memories by BM25, best first, with their source', async () => {
    const { memories } = await request('memory.recall', { projectRoot, query: 'how do I run npm test?', limit: 5 });
    expect(memories.map((m) => m.memoryId)).toEqual(['m-test', 'm-build']);
    expect(memories[0]).toMatchObject({ scope, tier: 'project', source: { runId: 'run-7' } });
    expect(memories[0].score).toBeGreaterThan(memories[1].score);
  });

  it('filters by tier', async () => {
    const { memories } = await request('memory.recall', { projectRoot, query: 'sqlite npm', tier: 'architecture', limit: 5 });
    expect(memories.map((m) => m.memoryId)).toEqual(['m-sqlite']);
  });

  it('retains a memory id once, and finds it right after the retain', async () => {
    const fresh = '/projects/fresh';
    const first = await request('memory.retain', { projectRoot: fresh, tier: 'project', content: 'Lint with eslint', memoryId: 'm-lint' });
    const again = await request('memory.retain', { projectRoot: fresh, tier: 'project', content: 'Lint with eslint', memoryId: 'm-lint' });
    expect([first.retained, again.retained]).toEqual([true, false]);
    expect(await typesOf(memoryScopeOf(fresh))).toEqual(['MemoryRetained']);
    const recalled = await request('memory.recall', { projectRoot: fresh, query: 'eslint', limit: 5 });
    expect(recalled.memories.map((m) => m.memoryId)).toEqual(['m-lint']);
  });

  it('refuses a malformed request at the edge with a structured error, writing nothing', async () => {
    const before = (await store.readAll()).length;
    await expect(request('memory.retain', { projectRoot: 'relative/path', tier: 'project', content: ' ', tags: [] })).rejects.toMatchObject(
      {
        code: 'VALIDATION',
      },
    );
    expect((await store.readAll()).length).toBe(before);
  });
});

describe('memories retained inside a run', () => {
  const projectRoot = '/projects/provisional';
  const retainIn = (runId: string, memoryId: string, content: string) =>
    request('memory.retain', { projectRoot, tier: 'architecture', content, memoryId, source: { runId } });
  const recalled = async (query: string) =>
    (await request('memory.recall', { projectRoot, query, limit: 10 })).memories.map((m) => m.memoryId);
  const endRun = (runId: string, state: 'DONE' | 'NEEDS_WORK') =>
    store.appendToStream(streams.run(runId), [runEnd(runId, state)], { expectedRevision: 'any' });

  it('are kept but never recalled while their run has not ended DONE', async () => {
    await retainIn('run-open', 'p-open', 'Provisional decision: the cache is Redis');
    expect(await typesOf(memoryScopeOf(projectRoot))).toEqual(['MemoryRetained']);
    expect(await recalled('cache redis decision')).toEqual([]);
    // Kept, so a retried call retains once.
    expect(await retainIn('run-open', 'p-open', 'Provisional decision: the cache is Redis')).toEqual({
      memoryId: 'p-open',
      retained: false,
    });
  });

  it('stay provisional when the run ends NEEDS_WORK, and count once a run ends DONE', async () => {
    await retainIn('run-needs-work', 'p-needs-work', 'Unfinished decision: queue on Kafka');
    await retainIn('run-done', 'p-done', 'Settled decision: queue on NATS');
    await endRun('run-needs-work', 'NEEDS_WORK');
    await endRun('run-done', 'DONE');
    const found = await until(
      () => recalled('decision queue'),
      (ids) => ids.length > 0,
    );
    expect(found).toEqual(['p-done']);
  });

  it('count at once when retained directly, outside any run', async () => {
    await request('memory.retain', { projectRoot, tier: 'project', content: 'Direct fact: deploy with helm', memoryId: 'p-direct' });
    expect(await recalled('deploy helm')).toEqual(['p-direct']);
  });
});

describe('memory.reflect', () => {
  const projectRoot = '/projects/reflect';
  const scope = memoryScopeOf(projectRoot);

  beforeAll(async () => {
    await request('memory.retain', { projectRoot, tier: 'project', content: 'Build with npm run build in the root', memoryId: 'r-build' });
    await request('memory.retain', {
      projectRoot,
      tier: 'project',
      content: 'Build with npm run build in the root!',
      memoryId: 'r-build-again',
    });
    await request('memory.retain', { projectRoot, tier: 'project', content: 'Run the build before npm test', memoryId: 'r-test' });
    await request('memory.retain', { projectRoot, tier: 'architecture', content: 'Kubernetes ingress is out of scope', memoryId: 'r-k8s' });
  });

  it('merges near-duplicates, links related memories, as events; reflecting again records nothing new', async () => {
    const reply = await request('memory.reflect', { projectRoot, query: 'npm run build' });
    expect(reply.memoryIds).toEqual(['r-build', 'r-test']);
    expect(reply.reflection).toContain('merged r-build-again into r-build');
    expect(reply.reflection).toContain('linked r-test to r-build');
    const events = await store.readStream(streams.memory(scope));
    expect(events.slice(4).map((e) => [e.type, e.data])).toEqual([
      ['MemoryLinked', expect.objectContaining({ from: 'r-build-again', to: 'r-build', kind: 'duplicate' })],
      ['MemoryLinked', expect.objectContaining({ from: 'r-test', to: 'r-build', kind: 'related' })],
      ['MemoryRetracted', expect.objectContaining({ memoryId: 'r-build-again', reason: expect.stringContaining('merged into r-build') })],
    ]);
    const again = await request('memory.reflect', { projectRoot, query: 'npm run build' });
    expect(again.reflection).toContain('No new connection.');
    expect((await store.readStream(streams.memory(scope))).length).toBe(events.length);
    const recalled = await request('memory.recall', { projectRoot, query: 'npm run build', limit: 5 });
    expect(recalled.memories.map((m) => m.memoryId)).not.toContain('r-build-again');
  });

  it('says so when nothing bears on the query', async () => {
    expect(await request('memory.reflect', { projectRoot: '/projects/empty', query: 'anything' })).toEqual({
      reflection: `No memory in scope ${memoryScopeOf('/projects/empty')} bears on "anything".`,
      memoryIds: [],
    });
  });
});

describe('the run-outcome write policy', () => {
  const projectRoot = join(tmpdir(), 'stagecraft-memory-project');
  const scope = memoryScopeOf(projectRoot);
  const metadata = (runId: string) => ({
    runId,
    conversationId: 'conv-1',
    correlationId: `corr-${runId}`,
    occurredAt: '2026-11-01T00:00:00.000Z',
  });
  const runEvent = <T extends StagecraftEvent['type']>(type: T, data: EventOf<T>['data'], runId: string) => ({
    id: randomUUID(),
    type,
    data,
    metadata: metadata(runId),
  });

  async function storeRun(end: 'DONE' | 'NEEDS_WORK' | 'failed', label: string) {
    const runId = `run-${label}-${randomUUID().slice(0, 8)}`;
    const started = runEvent(
      'RunStarted',
      { runId, conversationId: 'conv-1', userMode: 'agent', reasoningEnabled: true, userInput: `please ${label}`, projectRoot },
      runId,
    );
    const last =
      end === 'failed'
        ? runEvent('RunFailed', { code: 'UNAVAILABLE', reason: 'model down' }, runId)
        : runEvent('RunCompleted', { deliveryState: end, answer: `Did ${label}.\nSecond line.\n\nThird.\nFourth is left out.` }, runId);
    await store.appendToStream(streams.run(runId), [started, last], { expectedRevision: 'no_stream' });
    return runId;
  }

  async function outcomes() {
    return (await request('memory.recall', { projectRoot, query: 'please did', tier: 'run_outcome', limit: 50 })).memories;
  }

  it('retains one concise outcome per DONE run, none for NEEDS_WORK or a failure, and keeps the latest few', async () => {
    await storeRun('NEEDS_WORK', 'alpha');
    await storeRun('failed', 'beta');
    const gamma = await storeRun('DONE', 'gamma');
    const first = await until(outcomes, (m) => m.length === 1);
    expect(first).toEqual([
      expect.objectContaining({
        memoryId: runOutcomeMemoryId(gamma),
        tier: 'run_outcome',
        content: 'Request: please gamma\nAnswer: Did gamma. / Second line. / Third.',
        source: { runId: gamma },
      }),
    ]);

    const delta = await storeRun('DONE', 'delta');
    const epsilon = await storeRun('DONE', 'epsilon');
    const kept = await until(outcomes, (m) => m.some((o) => o.source?.runId === epsilon));
    expect(kept.map((m) => m.source?.runId).sort()).toEqual([delta, epsilon].sort());
    const events = await store.readStream(streams.memory(scope));
    expect(events.map((e) => e.type)).toEqual(['MemoryRetained', 'MemoryRetained', 'MemoryRetained', 'MemoryRetracted']);
    expect(events[3].data).toMatchObject({ memoryId: runOutcomeMemoryId(gamma), reason: expect.stringContaining('latest 2') });
  });
});

describe('project facts and recent outcomes (docs/decisions/0058)', () => {
  const projectRoot = join(tmpdir(), 'stagecraft-memory-facts');
  const scope = memoryScopeOf(projectRoot);
  let calls = 0;
  const at = (runId: string) => ({ runId, correlationId: runId, occurredAt: '2026-11-01T00:00:00.000Z' });
  const event = (runId: string, type: string, data: Record<string, unknown>) => ({ id: randomUUID(), type, data, metadata: at(runId) });
  const command = (runId: string, name: string, args: string[], ok: boolean) => {
    const callId = `call-${++calls}`;
    return [
      event(runId, 'ToolCallRequested', { callId, tool: 'run_command', arguments: { command: name, args }, stage: 'act' }),
      event(runId, 'ToolCallCompleted', {
        callId,
        tool: 'run_command',
        ok,
        output: ok ? 'exit code: 0' : 'exit code: 1',
        truncated: false,
        durationMs: 3,
      }),
    ];
  };
  async function storeRun(runId: string, userInput: string, commands: ReturnType<typeof command>[], deliveryState: 'DONE' | 'NEEDS_WORK') {
    const started = event(runId, 'RunStarted', {
      runId,
      conversationId: `conv-${runId}`,
      userMode: 'agent',
      reasoningEnabled: false,
      userInput,
      projectRoot,
    });
    const end = event(runId, 'RunCompleted', { deliveryState, answer: `Finished: ${userInput}` });
    await store.appendToStream(streams.run(runId), [started, ...commands.flat(), end], { expectedRevision: 'no_stream' });
  }
  const retainedOf = async () =>
    (await store.readStream(streams.memory(scope)))
      .filter((e) => e.type === 'MemoryRetained')
      .map((e) => e.data as { tier: string; content: string });

  it('retains the build and test commands a DONE run ran successfully, once each, and none from a run that did not end DONE', async () => {
    await storeRun(
      'facts-1',
      'Add a NOTES.md that summarises README.md',
      [command('facts-1', 'npm', ['test'], true), command('facts-1', 'npm', ['run', 'build'], false)],
      'DONE',
    );
    await storeRun('facts-2', 'Fix the build', [command('facts-2', 'make', ['check'], true)], 'NEEDS_WORK');
    await storeRun(
      'facts-3',
      'Rename the loader',
      [command('facts-3', 'npm', ['test'], true), command('facts-3', 'npm', ['run', 'build'], true)],
      'DONE',
    );
    const retained = await until(retainedOf, (m) => m.length === 4);
    expect(retained.map((m) => [m.tier, m.content.split('\n')[0]])).toEqual([
      ['run_outcome', 'Request: Add a NOTES.md that summarises README.md'],
      ['project', 'Test command (runs the tests; it ran and passed): npm test'],
      ['run_outcome', 'Request: Rename the loader'],
      ['project', 'Build command (builds the code; it ran and succeeded): npm run build'],
    ]);
  });

  it('recalls the newest outcomes for a question that shares no word with them, and a fact by its words', async () => {
    const lately = await request('memory.recall', { projectRoot, query: 'What changed in this project lately?', limit: 3 });
    expect(lately.memories.slice(0, 2).map((m) => m.source?.runId)).toEqual(['facts-3', 'facts-1']);
    const tests = await request('memory.recall', { projectRoot, query: 'How do I run the tests?', limit: 3 });
    expect(tests.memories[0]).toMatchObject({ tier: 'project', content: expect.stringContaining('npm test') });
  });
});

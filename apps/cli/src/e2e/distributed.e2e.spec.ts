import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HealthReply, REQUEST_SUBJECTS, RequestSubject, SERVICE_NAMES, requestContracts, streams, withPrefix } from '@stagecraft/contracts';
import { EventStore } from '@stagecraft/event-store';
import { memoryScopeOf } from '@stagecraft/contracts';
import { MessageBus, Requester } from '@stagecraft/messaging';
import { NatsServerHandle, ServiceProcess, runCli, spawnApp } from '@stagecraft/testing';
import { DistributedSystem, startDistributedSystem } from './distributed-system';

/**
 * The distributed deployment for real: six OS processes, one nats-server, one sqlite file, and
 * the CLI as a seventh process.
 */
describe('six services as separate processes over NATS', () => {
  const prefix = 'e2e';
  let system: DistributedSystem;
  let nats: NatsServerHandle;
  let dir: string;
  let storePath: string;
  let services: ServiceProcess[] = [];
  let bus: MessageBus;
  let requester: Requester;
  let store: EventStore;
  let served: RequestSubject[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-e2e-'));
    storePath = join(dir, 'events.db');
    system = await startDistributedSystem({ prefix, storePath, timeoutMs: 5000 });
    ({ nats, services, bus, requester, store } = system);
    served = await servedSubjects(bus);
  }, 60_000);

  afterAll(async () => {
    const codes: (number | null)[] = (await system?.stop()) ?? [];
    rmSync(dir, { recursive: true, force: true });
    expect(codes.every((c) => c === 0)).toBe(true);
  });

  /** A subject is served when a request to it gets a reply rather than "no responders". */
  async function servedSubjects(b: MessageBus): Promise<RequestSubject[]> {
    const probes = await Promise.all(
      REQUEST_SUBJECTS.map(async (s) => {
        try {
          await b.request(withPrefix(prefix, s), '"probe"', { timeoutMs: 3000 });
          return s;
        } catch {
          return null;
        }
      }),
    );
    return probes.filter((s): s is RequestSubject => s !== null);
  }

  it('the CLI gets a health reply from every service, each from its own process', async () => {
    const { code, stdout, stderr } = await runCli(['health', '--nats-url', nats.url, '--json'], { STAGECRAFT_SUBJECT_PREFIX: prefix });
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const rows = (JSON.parse(stdout) as { services: { service: string; up: boolean; reply: HealthReply }[] }).services;
    expect(rows.map((r) => [r.service, r.up, r.reply.transport])).toEqual(SERVICE_NAMES.map((s) => [s, true, 'nats']));
    const pids = new Set(rows.map((r) => r.reply.pid));
    expect(pids.size).toBe(6);
    expect(services.map((s) => s.child.pid).sort()).toEqual([...pids].sort());
    expect(
      rows
        .filter((r) => r.reply.store === 'sqlite')
        .map((r) => r.service)
        .sort(),
    ).toEqual(['conversation', 'memory', 'tool-execution']);
  });

  it('prints a table and exits non-zero when a service is down', async () => {
    const { code, stdout } = await runCli(['health', '--nats-url', nats.url, '--timeout', '500'], { STAGECRAFT_SUBJECT_PREFIX: 'nobody' });
    expect(code).toBe(3);
    expect(stdout).toMatch(/^SERVICE\s+STATUS/);
    // Under another prefix nobody answers, and the shipped permissions do not even let the clients' role ask.
    expect(stdout.split('\n').filter((l) => l.includes('DOWN (FORBIDDEN'))).toHaveLength(6);
  });

  it('every service serves its subjects and each owned subject answers across processes', () => {
    for (const service of SERVICE_NAMES) expect(served).toContain(`${service}.health`);
    expect(served).toEqual(expect.arrayContaining(['policy.decide', 'memory.retain', 'memory.recall', 'conversation.run.get']));
  });

  it('policy.decide: a validated request/reply', async () => {
    const { policy } = await requester.request('policy.decide', { userMode: 'agent', reasoningEnabled: true, stage: 'delivery_check' });
    expect(policy).toMatchObject({ userMode: 'agent', reasoningEnabled: true, stage: 'delivery_check', tools: [] });
  });

  it('memory.retain appends one event carrying the request correlation id; recall finds it', async () => {
    // A project inside the roots the deployment serves (the store's folder).
    const projectRoot = join(dir, `project-${randomUUID().slice(0, 8)}`);
    const scope = memoryScopeOf(projectRoot);
    const correlationId = `corr-${randomUUID()}`;
    const reply = await requester.request(
      'memory.retain',
      { projectRoot, tier: 'project', content: 'Run the tests with npm test', tags: ['testing'] },
      { correlationId },
    );
    expect(reply.retained).toBe(true);
    const events = await store.readStream(streams.memory(scope));
    expect(events.map((e) => e.type)).toEqual(['MemoryRetained']);
    expect(events[0].metadata).toMatchObject({ correlationId });
    const { memories } = await requester.request('memory.recall', { projectRoot, query: 'how to run tests' });
    expect(memories.map((m) => m.memoryId)).toEqual([reply.memoryId]);
  });

  it('conversation.run.get reads a run that another process appended to the shared store', async () => {
    const runId = `run-${randomUUID().slice(0, 8)}`;
    const metadata = { runId, conversationId: 'c1', correlationId: 'k1', occurredAt: new Date().toISOString() };
    await store.appendToStream(
      streams.run(runId),
      [
        {
          id: randomUUID(),
          type: 'RunStarted',
          data: { runId, conversationId: 'c1', userMode: 'chat', reasoningEnabled: false, userInput: 'hi', projectRoot: dir },
          metadata,
        },
      ],
      { expectedRevision: 'no_stream' },
    );
    const { run } = await requester.request('conversation.run.get', { runId });
    expect(run).toMatchObject({ runId, userMode: 'chat', status: 'running', eventCount: 1 });
    await expect(requester.request('conversation.run.get', { runId: 'missing-run' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('a malformed request on every served subject gets { code, message, issues } and appends nothing', async () => {
    const before = (await store.readAll()).length;
    const notJson = '{"unexpected": [1, 2]';
    const wrongShape = { bogus: true, userMode: 42 };
    for (const subject of served) {
      expect({ subject, acceptsWrongShape: requestContracts[subject].request.safeParse(wrongShape).success }).toEqual({
        subject,
        acceptsWrongShape: false,
      });
      for (const body of [notJson, JSON.stringify(wrongShape)]) {
        const envelope = JSON.parse((await bus.request(withPrefix(prefix, subject), body, { timeoutMs: 5000 })).body);
        expect({ subject, ok: envelope.ok, code: envelope.error?.code }).toEqual({ subject, ok: false, code: 'VALIDATION' });
        expect(typeof envelope.error.message).toBe('string');
        expect(envelope.error.issues.length).toBeGreaterThan(0);
      }
    }
    expect((await store.readAll()).length).toBe(before);
  });
});

describe('a service with a bad environment variable', () => {
  it('stops at start-up with a message naming the variable', async () => {
    const service = spawnApp('policy', { NATS_URL: 'nats://127.0.0.1:1', STAGECRAFT_HEALTH_PORT: 'eighty' });
    const code = await new Promise<number | null>((resolve) => service.child.once('exit', resolve));
    expect(code).toBe(1);
    expect(service.output()).toContain('STAGECRAFT_HEALTH_PORT');
  });

  it('names NATS_URL when it is missing', async () => {
    const env = { NATS_URL: '' };
    const service = spawnApp('memory', env);
    const code = await new Promise<number | null>((resolve) => service.child.once('exit', resolve));
    expect(code).toBe(1);
    expect(service.output()).toContain('NATS_URL');
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import { ErrorReply, HealthReply, RequestSubject, ServiceName, healthSubject, withPrefix } from '@stagecraft/contracts';
import { EventStore, createSqliteEventStore } from '@stagecraft/event-store';
import { HEADER, MessageBus, connectNatsBus, createRequester } from '@stagecraft/messaging';
import { NatsServerHandle, freePort, startNatsServer, waitForHttp } from '@stagecraft/testing';
import { BoundedProcess, manifestMemoryLimit, spawnBounded } from './memory-bounded-process';

/**
 * Every service, each as its own process in a memory cgroup at its manifest's limit (or, where no
 * cgroup can be made, with its peak RSS checked against that limit), gets the requests that used to
 * amplify (1 MB of empty strings, 10,000 levels, at-the-limit arrays and objects) at one per second.
 * Each must be refused with a structured error, the process must stay under its limit and alive, and
 * answer a normal request afterwards. `STAGECRAFT_BOUNDS_REQUESTS` sets how many each gets (a soak).
 */
const REQUESTS = Number(process.env['STAGECRAFT_BOUNDS_REQUESTS'] ?? 21);
const INTERVAL_MS = 1_000;
const prefix = 'bounds';
const MiB = 1024 * 1024;

const policy = {
  userMode: 'agent',
  reasoningEnabled: true,
  stage: 'act',
  delegation: { depth: 0, chain: [] },
  tools: ['read_file'],
  prompts: ['base/system'],
  reasoning: { rule: 'micro', required: true },
  toolLoop: true,
};

/** Where each service takes an amplifier: a request of one of its subjects, `@` marking the field. */
const targets = (root: string): Record<ServiceName, [RequestSubject, string][]> => ({
  'prompt-assembly': [
    ['workflow.next', '{"workflowId":"code-review","completedSteps":@}'],
    ['prompt.assemble', `{"policy":${JSON.stringify(policy)},"variables":{"user_input":"hi"},"upstream":@}`],
    // A list no schema caps: each bad item is a validation issue, unless the structure limits stop it first.
    [
      'prompt.assemble',
      `{"policy":${JSON.stringify(policy)},"variables":{},"previousAttempt":{"previousContextId":"wf-1/reviewer/001/2026-11-01T00:00:00Z",` +
        `"attemptNumber":1,"previousAttemptAt":"2026-11-01T00:00:00Z","serializedOutput":"","priorContexts":@}}`,
    ],
  ],
  'tool-execution': [
    [
      'tool.execute',
      `{"callId":"c-bounds","runId":"r-bounds","tool":"read_file","arguments":{"path":"README.md","extra":@},"stage":"act","userMode":"agent","reasoningEnabled":false,"projectRoot":${JSON.stringify(root)}}`,
    ],
  ],
  policy: [['policy.decide', '{"userMode":"agent","reasoningEnabled":true,"stage":"act","delegation":{"depth":0,"chain":@}}']],
  memory: [['memory.retain', `{"projectRoot":${JSON.stringify(root)},"tier":"project","content":"x","tags":@}`]],
  qa: [
    [
      'qa.review',
      `{"runId":"r-bounds","conversationId":"c-bounds","userMode":"agent","reasoningEnabled":false,"userInput":"q","answer":@,"projectRoot":${JSON.stringify(root)}}`,
    ],
  ],
  conversation: [
    [
      'conversation.send',
      `{"runId":"r-bounds","message":@,"userMode":"agent","reasoningEnabled":false,"projectRoot":${JSON.stringify(root)}}`,
    ],
  ],
});

const repeat = (item: string, n: number) => new Array(n).fill(item).join(',');
/** The amplifiers, each as JSON text for the marked field; `room` is how many bytes the body may still take. */
const amplifiers: Record<string, (room: number) => string> = {
  // The hardening issue's workflow.next: as many empty strings as the transport carries.
  emptyStrings: (room) => `[${repeat('""', Math.floor(room / 3))}]`,
  itemsAtLimit: () => `[${repeat('""', 10_000)}]`,
  keysAtLimit: () => `{${Array.from({ length: 9_990 }, (_, i) => `"k${i}":""`).join(',')}}`,
  valuesAtLimit: () => `[${repeat(`[${repeat('""', 9)}]`, 1_980)}]`,
  deep10000: () => `${'['.repeat(10_000)}${']'.repeat(10_000)}`,
  deep1000: () => `${'{"a":'.repeat(1_000)}1${'}'.repeat(1_000)}`,
  deepUnderLimit: () => `${'['.repeat(60)}""${']'.repeat(60)}`,
};
const KINDS = Object.keys(amplifiers);

interface Tally {
  sent: number;
  refused: Record<string, number>;
  defects: string[];
}

describe('bounded memory: amplifying requests at 1/s, each service in its manifest limit', () => {
  let nats: NatsServerHandle;
  let dir: string;
  let bus: MessageBus;
  let store: EventStore;
  const services: BoundedProcess[] = [];
  const healthPorts = new Map<string, number>();

  beforeAll(async () => {
    nats = await startNatsServer();
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-bounds-'));
    const storePath = join(dir, 'events.db');
    for (const name of Object.keys(targets(dir)) as ServiceName[]) {
      const port = await freePort();
      healthPorts.set(name, port);
      const env = {
        NATS_URL: nats.url,
        STAGECRAFT_STORE: `sqlite:${storePath}`,
        STAGECRAFT_SUBJECT_PREFIX: prefix,
        STAGECRAFT_HEALTH_PORT: String(port),
        STAGECRAFT_PROJECT_ROOTS: dir,
        // Never reached: every request here is refused before it could call the model.
        OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
        OPENAI_API_KEY: 'test',
        STAGECRAFT_MODEL: 'scripted',
      };
      services.push(spawnBounded(name, env, manifestMemoryLimit(name)));
    }
    await Promise.all([...healthPorts.values()].map((port) => waitForHttp(`http://127.0.0.1:${port}/readyz`, 60_000)));
    bus = await connectNatsBus(nats.url, 'bounds-test');
    store = createSqliteEventStore({ path: storePath });
  }, 120_000);

  afterAll(async () => {
    await bus?.close();
    await store?.close();
    await Promise.all(services.map((s) => s.stop()));
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** One service's share: REQUESTS amplifiers, round robin over its subjects and the kinds, one per second. */
  async function flood(service: BoundedProcess): Promise<Tally> {
    const tally: Tally = { sent: 0, refused: {}, defects: [] };
    const combos = targets(dir)[service.name as ServiceName].flatMap((target) => KINDS.map((kind) => [target, kind] as const));
    for (let i = 0; i < REQUESTS; i++) {
      const [[subject, template], kind] = combos[i % combos.length];
      const headers = { [HEADER.correlationId]: `bounds-${service.name}-${i}` };
      const room = bus.maxPayload - template.length - 200;
      const body = template.replace('@', amplifiers[kind](room));
      const where = `${service.name} ${subject} ${kind} (${body.length.toLocaleString('en-US')} bytes)`;
      try {
        const reply = await bus.request(withPrefix(prefix, subject), body, { headers, timeoutMs: 15_000 });
        const envelope = JSON.parse(reply.body) as { ok: boolean; error?: unknown };
        const error = ErrorReply.safeParse(envelope.error);
        if (envelope.ok || !error.success) tally.defects.push(`${where}: not a structured refusal: ${reply.body.slice(0, 300)}`);
        else tally.refused[error.data.code] = (tally.refused[error.data.code] ?? 0) + 1;
      } catch (error) {
        tally.defects.push(`${where}: no reply: ${(error as Error).message}`);
      }
      tally.sent += 1;
      await sleep(INTERVAL_MS);
    }
    return tally;
  }

  it(
    'refuses every one with a structured error, appends nothing, stays under its limit, and answers a normal request afterwards',
    async () => {
      const before = (await store.readAll()).at(-1)?.position ?? 'start';
      const tallies = await Promise.all(services.map(flood));
      const requester = createRequester(bus, { prefix, newId: randomUUID, timeoutMs: 15_000 });
      const report = [];
      for (const [i, service] of services.entries()) {
        const alive = service.child.exitCode === null && service.child.signalCode === null;
        const health = alive ? ((await requester.request(healthSubject(service.name as ServiceName), {})) as HealthReply) : null;
        const { rss, cgroup } = alive ? service.peaks() : { rss: NaN, cgroup: null };
        const mb = (n: number) => `${Math.round(n / MiB)} MiB`;
        console.log(
          `bounds: ${service.name}: ${tallies[i].sent} amplifiers at 1/s, refused ${JSON.stringify(tallies[i].refused)}; ` +
            `peak RSS ${mb(rss)}${cgroup === null ? '' : `, cgroup peak ${mb(cgroup)}`} of ${mb(service.limitBytes)} (${service.enforcement})`,
        );
        report.push({
          service: service.name,
          alive,
          oomKills: service.oomKills(),
          underLimit: rss < service.limitBytes,
          answers: health?.service === service.name && health.status !== 'down',
          defects: tallies[i].defects.slice(0, 5),
          output: alive ? '' : service.output().slice(-2_000),
        });
      }
      expect(report).toEqual(
        services.map((s) => ({ service: s.name, alive: true, oomKills: 0, underLimit: true, answers: true, defects: [], output: '' })),
      );
      const appended = (await store.readAll({ fromPosition: before })).filter((e) =>
        String((e.metadata as { correlationId?: string }).correlationId ?? '').startsWith('bounds-'),
      );
      expect(appended.map((e) => `${e.streamId} ${e.type}`)).toEqual([]);
    },
    REQUESTS * INTERVAL_MS * 3 + 60_000,
  );
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ErrorReply,
  HealthReply,
  REQUEST_SUBJECTS,
  ReplyEnvelope,
  RequestOf,
  RequestSubject,
  SERVICE_NAMES,
  StagecraftError,
  healthSubject,
  requestContracts,
  toErrorReply,
  withPrefix,
} from '@stagecraft/contracts';
import { EventStore } from '@stagecraft/event-store';
import { HEADER, MessageBus, Requester, wireBytes } from '@stagecraft/messaging';
import { Host, startHost } from '@stagecraft/service-shell';
import { prng } from '@stagecraft/testing';
import { z } from 'zod';
import { allServices } from '../services';
import { DistributedSystem, startDistributedSystem } from './distributed-system';

/**
 * Malformed requests of every kind, as raw bodies, to every request subject, in both deployments.
 * Each payload must get a valid reply or a structured error within the transport's limit, no service
 * may go down, and no rejected request may append an event. `STAGECRAFT_FUZZ_PER_SUBJECT` sets how
 * many payloads each subject gets (a soak run sets it high); `STAGECRAFT_FUZZ_SEED` replays a run.
 */
const PER_SUBJECT = Number(process.env['STAGECRAFT_FUZZ_PER_SUBJECT'] ?? 66);
const SEED = Number(process.env['STAGECRAFT_FUZZ_SEED'] ?? 20261101);
const IN_FLIGHT = 4;
const TIMEOUT_MS = 15_000;

const policy = {
  userMode: 'agent' as const,
  reasoningEnabled: true,
  stage: 'act' as const,
  delegation: { depth: 1, chain: ['reviewer'] },
  tools: ['read_file' as const, 'write_file' as const],
  prompts: ['base/system', 'stages/act'],
  reasoning: { rule: 'micro' as const, required: true },
  toolLoop: true,
  memory: ['recall' as const],
};
/** Well-formed requests: every payload is one of these, broken. Typed, so a new subject needs one here. */
const wellFormed: { [S in RequestSubject]: RequestOf<S> } = {
  'conversation.send': {
    conversationId: 'conv-fuzz',
    runId: 'run-fuzz',
    message: 'Summarise the README',
    userMode: 'agent',
    reasoningEnabled: false,
    projectRoot: '/tmp/fuzz-project',
  },
  'conversation.run.get': { runId: 'run-fuzz' },
  'conversation.run.resume': { runId: 'run-fuzz' },
  'run.cancel': { runId: 'run-fuzz', by: 'cli', reason: 'fuzzing' },
  'approval.answer': { id: 'run-fuzz', approvalId: 'run-fuzz.c1.approval', decision: 'deny', reason: 'not now' },
  'conversation.fork': { runId: 'run-fuzz', atRevision: 2, newRunId: 'run-fuzz-fork' },
  'policy.decide': { userMode: 'agent', reasoningEnabled: true, stage: 'act', delegation: { depth: 1, chain: ['reviewer'] } },
  'policy.table': { userMode: 'chat', reasoningEnabled: false, delegation: { depth: 2, chain: ['planner', 'reviewer'] } },
  'prompt.assemble': {
    policy,
    variables: { project_root: '/tmp/fuzz-project', user_input: 'hello' },
    instructions: [],
    agentType: 'main',
    upstream: [{ kind: 'result', resultId: 'wf-1/reviewer/001/2026-11-01T00:00:00Z', agentType: 'reviewer', output: 'looks fine' }],
  },
  'workflow.next': { workflowId: 'code-review', completedSteps: ['collect'] },
  'workflow.start': {
    workflowId: 'wf-fuzz',
    goal: 'Document the project',
    projectRoot: '/tmp/fuzz-project',
    phases: ['discovery', 'planning'],
    approve: 'writes',
    gates: { afterPlanning: true, beforeMerge: false },
    limits: { maxParallelAgents: 2 },
  },
  'workflow.get': { workflowId: 'wf-fuzz' },
  'workflow.cancel': { workflowId: 'wf-fuzz', reason: 'fuzzing' },
  'tool.execute': {
    callId: 'call-fuzz',
    runId: 'run-fuzz',
    tool: 'read_file',
    arguments: { path: 'README.md' },
    stage: 'act',
    userMode: 'agent',
    reasoningEnabled: true,
    delegation: { depth: 0, chain: [] },
    projectRoot: '/tmp/fuzz-project',
  },
  'index.map': { runId: 'run-fuzz', projectRoot: '/tmp/fuzz-project' },
  'qa.review': {
    runId: 'run-fuzz',
    conversationId: 'conv-fuzz',
    userMode: 'agent',
    reasoningEnabled: true,
    userInput: 'What does the README say?',
    answer: 'It says to run the tests.',
    projectRoot: '/tmp/fuzz-project',
    toolSummary: '- read_file README.md: ok',
    lastStepOutcome: 'plan: none',
  },
  'memory.retain': {
    projectRoot: '/tmp/fuzz-project',
    tier: 'project',
    content: 'Run the tests with npm test',
    tags: ['testing'],
    memoryId: 'm-fuzz',
  },
  'memory.recall': { projectRoot: '/tmp/fuzz-project', query: 'how to test', tier: 'project', limit: 5 },
  'memory.reflect': { projectRoot: '/tmp/fuzz-project', query: 'how to test' },
  'memory.reasoning-outcome.get': { runId: 'run-fuzz' },
  'memory.history.get': { conversationId: 'conv-fuzz' },
  'runs.list': { status: 'running', conversationId: 'conv-fuzz', stuck: true, limit: 10 },
  'runs.get': { runId: 'run-fuzz' },
  'conversation.health': {},
  'policy.health': {},
  'prompt-assembly.health': {},
  'tool-execution.health': {},
  'qa.health': {},
  'memory.health': {},
};

/** Text that goes into the body as it is: what JSON.stringify cannot write (1e999, 10,000 levels, raw NULs). */
class Raw {
  constructor(readonly text: string) {}
}

function render(value: unknown): string {
  const fragments: string[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => (v instanceof Raw ? `\u0000raw:${fragments.push(v.text) - 1}\u0000` : v)) ?? '';
  return text.replace(/"\\u0000raw:(\d+)\\u0000"/g, (_match, i: string) => fragments[Number(i)]);
}

/** An own property of any name, `__proto__` included (assignment would set the prototype instead). */
function setOwn(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

type Path = (string | number)[];
type Json = Record<string, unknown> | unknown[];

/** Every node of a value with its path; the root is `[]`. */
function nodes(value: unknown, path: Path = []): { path: Path; value: unknown }[] {
  const own = { path, value };
  if (typeof value !== 'object' || value === null) return [own];
  return [own, ...Object.entries(value).flatMap(([key, child]) => nodes(child, [...path, Array.isArray(value) ? Number(key) : key]))];
}

const parentOf = (root: Json, path: Path) =>
  path.slice(0, -1).reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], root) as Json;

function replaceAt(root: Json, path: Path, replacement: unknown): void {
  setOwn(parentOf(root, path), String(path[path.length - 1]), replacement);
}

interface Draw {
  next: () => number;
  pick<T>(items: readonly T[]): T;
  int(max: number): number;
}
const drawFrom = (next: () => number): Draw => ({
  next,
  pick: (items) => items[Math.floor(next() * items.length)],
  int: (max) => Math.floor(next() * max),
});

interface FuzzContext {
  subject: RequestSubject;
  draw: Draw;
  maxPayload: number;
  /** A fresh deep copy of the subject's well-formed request. */
  base(): Record<string, unknown>;
}

const DEEP = 10_000;
const AMPLIFY = 20_000;
const deepArrays = () => new Raw('['.repeat(DEEP) + ']'.repeat(DEEP));
const deepObjects = () => new Raw('{"a":'.repeat(DEEP) + '1' + '}'.repeat(DEEP));
const typeOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
const wrongValues: unknown[] = [null, true, false, 0, -1.5, 2 ** 53 + 1, '', 'text', [], {}, [1, 'a', null], { a: { b: 1 } }];
/** A copy, so that a later mutation of this payload cannot change the next one. */
const wrongValue = (draw: Draw, unlike?: unknown) =>
  structuredClone(draw.pick(wrongValues.filter((v) => unlike === undefined || typeOf(v) !== typeOf(unlike))));
const badStrings = ['\u0000', 'a\u0000b', '\ud800', '\udfff', 'x\ud800y', '\ud83d', '\u0000\udc00\u0000', '\ufeff\u202e', ' \t\n '];
const nonFinite = () => [new Raw('1e999'), new Raw('-1e999'), 'NaN', 'Infinity', '-Infinity', new Raw('1e400'), '1e999'];
const protoKeys = ['__proto__', 'constructor', 'prototype'];
const pollution = () => ({ polluted: 'yes', prototype: { polluted: 'yes' } });

/**
 * Replaces one field chosen at random (any depth) with `make(old)`, and returns the payload. A request
 * without fields (`{}` for health) has the whole body replaced instead.
 */
function replaceSomeField(ctx: FuzzContext, value: Json, make: (old: unknown) => unknown): unknown {
  const fields = nodes(value).filter((n) => n.path.length > 0);
  if (fields.length === 0) return make(value);
  const field = ctx.draw.pick(fields);
  replaceAt(value, field.path, make(field.value));
  return value;
}
const objectsIn = (value: unknown) =>
  nodes(value).filter((n) => typeof n.value === 'object' && n.value !== null && !Array.isArray(n.value));

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Each class returns the payload as a value to render; a `Raw` value is the body's text itself. */
const payloadClasses: Record<string, (ctx: FuzzContext) => unknown> = {
  notJson: ({ draw, base }) => {
    const json = JSON.stringify(base());
    const broken = [
      json.slice(0, Math.max(1, draw.int(json.length))),
      `${json}}`,
      json.replace(/"/g, "'"),
      'undefined',
      'NaN',
      '{"a":1,}',
      '\u0000',
      '\ud800',
      `{${'x'.repeat(200)}`,
      '[',
      '"unterminated',
    ];
    // `{}` in single quotes is still `{}`: keep only the texts that really are not JSON.
    return new Raw(draw.pick(broken.filter((text) => !parses(text))));
  },
  emptyBody: ({ draw }) => new Raw(draw.pick(['', ' ', '\n', '\t\r\n'])),
  oversized: ({ draw, maxPayload, base }) => {
    const value = base();
    setOwn(value, 'pad', 'x'.repeat(maxPayload + draw.int(4_096)));
    return value;
  },
  wrongType: (ctx) => {
    let value: unknown = ctx.base();
    for (let i = 0, n = 1 + ctx.draw.int(3); i < n && typeof value === 'object' && value !== null; i++) {
      value = replaceSomeField(ctx, value as Json, (old) => wrongValue(ctx.draw, old));
    }
    return value;
  },
  missingFields: (ctx) => {
    const value = ctx.base();
    for (let i = 0, n = 1 + ctx.draw.int(3); i < n; i++) {
      const fields = nodes(value).filter((node) => node.path.length > 0 && !Array.isArray(parentOf(value, node.path)));
      if (fields.length === 0) break;
      const { path } = ctx.draw.pick(fields);
      delete (parentOf(value, path) as Record<string, unknown>)[String(path[path.length - 1])];
    }
    return value;
  },
  extraFields: (ctx) => {
    const value = ctx.base();
    const names = ['extra', '', ' ', '0', 'x'.repeat(300), 'ünïcödé', 'a.b', '$where', 'toString', 'hasOwnProperty'];
    if (ctx.draw.next() < 0.2) {
      // One issue, but zod's message for it lists every unknown key.
      for (let i = 0; i < AMPLIFY; i++) setOwn(value, `unexpected-key-${i}`, i);
      return value;
    }
    for (let i = 0, n = 1 + ctx.draw.int(20); i < n; i++)
      setOwn(ctx.draw.pick(objectsIn(value)).value as object, ctx.draw.pick(names) + (i > 9 ? i : ''), wrongValue(ctx.draw));
    return value;
  },
  deepNesting: (ctx) => replaceSomeField(ctx, ctx.base(), () => ctx.draw.pick([deepArrays, deepObjects])()),
  prototypeKeys: (ctx) => {
    const value = ctx.base();
    for (const key of protoKeys) if (ctx.draw.next() < 0.7) setOwn(ctx.draw.pick(objectsIn(value)).value as object, key, pollution());
    const parsedKeys = () => JSON.parse('{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}}');
    return ctx.draw.next() < 0.5 ? replaceSomeField(ctx, value, parsedKeys) : value;
  },
  badStrings: (ctx) => {
    const value = ctx.base();
    for (const { path, value: leaf } of nodes(value))
      if (typeof leaf === 'string' && ctx.draw.next() < 0.6) replaceAt(value, path, ctx.draw.pick(badStrings));
    // A raw control character inside a JSON string is not JSON at all.
    return ctx.draw.next() < 0.3 ? replaceSomeField(ctx, value, () => new Raw('"raw\u0000nul"')) : value;
  },
  nonFinite: (ctx) => {
    const value = ctx.base();
    const numbers = nodes(value).filter((n) => typeof n.value === 'number' || typeof n.value === 'boolean');
    if (numbers.length === 0 || ctx.draw.next() < 0.3) return replaceSomeField(ctx, value, () => ctx.draw.pick(nonFinite()));
    for (const { path } of numbers) replaceAt(value, path, ctx.draw.pick(nonFinite()));
    return value;
  },
  amplifier: (ctx) => {
    const value = ctx.base();
    // One array (or record) per payload: 20,000 bad elements are 20,000 issues, paid again by the service.
    const targets = nodes(value).filter((n) => Array.isArray(n.value) || n.path[n.path.length - 1] === 'arguments');
    const bad = ctx.draw.pick<unknown>(['', null, 0, {}, [], ' ']);
    // Now and then as long as the transport carries: the most issues a request can ask for.
    const length =
      ctx.draw.next() < 0.05 ? Math.floor((ctx.maxPayload - render(value).length - 1_000) / (JSON.stringify(bad).length + 1)) : AMPLIFY;
    const target = targets.length > 0 ? ctx.draw.pick(targets) : null;
    const many =
      Array.isArray(target?.value) || !target
        ? new Array(length).fill(bad)
        : Object.fromEntries(Array.from({ length: AMPLIFY }, (_, i) => [`k${i}`, bad]));
    if (!target) return replaceSomeField(ctx, value, () => many);
    replaceAt(value, target.path, many);
    return value;
  },
};
const CLASS_NAMES = Object.keys(payloadClasses);

const schemaOf = (subject: RequestSubject) => requestContracts[subject].request as z.ZodType;

const isValid = (subject: RequestSubject, body: string): boolean => parses(body) && schemaOf(subject).safeParse(JSON.parse(body)).success;

/** Fields that refuse null: setting one of them to null breaks any request of this subject. */
function breakOneField(subject: RequestSubject, value: Json, draw: Draw): void {
  const schema = schemaOf(subject);
  const shape = schema instanceof z.ZodObject ? (schema.shape as Record<string, z.ZodType>) : {};
  const required = Object.keys(shape).filter((key) => !shape[key].safeParse(null).success);
  // A strict empty object (health) refuses any key.
  if (required.length === 0 || Array.isArray(value)) setOwn(value, 'unexpected', true);
  else setOwn(value, draw.pick(required), null);
}

interface Payload {
  subject: RequestSubject;
  kind: string;
  body: string;
  /** True only if no breaking made it malformed: sent anyway, counted apart. */
  valid: boolean;
}

/** Every payload is malformed: where a class happened to leave one valid, one more field is broken. */
function* payloadsFor(subject: RequestSubject, seed: number, maxPayload: number, count = PER_SUBJECT): Generator<Payload> {
  const draw = drawFrom(prng(seed));
  const ctx: FuzzContext = { subject, draw, maxPayload, base: () => structuredClone(wellFormed[subject]) as Record<string, unknown> };
  for (let i = 0; i < count; i++) {
    const kind = CLASS_NAMES[i % CLASS_NAMES.length];
    const made = payloadClasses[kind](ctx);
    let body = render(made);
    let valid = isValid(subject, body);
    if (valid && typeof made === 'object' && made !== null) {
      breakOneField(subject, made as Json, draw);
      body = render(made);
      valid = isValid(subject, body);
    }
    yield { subject, kind, body, valid };
  }
}

interface Tally {
  payloads: number;
  refusedBySize: number;
  validGenerated: number;
  accepted: Set<string>;
  defects: string[];
}

const preview = (body: string) => JSON.stringify(body.length > 120 ? `${body.slice(0, 120)}… (${body.length} chars)` : body);

async function send(bus: MessageBus, prefix: string, payload: Payload, correlationId: string, tally: Tally): Promise<void> {
  const { subject, kind, body } = payload;
  const where = `${subject} ${kind} ${preview(body)}`;
  let reply;
  try {
    reply = await bus.request(withPrefix(prefix, subject), body, {
      headers: { [HEADER.correlationId]: correlationId },
      timeoutMs: TIMEOUT_MS,
    });
  } catch (error) {
    // Refused by the transport before it was sent: the caller still gets a structured error.
    const refusal = toErrorReply(error);
    if (error instanceof StagecraftError && refusal.code === 'LIMIT_EXCEEDED' && ErrorReply.safeParse(refusal).success)
      tally.refusedBySize += 1;
    else tally.defects.push(`${where}: no reply (${refusal.code}: ${refusal.message})`);
    return;
  }
  const size = wireBytes(reply.body, reply.headers);
  if (size > bus.maxPayload) tally.defects.push(`${where}: reply of ${size} bytes is over maxPayload`);
  let envelope: unknown;
  try {
    envelope = JSON.parse(reply.body);
  } catch {
    tally.defects.push(`${where}: reply is not JSON: ${preview(reply.body)}`);
    return;
  }
  const checked = ReplyEnvelope(requestContracts[subject].reply as z.ZodType).safeParse(envelope);
  if (!checked.success) tally.defects.push(`${where}: reply outside its contract: ${preview(reply.body)}`);
  else if ((checked.data as { ok: boolean }).ok) {
    tally.accepted.add(correlationId);
    if (!payload.valid) tally.defects.push(`${where}: accepted a request its contract refuses`);
  }
}

/** Runs every subject's payloads, a few in flight at a time; made one by one (oversized ones are 1 MB each). */
async function fuzz(bus: MessageBus, prefix: string, seed: number): Promise<Tally> {
  const tally: Tally = { payloads: 0, refusedBySize: 0, validGenerated: 0, accepted: new Set(), defects: [] };
  const queue = (function* () {
    for (const [i, subject] of REQUEST_SUBJECTS.entries()) yield* payloadsFor(subject, seed + i, bus.maxPayload);
  })();
  const worker = async () => {
    for (let item = queue.next(); !item.done; item = queue.next()) {
      const n = tally.payloads++;
      if (item.value.valid) tally.validGenerated += 1;
      await send(bus, prefix, item.value, `fuzz-${seed}-${n}`, tally);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return tally;
}

/** Events appended since `after` by requests that did not get an `ok: true` reply. */
async function appendsByRejected(store: EventStore, after: bigint | 'start', accepted: Set<string>): Promise<string[]> {
  const appended = await store.readAll({ fromPosition: after });
  return appended
    .filter((e) => !accepted.has((e.metadata as { correlationId?: string }).correlationId ?? ''))
    .map((e) => `${e.streamId} ${e.type} (correlation ${(e.metadata as { correlationId?: string }).correlationId})`);
}
const lastPosition = async (store: EventStore) => (await store.readAll()).at(-1)?.position ?? 'start';

async function servicesAnswerHealth(requester: Requester): Promise<string[]> {
  const down: string[] = [];
  for (const service of SERVICE_NAMES) {
    try {
      const reply = (await requester.request(healthSubject(service), {})) as HealthReply;
      // `degraded` is up with a warning (the model endpoint, which these systems never reach).
      if (reply.service !== service || reply.status === 'down') down.push(`${service}: ${JSON.stringify(reply)}`);
    } catch (error) {
      down.push(`${service}: ${toErrorReply(error).message}`);
    }
  }
  return down;
}

const count = (n: number) => n.toLocaleString('en-US');
function summary(deployment: string, tally: Tally, crashes: number, appends: number): string {
  return (
    `fuzz (${deployment}, seed ${SEED}): ${count(tally.payloads)} payloads over ${REQUEST_SUBJECTS.length} subjects, ${count(crashes)} crashes, ${count(appends)} appends` +
    ` (${count(tally.refusedBySize)} refused by size, ${count(tally.validGenerated)} valid, ${count(tally.accepted.size)} accepted)\n`
  );
}

describe('fuzz payloads', () => {
  it('every request subject has a well-formed base, and every base passes its contract', () => {
    expect(Object.keys(wellFormed).sort()).toEqual([...REQUEST_SUBJECTS].sort());
    for (const subject of REQUEST_SUBJECTS)
      expect({ subject, valid: isValid(subject, JSON.stringify(wellFormed[subject])) }).toEqual({ subject, valid: true });
  });

  it('are malformed, reproducible from their seed, and cover every class on every subject', () => {
    for (const subject of REQUEST_SUBJECTS) {
      const first = [...payloadsFor(subject, 7, 1_048_576, CLASS_NAMES.length)];
      expect(first.filter((p) => p.valid).map((p) => `${subject} ${p.kind}`)).toEqual([]);
      expect(first.map((p) => p.kind)).toEqual(CLASS_NAMES);
      expect([...payloadsFor(subject, 7, 1_048_576, CLASS_NAMES.length)].map((p) => p.body)).toEqual(first.map((p) => p.body));
    }
  });

  it('write what JSON.stringify cannot: 1e999, 10,000 levels, own __proto__ keys', () => {
    const value = { a: new Raw('1e999'), b: deepArrays() };
    setOwn(value, '__proto__', { polluted: 'yes' });
    const parsed = JSON.parse(render(value));
    expect(parsed.a).toBe(Infinity);
    expect(render(value)).toContain('['.repeat(DEEP));
    expect(Object.keys(parsed)).toEqual(['a', 'b', '__proto__']);
  });
});

describe('fuzz: distributed (six processes, nats-server, shared sqlite)', () => {
  const prefix = 'fuzz';
  let dir: string;
  let system: DistributedSystem;
  let tally: Tally | undefined;
  let rejectedAppends: string[] = [];
  let crashes = 0;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-fuzz-'));
    system = await startDistributedSystem({ prefix, storePath: join(dir, 'events.db'), timeoutMs: TIMEOUT_MS });
  }, 60_000);

  afterAll(async () => {
    if (tally) process.stdout.write(summary('distributed', tally, crashes, rejectedAppends.length));
    const codes = (await system?.stop()) ?? [];
    rmSync(dir, { recursive: true, force: true });
    // Each process was still alive to stop cleanly on SIGTERM.
    expect(codes.every((code) => code === 0)).toBe(true);
  });

  it('every payload gets a valid reply or a structured error, every service stays up, no rejected request appends', async () => {
    const before = await lastPosition(system.store);
    tally = await fuzz(system.bus, prefix, SEED);
    const down = await servicesAnswerHealth(system.requester);
    const dead = system.services
      .filter((s) => s.child.exitCode !== null || s.child.signalCode !== null)
      .map((s) => `${s.name} exited (${s.child.exitCode ?? s.child.signalCode}): ${s.output().slice(-2_000)}`);
    crashes = tally.defects.filter((d) => d.includes(': no reply')).length + dead.length;
    rejectedAppends = await appendsByRejected(system.store, before, tally.accepted);
    expect({ dead, down }).toEqual({ dead: [], down: [] });
    expect(tally.defects.slice(0, 20)).toEqual([]);
    expect(rejectedAppends.slice(0, 20)).toEqual([]);
    expect(tally.payloads).toBe(PER_SUBJECT * REQUEST_SUBJECTS.length);
  }, 600_000);
});

describe('fuzz: embedded (six services in this process, in-process bus, sqlite)', () => {
  const prefix = 'stagecraft';
  let dir: string;
  let host: Host;
  let tally: Tally | undefined;
  let rejectedAppends: string[] = [];
  let crashes = 0;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-fuzz-'));
    host = await startHost({
      definitions: allServices({ resume: false }),
      transport: 'inproc',
      store: `sqlite:${join(dir, 'events.db')}`,
      config: { prefix, requestTimeoutMs: TIMEOUT_MS, logLevel: 'silent', projectRoots: [dir] },
    });
  });

  afterAll(async () => {
    if (tally) process.stdout.write(summary('embedded', tally, crashes, rejectedAppends.length));
    await host?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('every payload gets a valid reply or a structured error, every service stays up, no rejected request appends', async () => {
    const store = host.ports.store as EventStore;
    const before = await lastPosition(store);
    tally = await fuzz(host.ports.bus, prefix, SEED);
    const down = await servicesAnswerHealth(host.ports.requester);
    crashes = tally.defects.filter((d) => d.includes(': no reply')).length + down.length;
    rejectedAppends = await appendsByRejected(store, before, tally.accepted);
    expect(down).toEqual([]);
    expect(tally.defects.slice(0, 20)).toEqual([]);
    expect(rejectedAppends.slice(0, 20)).toEqual([]);
    // Parsed __proto__ / constructor.prototype keys reached no prototype in this process.
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(tally.payloads).toBe(PER_SUBJECT * REQUEST_SUBJECTS.length);
  }, 600_000);
});

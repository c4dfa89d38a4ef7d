import 'reflect-metadata';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolName, ToolProgress, streams } from '@stagecraft/contracts';
import type { EventStore } from '@stagecraft/event-store';
import { subscribeToolProgress } from '@stagecraft/messaging';
import { Host, startHost } from '@stagecraft/service-shell';
import { toolExecutionService, toolExecutionServiceWith } from '../index';

const config = { prefix: 'stagecraft', requestTimeoutMs: 5000, logLevel: 'silent' as const };

let dir: string;
let project: string;
let host: Host;
let store: EventStore;

const start = (definition = toolExecutionService, file = 'events.db') =>
  startHost({ definitions: [definition], transport: 'inproc', store: `sqlite:${join(dir, file)}`, config });

beforeEach(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'stagecraft-tool-execution-')));
  project = join(dir, 'project');
  mkdirSync(project);
  host = await start();
  store = host.ports.store as EventStore;
});
afterEach(async () => {
  await host.close();
  rmSync(dir, { recursive: true, force: true });
});

let calls = 0;
const call = (tool: ToolName, args: Record<string, unknown>, overrides: Record<string, unknown> = {}) => ({
  callId: `call-${++calls}`,
  runId: 'run-1',
  tool,
  arguments: args,
  stage: 'act' as const,
  userMode: 'agent' as const,
  reasoningEnabled: true,
  projectRoot: project,
  ...overrides,
});
const execute = (request: ReturnType<typeof call>, on: Host = host) => on.ports.requester.request('tool.execute', request);
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => ({ code: 'NONE', message: '' }),
    (e: { code: string; message: string }) => e,
  );
const eventsOf = async (callId: string) => (await store.readStream(streams.toolCall(callId))).map((e) => ({ type: e.type, data: e.data }));
const appendCounter = (callId: string) =>
  call(
    'run_command',
    { command: 'node', args: ['-e', 'require("fs").appendFileSync("count.txt", "x"); console.log("counted")'] },
    { callId },
  );

describe('tool.execute', () => {
  it('refuses a write in the QA stage, records the refusal and writes nothing', async () => {
    const request = call('write_file', { path: 'report.md', content: 'rewritten answer' }, { stage: 'qa_review' });
    const error = await failure(execute(request));
    expect(error.code).toBe('FORBIDDEN_TOOL');
    expect(error.message).toContain(
      'write_file is not available in the qa_review stage (agent mode offers read_file, list_dir, search_code, find_symbol, list_entry_points, search_index',
    );
    expect(existsSync(join(project, 'report.md'))).toBe(false);
    expect(await eventsOf(request.callId)).toEqual([
      {
        type: 'ToolExecutionRefused',
        data: {
          callId: request.callId,
          tool: 'write_file',
          stage: 'qa_review',
          code: 'FORBIDDEN_TOOL',
          reason: error.message,
          binding: expect.stringMatching(/^[a-f0-9]{64}$/),
        },
      },
    ]);
    const again = await failure(execute(request));
    expect(again.code).toBe('FORBIDDEN_TOOL');
    expect(await eventsOf(request.callId)).toHaveLength(1);
  });

  it('refuses a write or a command to a workflow agent other than a ticket agent (docs/decisions/0036)', async () => {
    for (const workflowAgentType of ['discovery-agent', 'planning-collector', 'ticket-collector']) {
      const writes = [
        call('write_file', { path: 'planted.md', content: 'x' }, { workflowAgentType }),
        call('run_command', { command: 'node', args: ['-e', 'require("fs").writeFileSync("planted.md", "x")'] }, { workflowAgentType }),
      ];
      for (const request of writes) expect((await failure(execute(request))).code).toBe('FORBIDDEN_TOOL');
      expect(await execute(call('list_dir', { path: '.' }, { workflowAgentType }))).toMatchObject({ ok: true });
    }
    expect(existsSync(join(project, 'planted.md'))).toBe(false);
    const ticket = await execute(call('write_file', { path: 'ticket.md', content: 'done' }, { workflowAgentType: 'ticket-agent' }));
    expect(ticket).toMatchObject({ ok: true });
    expect(readFileSync(join(project, 'ticket.md'), 'utf8')).toBe('done');
  });

  it('refuses every tool in delivery_check, and every tool in chat mode', async () => {
    for (const tool of ToolName.options) {
      expect((await failure(execute(call(tool, { path: 'x' }, { stage: 'delivery_check' })))).code).toBe('FORBIDDEN_TOOL');
      expect((await failure(execute(call(tool, { path: 'x' }, { userMode: 'chat' })))).code).toBe('FORBIDDEN_TOOL');
    }
    const refused = (await store.readAll()).filter((e) => e.type === 'ToolExecutionRefused');
    expect(refused).toHaveLength(ToolName.options.length * 2);
    expect((await store.readAll()).some((e) => e.type === 'ToolExecutionStarted')).toBe(false);
  });

  it('runs a call once: a retry with the same call id gets the recorded result back', async () => {
    const request = appendCounter('retried-call');
    const first = await execute(request);
    const second = await execute(request);
    expect(first).toMatchObject({ callId: 'retried-call', tool: 'run_command', ok: true, truncated: false, replayed: false });
    expect(first.output).toContain('exit code: 0\ncounted');
    expect(second).toEqual({ ...first, replayed: true });
    expect(readFileSync(join(project, 'count.txt'), 'utf8')).toBe('x');
    expect((await eventsOf('retried-call')).map((e) => e.type)).toEqual(['ToolExecutionStarted', 'ToolExecutionFinished']);
  });

  it("replies with a write's changes, records them, scrubs secrets from their diffs, and gives them back on a retry", async () => {
    writeFileSync(join(project, 'remote.txt'), 'url = https://bot:hunter2secret@git.example.com/x.git\nbranch = main\n');
    const request = call('write_file', {
      path: 'remote.txt',
      content: 'url = https://bot:hunter2secret@git.example.com/x.git\nbranch = trunk\n',
    });
    const first = await execute(request);
    expect(first.changes).toEqual([
      {
        path: 'remote.txt',
        kind: 'modified',
        added: 1,
        removed: 1,
        diff: '--- a/remote.txt\n+++ b/remote.txt\n@@ -1,2 +1,2 @@\n url = https://bot:[redacted:password]@git.example.com/x.git\n-branch = main\n+branch = trunk\n',
      },
    ]);
    const finished = (await eventsOf(request.callId)).find((e) => e.type === 'ToolExecutionFinished');
    expect((finished?.data as { changes?: unknown }).changes).toEqual(first.changes);
    expect(JSON.stringify(finished?.data)).not.toContain('hunter2secret');
    expect(await execute(request)).toEqual({ ...first, replayed: true });
    const listing = await execute(call('list_dir', {}));
    expect(listing.changes).toBeUndefined();
  });

  it('runs concurrent duplicates once and gives both the same result', async () => {
    const request = appendCounter('raced-call');
    const results = await Promise.all([execute(request), execute(request), execute(request)]);
    expect(readFileSync(join(project, 'count.txt'), 'utf8')).toBe('x');
    expect(results.filter((r) => !r.replayed)).toHaveLength(1);
    expect(new Set(results.map((r) => r.output)).size).toBe(1);
    expect((await eventsOf('raced-call')).map((e) => e.type)).toEqual(['ToolExecutionStarted', 'ToolExecutionFinished']);
  });

  it('refuses a call id reused for a different call', async () => {
    await execute(call('write_file', { path: 'a.txt', content: 'one' }, { callId: 'reused' }));
    const error = await failure(execute(call('write_file', { path: 'a.txt', content: 'two' }, { callId: 'reused' })));
    expect(error.code).toBe('CONFLICT');
    expect(readFileSync(join(project, 'a.txt'), 'utf8')).toBe('one');
  });

  it('publishes numbered progress from started to finished', async () => {
    const request = call('write_file', { path: 'src/new.ts', content: 'export {};\n' });
    const progress: ToolProgress[] = [];
    const subscription = subscribeToolProgress(host.ports.bus, config.prefix, request.callId, (p) => progress.push(p));
    const result = await execute(request);
    await host.ports.bus.flush();
    subscription.unsubscribe();
    expect(result.ok).toBe(true);
    expect(progress.map((p) => p.sequence)).toEqual([0, 1, 2]);
    expect(progress.map((p) => p.message)).toEqual([
      'started write_file',
      'wrote src/new.ts',
      expect.stringMatching(/^finished ok in \d+(\.\d+)? ms$/),
    ]);
    expect(progress.every((p) => p.callId === request.callId)).toBe(true);
  });

  it('records tool failures as completed calls with guidance, not as errors', async () => {
    const escape = await execute(call('read_file', { path: '../outside.txt' }));
    expect(escape).toMatchObject({ ok: false, replayed: false });
    expect(escape.output).toContain('tool_error: FORBIDDEN_PATH');
    const badArgs = await execute(call('read_file', { file: 'x' }));
    expect(badArgs.output).toContain('tool_error: INVALID_ARGUMENTS');
    expect((await eventsOf(badArgs.callId)).map((e) => e.type)).toEqual(['ToolExecutionStarted', 'ToolExecutionFinished']);
  });

  it("reads lines of its own run's recorded outputs, and refuses another run's with a structured error, recording nothing", async () => {
    const listing = await execute(
      call(
        'run_command',
        { command: 'node', args: ['-e', 'for (let i = 1; i <= 50; i++) console.log(`row ${i}`)'] },
        { callId: 'run-1.m1.ls' },
      ),
    );
    const rows = listing.output.split('\n');
    const read = await execute(call('read_tool_output', { callId: 'run-1.m1.ls', startLine: 10, endLine: 12 }));
    expect(read).toMatchObject({ ok: true, output: rows.slice(9, 12).join('\n') });
    expect(read.output).toMatch(/^row \d+\nrow \d+\nrow \d+$/);

    const foreign = call('read_tool_output', { callId: 'run-1.m1.ls' }, { runId: 'run-2' });
    const refused = (await failure(execute(foreign))) as { code: string; message: string; issues?: unknown };
    expect(refused).toMatchObject({
      code: 'VALIDATION',
      message: 'read_tool_output: run run-2 has no finished tool call run-1.m1.ls',
      issues: [{ path: ['arguments', 'callId'], message: 'not a finished tool call of this run' }],
    });
    // An unknown call is refused alike: the answer says nothing of other runs.
    const unknown = await failure(execute(call('read_tool_output', { callId: 'run-9.m1.nothing' }, { runId: 'run-2' })));
    expect(unknown.message).toBe('read_tool_output: run run-2 has no finished tool call run-9.m1.nothing');
    expect(await eventsOf(foreign.callId)).toEqual([]);
  });

  it('answers a malformed request with VALIDATION and appends nothing', async () => {
    const requests = [
      { ...call('read_file', { path: 'a' }), tool: 'delete_everything' },
      { ...call('read_file', { path: 'a' }), callId: 'not a valid id/' },
      { ...call('read_file', { path: 'a' }), stage: undefined },
      call('read_file', { path: 'a' }, { projectRoot: 'relative/root' }),
      call('read_file', { path: 'a' }, { projectRoot: join(dir, 'missing') }),
    ];
    for (const request of requests) expect((await failure(execute(request as ReturnType<typeof call>))).code).toBe('VALIDATION');
    expect(await store.readAll()).toEqual([]);
  });

  it('keeps project roots inside the configured ones', async () => {
    const confined = await start(toolExecutionServiceWith({ allowedRoots: [join(dir, 'allowed')] }), 'confined.db');
    try {
      mkdirSync(join(dir, 'allowed', 'repo'), { recursive: true });
      const inside = await execute(
        call('write_file', { path: 'a.txt', content: 'ok' }, { projectRoot: join(dir, 'allowed', 'repo') }),
        confined,
      );
      expect(inside.ok).toBe(true);
      const request = call('write_file', { path: 'a.txt', content: 'no' });
      const error = await failure(execute(request, confined));
      expect(error.code).toBe('FORBIDDEN_PATH');
      expect(existsSync(join(project, 'a.txt'))).toBe(false);
      const events = await (confined.ports.store as EventStore).readStream(streams.toolCall(request.callId));
      expect(events.map((e) => [e.type, (e.data as { code: string }).code])).toEqual([['ToolExecutionRefused', 'FORBIDDEN_PATH']]);
    } finally {
      await confined.close();
    }
  });

  it('binds a call id to its whole request: another project root, mode or run gets CONFLICT, not the old result', async () => {
    const other = join(dir, 'other');
    mkdirSync(other);
    const request = call('write_file', { path: 'a.txt', content: 'one' }, { callId: 'bound' });
    expect((await execute(request)).ok).toBe(true);
    const changes: Record<string, unknown>[] = [
      { projectRoot: other },
      { userMode: 'chat' },
      { runId: 'run-2' },
      { reasoningEnabled: false },
    ];
    for (const changed of changes) {
      const error = await failure(execute({ ...request, ...changed } as typeof request));
      expect({ changed, code: error.code }).toEqual({ changed, code: 'CONFLICT' });
    }
    expect(existsSync(join(other, 'a.txt'))).toBe(false);
    expect((await eventsOf('bound')).map((e) => e.type)).toEqual(['ToolExecutionStarted', 'ToolExecutionFinished']);
  });

  it('validates the delegation: depth and chain agree, agent types are names, depth is bounded', async () => {
    const delegations = [
      { depth: 99, chain: ['x'] },
      { depth: 1, chain: [] },
      { depth: 1, chain: ['../etc'] },
      { depth: 9, chain: Array(9).fill('specialist') },
    ];
    for (const delegation of delegations) {
      const error = await failure(execute(call('write_file', { path: 'd.txt', content: 'x' }, { delegation })));
      expect({ delegation, code: error.code }).toEqual({ delegation, code: 'VALIDATION' });
    }
    expect(existsSync(join(project, 'd.txt'))).toBe(false);
    expect(await store.readAll()).toEqual([]);
  });

  it("replays a call and repeats a refusal that the previous version recorded under the run stream's names", async () => {
    const metadata = { runId: 'run-1', correlationId: 'k', occurredAt: new Date().toISOString() };
    const done = call('write_file', { path: 'legacy.txt', content: 'x' }, { callId: 'legacy-done' });
    await store.appendToStream(streams.toolCall('legacy-done'), [
      {
        id: 'legacy-1',
        type: 'ToolCallRequested',
        data: { callId: 'legacy-done', tool: 'write_file', arguments: done.arguments, stage: 'act' },
        metadata,
      },
      {
        id: 'legacy-2',
        type: 'ToolCallCompleted',
        data: { callId: 'legacy-done', tool: 'write_file', ok: true, output: 'wrote legacy.txt', truncated: false, durationMs: 2 },
        metadata,
      },
    ]);
    const refused = call('write_file', { path: 'legacy.txt', content: 'x' }, { callId: 'legacy-refused', stage: 'qa_review' });
    await store.appendToStream(streams.toolCall('legacy-refused'), [
      {
        id: 'legacy-3',
        type: 'ToolCallRejected',
        data: { callId: 'legacy-refused', tool: 'write_file', stage: 'qa_review', code: 'FORBIDDEN_TOOL', reason: 'not in review' },
        metadata,
      },
    ]);

    expect(await execute(done)).toEqual({
      callId: 'legacy-done',
      tool: 'write_file',
      ok: true,
      output: 'wrote legacy.txt',
      truncated: false,
      durationMs: 2,
      replayed: true,
    });
    expect(await failure(execute(refused))).toMatchObject({ code: 'FORBIDDEN_TOOL', message: 'not in review' });
    expect((await failure(execute({ ...done, arguments: { path: 'other.txt', content: 'x' } }))).code).toBe('CONFLICT');
    expect(existsSync(join(project, 'legacy.txt'))).toBe(false);
    expect((await eventsOf('legacy-done')).map((e) => e.type)).toEqual(['ToolCallRequested', 'ToolCallCompleted']);
  });

  it('records a call its dead tool service left behind as interrupted, stops its process, and never runs it again', async () => {
    const inFlightDir = join(dir, 'in-flight');
    const request = call(
      'run_command',
      { command: 'node', args: ['-e', 'setTimeout(() => require("fs").writeFileSync("late.txt", "x"), 1500)'] },
      { callId: 'orphaned' },
    );
    // What a tool service that was killed mid-call leaves: the call started, a process running, its note on disk.
    // The start is recorded under its previous name, as a store written before docs/decisions/0015 holds it.
    const orphan = spawn(process.execPath, ['-e', 'setTimeout(() => require("fs").writeFileSync("late.txt", "x"), 1500)'], {
      cwd: project,
      detached: true,
      stdio: 'ignore',
    });
    const deadOwner = spawnSync(process.execPath, ['-e', 'console.log(process.pid)']).stdout.toString().trim();
    mkdirSync(inFlightDir);
    writeFileSync(
      join(inFlightDir, 'orphaned.json'),
      JSON.stringify({ callId: 'orphaned', ownerPid: Number(deadOwner), ownerStart: null, childPid: orphan.pid, childStart: null }),
    );
    await store.appendToStream(streams.toolCall('orphaned'), [
      {
        id: 'requested-1',
        type: 'ToolCallRequested',
        data: { callId: 'orphaned', tool: 'run_command', arguments: request.arguments, stage: 'act' },
        metadata: { runId: 'run-1', correlationId: 'k', occurredAt: new Date().toISOString() },
      },
    ]);

    const restarted = await start(toolExecutionServiceWith({ inFlightDir }), 'events.db');
    try {
      const result = await execute(request, restarted);
      expect(result).toMatchObject({ ok: false, replayed: true });
      expect(result.output).toContain('tool_error: INTERRUPTED');
      await new Promise((resolve) => setTimeout(resolve, 2000));
      expect(existsSync(join(project, 'late.txt'))).toBe(false);
      expect(existsSync(join(inFlightDir, 'orphaned.json'))).toBe(false);
      expect((await eventsOf('orphaned')).map((e) => e.type)).toEqual(['ToolCallRequested', 'ToolExecutionFinished']);
    } finally {
      await restarted.close();
    }
  }, 20_000);

  it('records a call past its deadline as interrupted instead of waiting on it forever', async () => {
    const request = call('write_file', { path: 'never.txt', content: 'x' }, { callId: 'stale' });
    await store.appendToStream(streams.toolCall('stale'), [
      {
        id: 'requested-2',
        type: 'ToolExecutionStarted',
        data: {
          callId: 'stale',
          tool: 'write_file',
          arguments: request.arguments,
          stage: 'act',
          deadline: new Date(Date.now() - 1000).toISOString(),
        },
        metadata: { runId: 'run-1', correlationId: 'k', occurredAt: new Date().toISOString() },
      },
    ]);
    const started = Date.now();
    const result = await execute(request);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(result.output).toContain('tool_error: INTERRUPTED');
    expect(existsSync(join(project, 'never.txt'))).toBe(false);
  });
});

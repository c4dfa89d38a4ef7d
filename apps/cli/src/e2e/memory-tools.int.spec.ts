import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolName, streams } from '@stagecraft/contracts';
import type { EventStore } from '@stagecraft/event-store';
import { memoryScopeOf } from '@stagecraft/contracts';
import { memoryService } from '@stagecraft/memory-service';
import { Host, startHost } from '@stagecraft/service-shell';
import { eventually } from '@stagecraft/testing';
import { toolExecutionService } from '@stagecraft/tool-execution-service';

const config = { prefix: 'stagecraft', requestTimeoutMs: 5000, logLevel: 'silent' as const };

let dir: string;
let project: string;
let host: Host;
let store: EventStore;

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'stagecraft-memory-tools-')));
  project = join(dir, 'project');
  mkdirSync(project);
  host = await startHost({
    definitions: [toolExecutionService, memoryService],
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

let calls = 0;
const execute = (tool: ToolName, args: Record<string, unknown>, stage: 'act' | 'qa_review' | 'delivery_check' = 'act') =>
  host.ports.requester.request('tool.execute', {
    callId: `memory-call-${++calls}`,
    runId: 'run-memory-1',
    tool,
    arguments: args,
    stage,
    userMode: 'agent',
    reasoningEnabled: true,
    projectRoot: project,
  });

describe('memory tools through the tool service', () => {
  it('retain, recall and reflect in the project’s scope, each answered by the memory service as text', async () => {
    const scope = memoryScopeOf(project);
    const retained = await execute('memory_retain', { content: 'Build the project with make all', tier: 'architecture' });
    expect(retained).toMatchObject({ ok: true, tool: 'memory_retain' });
    expect(retained.output).toMatch(
      new RegExp(
        `^Retained memory m-[0-9a-f]{24} \\(architecture\\) in scope ${scope}\\. It is recalled in later runs once this run ends DONE\\.$`,
      ),
    );
    await execute('memory_retain', { content: 'The project builds with make test' });

    // Retained inside a run that has not ended DONE: kept, not recalled.
    const early = await execute('memory_recall', { query: 'how to build with make' });
    expect(early.output).toBe(`No memory in scope ${scope} matches "how to build with make".`);
    await store.appendToStream(streams.run('run-memory-1'), [
      {
        id: randomUUID(),
        type: 'RunCompleted',
        data: { deliveryState: 'DONE', answer: 'Built.' },
        metadata: { runId: 'run-memory-1', occurredAt: new Date().toISOString() },
      },
    ]);
    const recalled = await eventually(async () => {
      const reply = await execute('memory_recall', { query: 'how to build with make' });
      return reply.output.startsWith('2 of') ? reply : undefined;
    }, 'the memories of run-memory-1 to count once it ended DONE');
    expect(recalled.ok).toBe(true);
    expect(recalled.output.split('\n')).toEqual([
      `2 of the memories in scope ${scope}:`,
      expect.stringMatching(/^- \[m-[0-9a-f]{24}\] \(architecture, score [\d.]+, from run run-memory-1\) Build the project with make all$/),
      expect.stringMatching(/^- \[m-[0-9a-f]{24}\] \(project, score [\d.]+, from run run-memory-1\) The project builds with make test$/),
    ]);

    const reflected = await execute('memory_reflect', { query: 'project make' });
    expect(reflected.output).toContain(`2 memories in scope ${scope} bear on "project make"`);
    const events = await store.readStream(streams.memory(scope));
    expect(events.map((e) => e.type)).toEqual(['MemoryRetained', 'MemoryRetained', 'MemoryLinked']);
    expect(events[0].data).toMatchObject({ tier: 'architecture', source: { runId: 'run-memory-1' } });
  });

  it('refuses a memory tool the stage does not grant with FORBIDDEN_TOOL, and runs nothing', async () => {
    const scope = memoryScopeOf(project);
    const before = (await store.readStream(streams.memory(scope))).length;
    await expect(execute('memory_retain', { content: 'QA may not write this' }, 'qa_review')).rejects.toMatchObject({
      code: 'FORBIDDEN_TOOL',
    });
    await expect(execute('memory_recall', { query: 'build' }, 'delivery_check')).rejects.toMatchObject({ code: 'FORBIDDEN_TOOL' });
    expect((await execute('memory_recall', { query: 'build' }, 'qa_review')).ok).toBe(true);
    expect((await store.readStream(streams.memory(scope))).length).toBe(before);
  });

  it('answers bad arguments with guidance, retaining nothing', async () => {
    const scope = memoryScopeOf(project);
    const before = (await store.readStream(streams.memory(scope))).length;
    const reply = await execute('memory_retain', { content: 'a run outcome', tier: 'run_outcome' });
    expect(reply.ok).toBe(false);
    expect(reply.output).toContain('tool_error: INVALID_ARGUMENTS');
    expect((await store.readStream(streams.memory(scope))).length).toBe(before);
  });
});

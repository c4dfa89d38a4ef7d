import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReadOnlyToolName, StagecraftEvent, streams } from '@stagecraft/contracts';
import { EventStore } from '@stagecraft/event-store';
import { MessageBus, Requester } from '@stagecraft/messaging';
import { RecordedRequest, ScriptedModelServer, startScriptedModelServer } from '@stagecraft/scripted-model';
import { ServiceProcess, readWriteAgentScript } from '@stagecraft/testing';
import { DistributedSystem, startDistributedSystem } from './distributed-system';
import { EmbeddedSystem, RunFeed, runToEnd, startEmbeddedSystem } from './embedded-system';

/**
 * The acceptance run of the run loop, twice: embedded (one process, in-process bus, sqlite) and
 * distributed (six processes over a real nats-server, one shared sqlite file), against one scripted
 * model. Both must store the same sequence of event types, and every request either sent the model
 * must obey the invariants.
 */

// What QA may call: the read-only tools, and recall, the one memory tool that only reads.
const READ_ONLY = [...ReadOnlyToolName.options, 'memory_recall'].sort();

interface RunResult {
  runId: string;
  conversationId: string;
  end: StagecraftEvent;
  stored: StagecraftEvent[];
  project: string;
}

/** One agent run with reasoning in `project`, followed to its end; what the deployment's store holds of it. */
async function runOnce(on: RunFeed & { store: EventStore }, project: string): Promise<RunResult> {
  const runId = `run-${randomUUID().slice(0, 8)}`;
  const message = 'Write notes about this project';
  const request = { runId, message, userMode: 'agent', reasoningEnabled: true, projectRoot: project } as const;
  const { conversationId, end } = await runToEnd(on, request, 30_000);
  const stored = (await on.store.readStream(streams.run(runId))) as unknown as StagecraftEvent[];
  return { runId, conversationId, end, stored, project };
}

function newProject(dir: string, name: string): string {
  const project = join(dir, name);
  mkdirSync(project);
  writeFileSync(join(project, 'README.md'), '# Sample\nA tiny project.\n');
  return project;
}

describe('the same run, embedded and distributed', () => {
  let server: ScriptedModelServer;
  let dir: string;
  let embedded: RunResult;
  let distributed: RunResult;

  beforeAll(async () => {
    server = await startScriptedModelServer({ script: readWriteAgentScript });
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-equivalence-'));
  });

  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('embedded: six services in one process, in-process bus, sqlite', () => {
    let system: EmbeddedSystem;

    beforeAll(async () => {
      system = await startEmbeddedSystem({ modelUrl: server.url, storePath: join(dir, 'embedded.db') });
    });

    afterAll(async () => {
      await system?.stop();
    });

    it('completes the run', async () => {
      embedded = await runOnce(system, newProject(dir, 'embedded-project'));
      expect(embedded.end).toMatchObject({
        type: 'RunCompleted',
        data: { deliveryState: 'DONE', answer: 'Wrote NOTES.md from the README.' },
      });
    });
  });

  describe('distributed: six processes over a real nats-server, one sqlite file', () => {
    const prefix = 'equivalence';
    let system: DistributedSystem;
    let services: ServiceProcess[] = [];
    let bus: MessageBus;
    let requester: Requester;
    let store: EventStore;

    beforeAll(async () => {
      system = await startDistributedSystem({
        prefix,
        storePath: join(dir, 'distributed.db'),
        env: { STAGECRAFT_PROJECT_ROOT: dir, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'test', STAGECRAFT_MODEL: 'scripted' },
      });
      ({ services, bus, requester, store } = system);
    }, 60_000);

    afterAll(async () => {
      const codes = await system?.stop();
      expect(codes).toEqual(services.map(() => 0));
    });

    it('completes the run', async () => {
      distributed = await runOnce({ bus, requester, prefix, store }, newProject(dir, 'distributed-project'));
      const failure =
        distributed.end.type === 'RunFailed' ? { ...distributed.end.data, logs: services.map((s) => s.output()).join('\n') } : undefined;
      expect(failure).toBeUndefined();
      expect(distributed.end).toMatchObject({
        type: 'RunCompleted',
        data: { deliveryState: 'DONE', answer: 'Wrote NOTES.md from the README.' },
      });
    });
  });

  describe('both runs', () => {
    const both = () => [embedded, distributed].filter((r): r is RunResult => r !== undefined);
    const requestsOf = (run: RunResult) =>
      server.requests.filter((r) => r.path === '/chat/completions' && r.headers['x-stagecraft-run-id'] === run.runId);
    const toolNames = (r: RecordedRequest): string[] =>
      (r.body.tools ?? []).map((t: { function: { name: string } }) => t.function.name).sort();

    it('ran in both deployments', () => {
      expect(both()).toHaveLength(2);
    });

    it('stored the same sequence of event types', () => {
      const types = (run: RunResult) => run.stored.map((e) => e.type);
      expect(types(distributed)).toEqual(types(embedded));
      expect(types(embedded).at(-1)).toBe('RunCompleted');
      const stages = (run: RunResult) => run.stored.flatMap((e) => (e.type === 'StageEntered' ? [e.data.stage] : []));
      expect(stages(embedded)).toEqual(['warmup', 'act', 'tool_followup', 'tool_followup', 'delivery_check', 'qa_review']);
      expect(stages(distributed)).toEqual(stages(embedded));
    });

    it('read README.md and wrote NOTES.md in each project', () => {
      for (const run of both()) {
        const completed = run.stored.flatMap((e) => (e.type === 'ToolCallCompleted' ? [[e.data.tool, e.data.ok]] : []));
        expect(completed).toEqual([
          ['read_file', true],
          ['write_file', true],
        ]);
        const readResult = run.stored.find((e) => e.type === 'ToolCallCompleted' && e.data.tool === 'read_file');
        expect(readResult?.type === 'ToolCallCompleted' && readResult.data.output).toContain('A tiny project.');
        expect(readFileSync(join(run.project, 'NOTES.md'), 'utf8')).toBe('Sample project notes.\n');
      }
    });

    it('passed delivery and got a QA report', () => {
      for (const run of both()) {
        expect(run.stored.filter((e) => e.type === 'DeliveryChecked').map((e) => e.data)).toEqual([
          expect.objectContaining({ state: 'DONE' }),
        ]);
        const qa = run.stored.find((e) => e.type === 'QAReportIssued');
        expect(qa?.data).toMatchObject({ report: { verdict: 'pass', summary: 'The notes match the README.' } });
      }
    });

    it('sent the three headers on every request', () => {
      for (const run of both()) {
        const requests = requestsOf(run);
        for (const r of requests) {
          expect({
            run: r.headers['x-stagecraft-run-id'],
            conversation: r.headers['x-stagecraft-conversation-id'],
            stage: r.headers['x-stagecraft-stage'],
          }).toEqual({
            run: run.runId,
            conversation: run.conversationId,
            stage: expect.stringMatching(/^(warmup|act|tool_followup|delivery_check|qa_review)$/),
          });
        }
        expect(requests.map((r) => r.stage)).toEqual(['warmup', 'act', 'tool_followup', 'tool_followup', 'delivery_check', 'qa_review']);
      }
    });

    it('let the delivery check call no tool (the run’s tools offered with tool_choice none) and offered only read-only tools to QA', () => {
      for (const run of both()) {
        const requests = requestsOf(run);
        const delivery = requests.filter((r) => r.stage === 'delivery_check');
        const qa = requests.filter((r) => r.stage === 'qa_review');
        expect(delivery.length).toBeGreaterThan(0);
        expect(qa.length).toBeGreaterThan(0);
        const acting = toolNames(requests.find((q) => q.stage === 'act')!);
        for (const r of delivery) expect({ tools: toolNames(r), choice: r.body.tool_choice }).toEqual({ tools: acting, choice: 'none' });
        for (const r of qa) expect(toolNames(r)).toEqual(READ_ONLY);
        for (const r of requests.filter((q) => q.stage === 'act' || q.stage === 'tool_followup'))
          expect(toolNames(r)).toEqual(expect.arrayContaining(['read_file', 'write_file']));
      }
    });

    it('asked for reasoning in the prompt of every step, and never carried reasoning anywhere else', () => {
      for (const run of both()) {
        for (const r of requestsOf(run)) {
          const messages = r.body.messages as { role: string; content?: string | null }[];
          // The prompt: the system message first and, for the run's own stages, the stage's part last (docs/decisions/0052).
          const prompt = messages.filter((m) => m.role === 'system');
          expect({
            stage: r.stage,
            first: messages[0].role,
            asks: prompt.some((m) => String(m.content).includes('<ide_reasoning>')),
          }).toEqual({
            stage: r.stage,
            first: 'system',
            asks: true,
          });
          const rest = messages.filter((m) => m.role !== 'system');
          const leaked = rest.filter((m) => String(m.content ?? '').includes('<ide_reasoning>'));
          expect({ stage: r.stage, leaked }).toEqual({ stage: r.stage, leaked: [] });
        }
      }
    });
  });
});

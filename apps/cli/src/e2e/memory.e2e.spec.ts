import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventData, streams } from '@stagecraft/contracts';
import { EventStore } from '@stagecraft/event-store';
import { memoryScopeOf } from '@stagecraft/contracts';
import { runOutcomeMemoryId } from '@stagecraft/memory-service';
import { RecordedRequest, ScriptedModelServer, ScriptedReply, startScriptedModelServer } from '@stagecraft/scripted-model';
import { eventually, macroReasoning, microReasoning, QA_PASS_REPORT } from '@stagecraft/testing';
import { runToEnd } from './embedded-system';
import { ScriptedDeployment, distributedDeployment, embeddedDeployment } from './scripted-deployments';

/**
 * Long-term memory from the outside, in both deployments (docs/decisions/0021): a run that ends DONE
 * leaves a run-outcome memory that the next conversation's warmup shows; a failed run leaves none;
 * the model's own memory_retain / memory_recall / memory_reflect calls run and are recorded (what it
 * retains counts once its run ends DONE).
 */

type Message = { role: string; content?: string | null };
const messagesOf = (r: RecordedRequest): Message[] => r.body.messages ?? [];
const toolResults = (r: RecordedRequest) => messagesOf(r).filter((m) => m.role === 'tool');

/** `fail-*` runs meet a broken model; `tools-*` runs call the three memory tools in turn; every other run answers at once. */
function script(request: RecordedRequest): ScriptedReply {
  const runId = request.headers['x-stagecraft-run-id'] ?? '';
  switch (request.stage) {
    case 'warmup':
      return { content: `${macroReasoning()}\nI will look into it.` };
    case 'act':
    case 'tool_followup': {
      if (runId.startsWith('fail-')) return { status: 400, content: 'the model refuses this run' };
      const done = toolResults(request).length;
      if (runId.startsWith('tools-') && done < 3) {
        const calls = [
          { name: 'memory_retain', arguments: { content: 'The gateway speaks the OpenAI chat protocol', tier: 'architecture' } },
          { name: 'memory_recall', arguments: { query: 'gateway protocol' } },
          { name: 'memory_reflect', arguments: { query: 'gateway protocol' } },
        ];
        return { content: microReasoning(`call ${calls[done].name}`), toolCalls: [{ id: `call_${done + 1}`, ...calls[done] }] };
      }
      return { content: `${microReasoning('answer', 'DONE')}\nThe build is configured in tsconfig.build.json for ${runId}.` };
    }
    case 'delivery_check':
      return { content: `${microReasoning('hand over', 'DONE')}\nDone.` };
    case 'qa_review':
      return { content: `${microReasoning('report', 'DONE')}\n${QA_PASS_REPORT}` };
    default:
      return { status: 500, content: `unexpected stage ${request.stage}` };
  }
}

type Deployment = ScriptedDeployment;

function describeDeployment(name: string, start: (dir: string, server: ScriptedModelServer) => Promise<Deployment>) {
  describe(`${name}: long-term memory`, () => {
    let server: ScriptedModelServer;
    let dir: string;
    let project: string;
    let d: Deployment;
    const requestsOf = (runId: string) =>
      server.requests.filter((r) => r.path === '/chat/completions' && r.headers['x-stagecraft-run-id'] === runId);
    const run = async (runId: string, message: string) =>
      (
        await runToEnd(
          d,
          { runId, conversationId: `conv-${runId}`, message, userMode: 'agent', reasoningEnabled: true, projectRoot: project },
          60_000,
        )
      ).end;
    const memoryEvents = async () => d.store.readStream(streams.memory(memoryScopeOf(project)));

    beforeAll(async () => {
      server = await startScriptedModelServer({ script });
      dir = mkdtempSync(join(tmpdir(), `stagecraft-memory-${name}-`));
      project = join(dir, 'project');
      mkdirSync(project);
      d = await start(dir, server);
    }, 60_000);

    afterAll(async () => {
      await d?.close();
      await server?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    const first = `first-${name}`;
    const failed = `fail-${name}`;
    const second = `second-${name}`;
    const tools = `tools-${name}`;

    it('retains a run outcome when a run ends DONE, and nothing when a run fails', async () => {
      expect(await run(first, 'Where is the build configured?')).toMatchObject({ type: 'RunCompleted', data: { deliveryState: 'DONE' } });
      expect(await run(failed, 'Where is the build configured, once more?')).toMatchObject({ type: 'RunFailed' });
      const events = await eventually(async () => {
        const found = await memoryEvents();
        return found.length > 0 ? found : undefined;
      }, 'the run-outcome memory');
      expect(events.map((e) => [e.type, e.data])).toEqual([
        [
          'MemoryRetained',
          expect.objectContaining({
            memoryId: runOutcomeMemoryId(first),
            tier: 'run_outcome',
            content: `Request: Where is the build configured?\nAnswer: The build is configured in tsconfig.build.json for ${first}.`,
            source: expect.objectContaining({ runId: first }),
          }),
        ],
      ]);
    });

    it('shows the outcome, with its source run, in the warmup prompt of the next conversation on the project', async () => {
      expect(await run(second, 'How is the build configured?')).toMatchObject({ type: 'RunCompleted' });
      const [warmup] = requestsOf(second);
      expect(warmup.stage).toBe('warmup');
      // The warmup's own part of the prompt, after the history (docs/decisions/0052).
      const system = String(messagesOf(warmup).at(-1)?.content);
      expect(system).toContain("## Recalled from this project's memory");
      expect(system).toContain(
        `(run_outcome; memory ${runOutcomeMemoryId(first)}, from run ${first}) Request: Where is the build configured?`,
      );
      // The first run's own warmup had nothing to recall.
      expect(
        messagesOf(requestsOf(first)[0])
          .map((m) => String(m.content))
          .join('\n'),
      ).not.toContain('Recalled from');
      // The failed run never became a memory, even once later runs were retained.
      await eventually(async () => ((await memoryEvents()).length >= 2 ? true : undefined), 'the second run-outcome memory');
      const sources = (await memoryEvents()).map((e) => (e.data as EventData<'MemoryRetained'>).source?.runId);
      expect(sources).not.toContain(failed);
    });

    it('runs the model’s own memory_retain, memory_recall and memory_reflect calls and records them as events', async () => {
      expect(await run(tools, 'Remember how the gateway talks to models.')).toMatchObject({ type: 'RunCompleted' });
      const last = requestsOf(tools)
        .filter((r) => r.stage === 'tool_followup' || r.stage === 'act')
        .at(-1)!;
      const texts = toolResults(last).map((m) => String(m.content));
      expect(texts).toHaveLength(3);
      expect(texts[0]).toMatch(/Retained memory m-[0-9a-f]{24} \(architecture\)/);
      // Retained inside this run, which has not ended DONE yet: kept, but neither recalled nor linked.
      // Recall answers the latest run outcomes whatever the words (docs/decisions/0058).
      expect(texts[1]).not.toContain('The gateway speaks');
      expect(texts[1]).toContain(`from run ${second}`);
      expect(texts[2]).toContain('No memory in scope');
      const offered = (last.body.tools ?? []).map((t: { function: { name: string } }) => t.function.name);
      expect(offered).toEqual(expect.arrayContaining(['memory_recall', 'memory_retain', 'memory_reflect']));
      const events = await memoryEvents();
      expect(
        events.find((e) => e.type === 'MemoryRetained' && (e.data as EventData<'MemoryRetained'>).tier === 'architecture')?.data,
      ).toMatchObject({
        content: 'The gateway speaks the OpenAI chat protocol',
        source: { runId: tools },
      });
      const runLog = await d.store.readStream(streams.run(tools));
      expect(runLog.filter((e) => e.type === 'ToolCallRequested').map((e) => (e.data as { tool: string }).tool)).toEqual([
        'memory_retain',
        'memory_recall',
        'memory_reflect',
      ]);
    });
  });
}

describeDeployment('embedded', (dir, server) => embeddedDeployment(dir, server.url));

describeDeployment('distributed', (dir, server) => distributedDeployment(dir, server.url, 'memory'));

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventData, memoryScopeOf, streams } from '@stagecraft/contracts';
import { projectFactMemoryId, runOutcomeMemoryId } from '@stagecraft/memory-service';
import { RecordedRequest, ScriptedModelServer, ScriptedReply, startScriptedModelServer } from '@stagecraft/scripted-model';
import { eventually, macroReasoning, microReasoning, QA_PASS_REPORT, toolResultsIn } from '@stagecraft/testing';
import { runToEnd } from './embedded-system';
import { ScriptedDeployment, distributedDeployment, embeddedDeployment } from './scripted-deployments';

/**
 * Memory that helps (docs/decisions/0058), in both deployments: a run that adds NOTES.md and runs the
 * tests ends DONE; a new conversation asking "What changed in this project lately?", which shares no
 * word with that run, is shown its outcome, in chat mode and in agent mode with reasoning off, in the
 * trailing stage part of its first request only; the test command that passed is a `project` memory.
 */

type Message = { role: string; content?: string | null };
const messagesOf = (r: RecordedRequest): Message[] => r.body.messages ?? [];
const NOTES_REQUEST = 'Add a NOTES.md that summarises README.md';
const LATELY = 'What changed in this project lately?';

const ANSWER = 'Lately NOTES.md was added, a summary of README.md.';

/** `notes-*` writes NOTES.md and runs `make test`; `*-on-*` answers with reasoning, every other run in plain text. */
function script(request: RecordedRequest): ScriptedReply {
  const runId = request.headers['x-stagecraft-run-id'] ?? '';
  if (request.stage === 'qa_review') return { content: `${microReasoning('report', 'DONE')}\n${QA_PASS_REPORT}` };
  const notes = runId.startsWith('notes-');
  if (!notes && !runId.includes('-on-')) return { content: ANSWER };
  const done = toolResultsIn(request.body);
  switch (request.stage) {
    case 'warmup':
      return { content: `${macroReasoning()}\nI will look into it.` };
    case 'act':
    case 'tool_followup':
      if (!notes) return { content: `${microReasoning('answer', 'DONE')}\n${ANSWER}` };
      if (done === 0)
        return {
          content: microReasoning('write NOTES.md'),
          toolCalls: [{ id: 'call_write', name: 'write_file', arguments: { path: 'NOTES.md', content: 'Notes: a sample project.\n' } }],
        };
      if (done === 1)
        return {
          content: microReasoning('run the tests'),
          toolCalls: [{ id: 'call_test', name: 'run_command', arguments: { command: 'make', args: ['test'] } }],
        };
      return { content: `${microReasoning('finish', 'DONE')}\nAdded NOTES.md, a summary of README.md; make test passes.` };
    case 'delivery_check':
      return { content: `${microReasoning('hand over', 'DONE')}\nNOTES.md is written.` };
    default:
      return { status: 500, content: `unexpected stage ${request.stage}` };
  }
}

function describeDeployment(name: string, start: (dir: string, server: ScriptedModelServer) => Promise<ScriptedDeployment>) {
  describe(`${name}: memory that helps`, () => {
    let server: ScriptedModelServer;
    let dir: string;
    let project: string;
    let d: ScriptedDeployment;
    const requestsOf = (runId: string) =>
      server.requests.filter(
        (r) => r.path === '/chat/completions' && r.headers['x-stagecraft-run-id'] === runId && r.stage !== 'qa_review',
      );
    const run = async (runId: string, message: string, userMode: 'agent' | 'chat', reasoningEnabled: boolean) =>
      (await runToEnd(d, { runId, conversationId: `conv-${runId}`, message, userMode, reasoningEnabled, projectRoot: project }, 60_000))
        .end;
    const retained = async () =>
      (await d.store.readStream(streams.memory(memoryScopeOf(project))))
        .filter((e) => e.type === 'MemoryRetained')
        .map((e) => e.data as EventData<'MemoryRetained'>);

    beforeAll(async () => {
      server = await startScriptedModelServer({ script });
      dir = mkdtempSync(join(tmpdir(), `stagecraft-memory-recency-${name}-`));
      project = join(dir, 'project');
      mkdirSync(project);
      writeFileSync(join(project, 'README.md'), '# Sample\nA sample project.\n');
      writeFileSync(join(project, 'Makefile'), 'test:\n\t@echo all tests pass\n');
      d = await start(dir, server);
    }, 60_000);

    afterAll(async () => {
      await d?.close();
      await server?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    const notes = `notes-${name}`;

    it('ends the NOTES.md run DONE and retains its outcome and the test command that passed', async () => {
      expect(await run(notes, NOTES_REQUEST, 'agent', true)).toMatchObject({ type: 'RunCompleted', data: { deliveryState: 'DONE' } });
      const memories = await eventually(async () => {
        const found = await retained();
        return found.length >= 2 ? found : undefined;
      }, 'the run outcome and the project fact');
      expect(memories.map((m) => [m.memoryId, m.tier, m.content])).toEqual([
        [runOutcomeMemoryId(notes), 'run_outcome', expect.stringContaining(`Request: ${NOTES_REQUEST}`)],
        [projectFactMemoryId('test', 'make test'), 'project', 'Test command (runs the tests; it ran and passed): make test'],
      ]);
    });

    it.each([
      ['chat mode', 'chat', false],
      ['agent mode with reasoning off', 'agent', false],
      ['agent mode with reasoning on', 'agent', true],
    ] as const)(
      'shows the outcome to "What changed lately?" in %s, in the first request’s stage part only',
      async (_label, mode, reasoning) => {
        const runId = `lately-${mode}-${reasoning ? 'on' : 'off'}-${name}`;
        expect(await run(runId, LATELY, mode, reasoning)).toMatchObject({ type: 'RunCompleted' });
        const [first, ...later] = requestsOf(runId);
        expect(first.stage).toBe(reasoning ? 'warmup' : 'act');
        const stagePart = String(messagesOf(first).at(-1)?.content);
        expect(stagePart).toContain("## Recalled from this project's memory");
        expect(stagePart).toContain(`(run_outcome; memory ${runOutcomeMemoryId(notes)}, from run ${notes}) Request: ${NOTES_REQUEST}`);
        // Never in the run's shared head (docs/decisions/0052), nor in any later request of the run.
        expect(String(messagesOf(first)[0].content)).not.toContain('Recalled from');
        for (const request of later) {
          expect(
            messagesOf(request)
              .filter((m) => m.role === 'system')
              .map((m) => String(m.content))
              .join('\n'),
          ).not.toContain('Recalled from');
        }
      },
    );
  });
}

describeDeployment('embedded', (dir, server) => embeddedDeployment(dir, server.url));

describeDeployment('distributed', (dir, server) => distributedDeployment(dir, server.url, 'memrecency'));

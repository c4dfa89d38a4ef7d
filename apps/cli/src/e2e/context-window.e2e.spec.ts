import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventData, runEvents, streams } from '@stagecraft/contracts';
import { readEvents } from '@stagecraft/event-store';
import { DEFAULT_RUN_LIMITS, answerReserve, replayRun } from '@stagecraft/run';
import { RecordedRequest, ScriptedModelServer, ScriptedReply, startScriptedModelServer } from '@stagecraft/scripted-model';
import { QA_PASS_REPORT, macroReasoning, microReasoning } from '@stagecraft/testing';
import { ScriptedDeployment, distributedDeployment } from './scripted-deployments';
import { runToEnd, startEmbeddedSystem } from './embedded-system';

/**
 * Decision 0050: with a window of 32,000 tokens (an option embedded, `STAGECRAFT_CONTEXT_WINDOW` distributed), a
 * run that reads three 300 KB files never sends a request over it. Either its tool outputs are cut to fit (and it finishes) or it ends with the window as its cause; it
 * never sends what does not fit. What the scripted model received is measured the way requests are
 * recorded (about four characters a token), over the wire format, which only adds characters.
 */
const WINDOW = 32_000;
const FILE_BYTES = 300_000;
const FILES = ['big1.txt', 'big2.txt', 'big3.txt'];

type Wire = { content?: string | null; tool_calls?: unknown };
const messagesOf = (r: RecordedRequest): Wire[] => r.body?.messages ?? [];
/** An upper bound of the estimate the run records for this request (`ModelRequested.tokenEstimate`). */
const tokensSent = (r: RecordedRequest): number =>
  Math.ceil(
    messagesOf(r).reduce(
      (sum, m) => sum + String(m.content ?? '').length + (m.tool_calls ? JSON.stringify(m.tool_calls).length : 0),
      r.body?.tools ? JSON.stringify(r.body.tools).length : 0,
    ) / 4,
  );

const ROUNDS = 3;

/**
 * Reads the three files in a round of parallel calls, three rounds over (what it read before comes back
 * in the tool results it still sees, or in their summary), then answers.
 */
function script(request: RecordedRequest): ScriptedReply {
  const runId = request.headers['x-stagecraft-run-id'] ?? '';
  const calls = server.requests.filter(
    (r) => r.headers['x-stagecraft-run-id'] === runId && (r.stage === 'act' || r.stage === 'tool_followup'),
  ).length;
  switch (request.stage) {
    case 'warmup':
      return { content: `${macroReasoning()}\nI will read the files.` };
    case 'act':
    case 'tool_followup':
      if (calls <= ROUNDS)
        return {
          content: microReasoning(`read the three files (round ${calls})`),
          toolCalls: FILES.map((path, i) => ({ id: `call_${calls}_${i + 1}`, name: 'read_file', arguments: { path } })),
        };
      return { content: `${microReasoning('answer', 'DONE')}\nThe three files hold lines of text.` };
    case 'delivery_check':
      return { content: `${microReasoning('hand over', 'DONE')}\nDone.` };
    case 'qa_review':
      return { content: `${microReasoning('report', 'DONE')}\n${QA_PASS_REPORT}` };
    default:
      return { status: 500, content: `unexpected stage ${request.stage}` };
  }
}

let server: ScriptedModelServer;

function describeDeployment(name: string, start: (dir: string) => Promise<ScriptedDeployment>) {
  describe(`${name}: a run bounded by its context window (STAGECRAFT_CONTEXT_WINDOW=32000)`, () => {
    let dir: string;
    let project: string;
    let d: ScriptedDeployment;
    const readRun = `window-read-${name}`;
    const overRun = `window-over-${name}`;
    const requestsOf = (runId: string) =>
      server.requests.filter((r) => r.path === '/chat/completions' && r.headers['x-stagecraft-run-id'] === runId);
    const send = (runId: string, message: string) =>
      runToEnd(d, { runId, message, userMode: 'agent', reasoningEnabled: true, projectRoot: project }, 120_000);

    beforeAll(async () => {
      server = await startScriptedModelServer({ script });
      dir = mkdtempSync(join(tmpdir(), `stagecraft-window-${name}-`));
      project = join(dir, 'project');
      mkdirSync(project);
      const line = (file: string, n: number) => `${file} line ${String(n).padStart(5, '0')}: ${'lorem ipsum dolor sit amet '.repeat(2)}\n`;
      for (const file of FILES) {
        let text = '';
        for (let n = 1; text.length < FILE_BYTES; n++) text += line(file, n);
        writeFileSync(join(project, file), text.slice(0, FILE_BYTES));
      }
      d = await start(dir);
    }, 60_000);

    afterAll(async () => {
      await d?.close();
      await server?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('reads three 300 KB files, three times over, without ever sending a request over the window', async () => {
      const { end } = await send(readRun, 'Read big1.txt, big2.txt and big3.txt and tell me what they hold.');
      const log = await readEvents(d.store, streams.run(readRun), runEvents);
      const started = log[0].data as EventData<'RunStarted'>;
      expect(started.limits?.contextWindow).toBe(WINDOW);
      expect(log.filter((e) => e.type === 'ToolCallRequested').length).toBeGreaterThanOrEqual(FILES.length);

      const sent = requestsOf(readRun);
      expect(sent.length).toBeGreaterThan(1);
      for (const tokens of sent.map(tokensSent)) expect(tokens).toBeLessThanOrEqual(WINDOW - answerReserve(WINDOW));
      // What the run recorded agrees: no request it logged is over the window either.
      const recorded = log.flatMap((e) => (e.type === 'ModelRequested' ? [(e.data as EventData<'ModelRequested'>).tokenEstimate] : []));
      expect(Math.max(...recorded)).toBeLessThanOrEqual(WINDOW);

      // Either it finished, or it ended on the window, never on anything else.
      if (end.type === 'RunFailed')
        expect(end.data).toMatchObject({ code: 'INVARIANT_VIOLATION', reason: expect.stringMatching(/context window/) });
      else expect(end).toMatchObject({ type: 'RunCompleted' });
      expect(replayRun(log, DEFAULT_RUN_LIMITS)).toMatchObject({ identical: true });
      // The runs view counts the compactions the window made (each starts a new prompt prefix).
      const compactions = log.filter((e) => e.type === 'HistoryCompacted').length;
      const { run } = await d.requester.request('runs.get', { runId: readRun });
      expect(run?.compactions).toBe(compactions > 0 ? compactions : undefined);
    }, 180_000);

    it('ends a run whose request cannot fit with that cause, and sends the model nothing', async () => {
      const pasted = `Summarise this paste:\n${'a long pasted log line that goes on and on\n'.repeat(3_800)}`;
      const { end } = await send(overRun, pasted);
      expect(end).toMatchObject({
        type: 'RunFailed',
        data: {
          code: 'INVARIANT_VIOLATION',
          reason: expect.stringMatching(/^context window: the request would carry about [\d,]+ tokens/),
        },
      });
      expect(requestsOf(overRun)).toEqual([]);
      const log = await readEvents(d.store, streams.run(overRun), runEvents);
      const [request] = log.flatMap((e) => (e.type === 'ModelRequested' ? [e.data as EventData<'ModelRequested'>] : []));
      // The log keeps what would have been sent, and that it was over the window.
      expect(request.tokenEstimate).toBeGreaterThan(WINDOW - answerReserve(WINDOW));
      expect(log.some((e) => e.type === 'ModelResponded')).toBe(false);
    }, 60_000);
  });
}

describeDeployment('embedded', async (dir) => {
  const system = await startEmbeddedSystem({
    modelUrl: server.url,
    storePath: join(dir, 'embedded.db'),
    timeoutMs: 30_000,
    conversation: { limits: { contextWindow: WINDOW } },
  });
  return { ...system, close: () => system.stop() };
});

describeDeployment('distributed', (dir) => distributedDeployment(dir, server.url, 'window', { STAGECRAFT_CONTEXT_WINDOW: String(WINDOW) }));

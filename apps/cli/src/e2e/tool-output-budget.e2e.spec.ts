import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventData, runEvents, streams } from '@stagecraft/contracts';
import { readEvents } from '@stagecraft/event-store';
import { restoreRequests } from '@stagecraft/conversation-service';
import { DEFAULT_RUN_LIMITS, auditRun, replayRun, roundBudgetChars } from '@stagecraft/run';
import { RecordedRequest, ScriptedModelServer, ScriptedReply, startScriptedModelServer } from '@stagecraft/scripted-model';
import { QA_PASS_REPORT, macroReasoning, microReasoning } from '@stagecraft/testing';
import { EmbeddedSystem, runToEnd, startEmbeddedSystem } from './embedded-system';

/**
 * Decisions 0049 and 0050: with a window of 32,000 tokens, one round reading three 300 KB files and a
 * long command output is shown to the model within a quarter of the window, as heads, tails and handles;
 * the model reads a range through each handle; the log keeps every output whole (the tool-result message refers to it).
 */
const WINDOW = 32_000;
const FILES = ['big1.txt', 'big2.txt', 'big3.txt'];
const ROWS = "for (let i = 1; i <= 2500; i++) console.log('row ' + i + ' ' + 'z'.repeat(10))";

type Wire = { role?: string; content?: string | null; tool_call_id?: string };
const messagesOf = (r: RecordedRequest): Wire[] => r.body?.messages ?? [];
const toolMessages = (r: RecordedRequest) => messagesOf(r).filter((m) => m.role === 'tool');
const handle = (text: string, tool: string): Record<string, unknown> => {
  const found = new RegExp(`${tool} (\\{[^\\n]*\\})\\]$`, 'm').exec(text);
  if (!found) throw new Error(`no ${tool} handle in a tool result`);
  return JSON.parse(found[1]) as Record<string, unknown>;
};
/** Three lines from where the left-out part starts. */
const threeLines = (args: Record<string, unknown>): Record<string, unknown> => ({ ...args, endLine: Number(args.startLine) + 2 });

function script(request: RecordedRequest): ScriptedReply {
  const results = toolMessages(request);
  switch (request.stage) {
    case 'warmup':
      return { content: `${macroReasoning()}\nI will read the files and list the rows.` };
    case 'act':
    case 'tool_followup': {
      const single = messagesOf(request).some((m) => m.role === 'user' && String(m.content ?? '').includes('mid.txt'));
      if (single && results.length === 0)
        return {
          content: microReasoning('read mid.txt'),
          toolCalls: [{ id: 'call_1', name: 'read_file', arguments: { path: 'mid.txt' } }],
        };
      if (single) return { content: `${microReasoning('answer', 'DONE')}\nmid.txt holds numbered lines.` };
      if (results.length === 0)
        return {
          content: microReasoning('read the files and list the rows'),
          toolCalls: [
            ...FILES.map((path, i) => ({ id: `call_${i + 1}`, name: 'read_file', arguments: { path } })),
            { id: 'call_4', name: 'run_command', arguments: { command: 'node', args: ['-e', ROWS] } },
          ],
        };
      if (results.length === 4) {
        const [file, , , command] = results.map((m) => String(m.content ?? ''));
        return {
          content: microReasoning('read what was left out'),
          toolCalls: [
            { id: 'call_5', name: 'read_file', arguments: threeLines(handle(file, 'read_file')) },
            { id: 'call_6', name: 'read_tool_output', arguments: threeLines(handle(command, 'read_tool_output')) },
          ],
        };
      }
      return { content: `${microReasoning('answer', 'DONE')}\nThe files hold numbered lines.` };
    }
    case 'delivery_check':
      return { content: `${microReasoning('hand over', 'DONE')}\nDone.` };
    case 'qa_review':
      return { content: `${microReasoning('report', 'DONE')}\n${QA_PASS_REPORT}` };
    default:
      return { status: 500, content: `unexpected stage ${request.stage}` };
  }
}

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/**
 * Bytes a run's tool rounds take in the log (run stream and tool-call streams, data and metadata), as
 * stored, and as they were when the tool-result message repeated the output whole.
 */
async function roundBytes(system: EmbeddedSystem, runId: string): Promise<{ before: number; after: number; calls: number }> {
  const run = await system.store.readStream(streams.run(runId));
  const outputs = new Map<string, string>();
  let before = 0;
  let after = 0;
  const callIds: string[] = [];
  for (const e of run) {
    const data = e.data as Record<string, unknown>;
    if (e.type === 'ToolCallRequested') callIds.push(String(data.callId));
    if (e.type === 'ToolCallCompleted') outputs.set(String(data.callId), String(data.output));
    const result = e.type === 'MessageAppended' && data.kind === 'tool_result';
    if (!['ToolCallRequested', 'ToolCallCompleted'].includes(e.type) && !result) continue;
    const size = bytes(e.data) + bytes(e.metadata);
    after += size;
    if (!result) {
      before += size;
      continue;
    }
    // As stored before: the whole output in the message's content, no reference.
    const callId = callIds.find((id) => id.endsWith(`.${String(data.toolCallId)}`)) ?? '';
    const { outputOf: _reference, ...rest } = data;
    before += bytes({ ...rest, content: outputs.get(callId) ?? data.content }) + bytes(e.metadata);
  }
  for (const callId of callIds)
    for (const e of await system.store.readStream(streams.toolCall(callId))) {
      before += bytes(e.data) + bytes(e.metadata);
      after += bytes(e.data) + bytes(e.metadata);
    }
  return { before, after, calls: callIds.length };
}

const report = (what: string, m: { before: number; after: number; calls: number }) =>
  console.log(
    `tool round bytes (${what}, ${m.calls} call(s)): before ${m.before}, after ${m.after} (${Math.round((100 * (m.before - m.after)) / m.before)}% less)`,
  );

describe('tool outputs past the round budget (STAGECRAFT_CONTEXT_WINDOW=32000)', () => {
  let server: ScriptedModelServer;
  let dir: string;
  let project: string;
  let system: EmbeddedSystem;

  beforeAll(async () => {
    server = await startScriptedModelServer({ script });
    dir = mkdtempSync(join(tmpdir(), 'stagecraft-tool-budget-'));
    project = join(dir, 'project');
    mkdirSync(project);
    for (const file of FILES) {
      let text = '';
      for (let n = 1; text.length < 300_000; n++) text += `${file} line ${n}: ${'lorem ipsum dolor sit amet '.repeat(2)}\n`;
      writeFileSync(join(project, file), text);
    }
    writeFileSync(join(project, 'mid.txt'), Array.from({ length: 400 }, (_, i) => `mid line ${i + 1}: ${'words '.repeat(8)}`).join('\n'));
    system = await startEmbeddedSystem({
      modelUrl: server.url,
      storePath: join(dir, 'events.db'),
      timeoutMs: 30_000,
      conversation: { limits: { contextWindow: WINDOW } },
    });
  }, 60_000);

  afterAll(async () => {
    await system?.stop();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows one round within the budget, reads ranges through the handles, and keeps each output whole once', async () => {
    const runId = 'budget-read';
    const { end } = await runToEnd(
      system,
      { runId, message: 'Read the three files and list the rows.', userMode: 'agent', reasoningEnabled: true, projectRoot: project },
      120_000,
    );
    expect(end).toMatchObject({ type: 'RunCompleted' });
    const sent = server.requests.filter((r) => r.path === '/chat/completions' && r.headers['x-stagecraft-run-id'] === runId);

    // The request after the round: four results within a quarter of the window, each with its handle.
    const afterRound = sent.find((r) => toolMessages(r).length === 4);
    const shown = toolMessages(afterRound!).map((m) => String(m.content));
    const total = shown.reduce((sum, text) => sum + text.length, 0);
    expect(total).toBeLessThanOrEqual(roundBudgetChars(WINDOW));
    for (const text of shown.slice(0, 3))
      expect(text).toMatch(/left out here to keep the request within the context window; read them in parts with read_file/);
    expect(shown[3]).toMatch(/read them in parts with read_tool_output \{"callId":"budget-read\.m\d+\.call_4"/);
    // Every later request repeats the view byte for byte.
    for (const later of sent.slice(sent.indexOf(afterRound!) + 1).filter((r) => toolMessages(r).length >= 4))
      expect(
        toolMessages(later)
          .slice(0, 4)
          .map((m) => String(m.content)),
      ).toEqual(shown);

    // The ranges read through the handles are the lines that were left out.
    const afterRanges = sent.find((r) => toolMessages(r).length === 6)!;
    const [fileRange, commandRange] = toolMessages(afterRanges)
      .slice(4)
      .map((m) => String(m.content));
    const fileArgs = threeLines(handle(shown[0], 'read_file'));
    const fileLines = readFileSync(join(project, 'big1.txt'), 'utf8').split('\n');
    expect(fileRange).toBe(fileLines.slice(Number(fileArgs.startLine) - 1, Number(fileArgs.endLine)).join('\n'));
    const commandArgs = threeLines(handle(shown[3], 'read_tool_output'));

    const log = await readEvents(system.store, streams.run(runId), runEvents);
    const completed = log.flatMap((e) => (e.type === 'ToolCallCompleted' ? [e.data as EventData<'ToolCallCompleted'>] : []));
    const commandOutput = completed.find((c) => c.tool === 'run_command')!.output;
    expect(commandRange).toBe(
      commandOutput
        .split('\n')
        .slice(Number(commandArgs.startLine) - 1, Number(commandArgs.endLine))
        .join('\n'),
    );
    expect(commandRange).toMatch(/^row \d+ z{10}\nrow \d+ z{10}\nrow \d+ z{10}$/);

    // The log: each output whole in ToolCallCompleted; a message repeats none of them (clipped views, or by reference).
    expect(completed.filter((c) => c.tool === 'read_file').map((c) => c.output.length)).toEqual([
      expect.any(Number),
      expect.any(Number),
      expect.any(Number),
      expect.any(Number),
    ]);
    expect(
      Math.min(
        ...completed
          .filter((c) => c.tool === 'read_file')
          .slice(0, 3)
          .map((c) => c.output.length),
      ),
    ).toBeGreaterThan(200_000);
    const results = log.flatMap((e) =>
      e.type === 'MessageAppended' && e.data.kind === 'tool_result' ? [e.data as EventData<'MessageAppended'>] : [],
    );
    for (const c of completed) expect(results.some((m) => m.content === c.output && c.output !== '')).toBe(false);
    expect(results.filter((m) => m.outputOf !== undefined).map((m) => m.outputOf)).toEqual(
      completed.filter((c) => c.output.length < 8_000).map((c) => c.callId),
    );

    expect(replayRun(log, DEFAULT_RUN_LIMITS)).toMatchObject({ identical: true });
    expect(auditRun(log).filter((f) => f.invariant === 'no-reasoning-reentry')).toEqual([]);
    const whole = completed.slice(0, 4).reduce((sum, c) => sum + c.output.length, 0);
    console.log(`tool round shown (window ${WINDOW}): ${total} characters of ${whole} (budget ${roundBudgetChars(WINDOW)})`);
    const measured = await roundBytes(system, runId);
    report('three 300 KB reads and a 50 KB command, then two ranges', measured);
    expect(measured.after).toBeLessThan(measured.before);
  }, 180_000);

  it('stores a result that fits once: the message refers to the run record, and the model is sent the output whole', async () => {
    const runId = 'budget-mid';
    const { end } = await runToEnd(
      system,
      { runId, message: 'What does mid.txt hold?', userMode: 'agent', reasoningEnabled: true, projectRoot: project },
      120_000,
    );
    expect(end).toMatchObject({ type: 'RunCompleted' });
    const whole = readFileSync(join(project, 'mid.txt'), 'utf8');
    const sent = server.requests.filter((r) => r.path === '/chat/completions' && r.headers['x-stagecraft-run-id'] === runId);
    expect(sent.some((r) => toolMessages(r).some((m) => m.content === whole))).toBe(true);
    const log = await readEvents(system.store, streams.run(runId), runEvents);
    const [result] = log.flatMap((e) =>
      e.type === 'MessageAppended' && e.data.kind === 'tool_result' ? [e.data as EventData<'MessageAppended'>] : [],
    );
    expect(result).toMatchObject({ content: '', outputOf: expect.stringMatching(/^budget-mid\.m\d+\.call_1$/) });
    // `runs show --prompts` restores what was sent from the log: the output, filled in from the run's record.
    const restored = await restoreRequests(system.store, runId);
    expect(restored.some((r) => r.messages.some((m) => m.role === 'tool' && m.content === whole))).toBe(true);
    const measured = await roundBytes(system, runId);
    report('one 24 KB read_file', measured);
    // The output was stored three times and is now stored twice.
    expect(measured.before - measured.after).toBeGreaterThan(whole.length);
  }, 180_000);
});

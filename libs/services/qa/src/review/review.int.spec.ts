import 'reflect-metadata';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { QaReviewRequest, streams } from '@stagecraft/contracts';
import type { EventStore } from '@stagecraft/event-store';
import { createOpenAiGateway } from '@stagecraft/model-gateway';
import { RecordedRequest, ScriptedModelServer, ScriptedReply, startScriptedModelServer } from '@stagecraft/scripted-model';
import { Host, startHost } from '@stagecraft/service-shell';
import { modelFreeServices } from '@stagecraft/testing-system';
import { MAX_MODEL_CALLS, qaServiceWith } from '../index';

const config = { prefix: 'stagecraft', requestTimeoutMs: 10000, logLevel: 'silent' as const };
const README = '# Sample\n\nRun `npm test` before every commit.\n';
const report = {
  verdict: 'pass',
  summary: 'The answer matches the README.',
  findings: [{ severity: 'info', message: 'The answer could quote the command.' }],
};
const micro = (delivery: string) =>
  [
    '<ide_reasoning>',
    '- Checked README.md against the answer.',
    '- Plan delta: none',
    '- Next action: none',
    '- Known risks: the build was not run.',
    `- Delivery: ${delivery}`,
    '</ide_reasoning>',
  ].join('\n');

let dir: string;
let project: string;
let server: ScriptedModelServer;
let host: Host;
let store: EventStore;

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'stagecraft-qa-')));
  project = join(dir, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'README.md'), README);
  server = await startScriptedModelServer();
  const gateway = createOpenAiGateway({
    baseURL: server.url,
    apiKey: 'test-key',
    model: 'scripted-model',
    logger: pino({ level: 'silent' }),
  });
  host = await startHost({
    // The reviewer needs the policy, prompt and tool services beside it, as a deployment has.
    definitions: [modelFreeServices.policy, modelFreeServices.promptAssembly, modelFreeServices.toolExecution, qaServiceWith({ gateway })],
    transport: 'inproc',
    store: `sqlite:${join(dir, 'events.db')}`,
    config,
  });
  store = host.ports.store as EventStore;
});
afterAll(async () => {
  await host?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

let runs = 0;
function requestFor(overrides: Partial<QaReviewRequest> = {}): QaReviewRequest {
  return {
    runId: `run-${++runs}`,
    conversationId: 'conv-1',
    userMode: 'agent',
    reasoningEnabled: false,
    userInput: 'What does the README ask for?',
    answer: 'The README asks you to run the tests before every commit.',
    projectRoot: project,
    toolSummary: '- read_file README.md: ok',
    ...overrides,
  };
}
function review(overrides: Partial<QaReviewRequest> = {}) {
  const request = requestFor(overrides);
  return { request, reply: host.ports.requester.request('qa.review', request) };
}
const script = (replies: ScriptedReply[]) => {
  server.requests.length = 0;
  server.setScript(replies);
};
const toolNames = (r: RecordedRequest): string[] => (r.body.tools ?? []).map((t: { function: { name: string } }) => t.function.name);
const toolMessages = (r: RecordedRequest) =>
  (r.body.messages as { role: string; content: string; tool_call_id?: string }[]).filter((m) => m.role === 'tool');

describe('qa.review', () => {
  it('reviews with read-only tools: a write is refused and fed back, a read runs, the report comes back', async () => {
    script([
      { toolCalls: [{ id: 'call_w', name: 'write_file', arguments: { path: 'QA_NOTES.md', content: 'a better answer' } }] },
      { toolCalls: [{ id: 'call_r', name: 'read_file', arguments: { path: 'README.md' } }] },
      { content: `\`\`\`json\n${JSON.stringify(report)}\n\`\`\`` },
    ]);
    const { request, reply } = review();
    const answered = await reply;
    expect(answered.report).toEqual(report);
    // Each of the reviewer's three model calls is accounted for, for the run's log.
    expect(answered.modelCalls).toHaveLength(3);
    expect(new Set(answered.modelCalls.map((c) => c.requestId)).size).toBe(3);
    for (const c of answered.modelCalls) expect(c.latencyMs).toBeGreaterThan(0);

    expect(existsSync(join(project, 'QA_NOTES.md'))).toBe(false);
    const refused = await store.readStream(streams.toolCall(`${request.runId}.qa.call_w`));
    expect(refused.map((e) => [e.type, (e.data as { code?: string }).code])).toEqual([['ToolExecutionRefused', 'FORBIDDEN_TOOL']]);
    const read = await store.readStream(streams.toolCall(`${request.runId}.qa.call_r`));
    expect(read.map((e) => e.type)).toEqual(['ToolExecutionStarted', 'ToolExecutionFinished']);

    expect(server.requests).toHaveLength(3);
    const [first, second, third] = server.requests;
    expect(toolMessages(second)).toEqual([
      {
        role: 'tool',
        tool_call_id: 'call_w',
        content: expect.stringMatching(
          /^tool_error: FORBIDDEN_TOOL\nproblem: write_file is not available in review: the review only reads the project \(available: read_file, list_dir, search_code, find_symbol, list_entry_points, search_index, read_tool_output(, memory_recall)?\)\. .+\nretry: check the answer with read_file, list_dir, search_code, find_symbol, list_entry_points, search_index, read_tool_output(, memory_recall)?, or finish with the JSON report/,
        ),
      },
    ]);
    expect(toolMessages(third)[1]).toEqual({
      role: 'tool',
      tool_call_id: 'call_r',
      content: expect.stringContaining('Run `npm test` before every commit.'),
    });
    for (const r of server.requests) {
      expect(
        toolNames(r)
          .filter((name) => !name.startsWith('memory_'))
          .sort(),
      ).toEqual(['find_symbol', 'list_dir', 'list_entry_points', 'read_file', 'read_tool_output', 'search_code', 'search_index']);
      expect([r.headers['x-stagecraft-run-id'], r.headers['x-stagecraft-conversation-id'], r.stage]).toEqual([
        request.runId,
        'conv-1',
        'qa_review',
      ]);
    }
    const [system, user] = first.body.messages as { role: string; content: string }[];
    expect(system.role).toBe('system');
    expect(system.content).toContain(request.userInput);
    expect(system.content).toContain(request.toolSummary);
    expect(user.content).toContain(request.answer);
  });

  it('tells the reviewer what was wrong with a call it cannot make, and what to do instead, without asking the tool service', async () => {
    script([
      {
        toolCalls: [
          { id: 'call_x', name: 'delete_everything', arguments: {} },
          { id: 'call_a', name: 'read_file', arguments: '["README.md"]' },
        ],
      },
      { content: JSON.stringify(report) },
    ]);
    const { request, reply } = review();
    expect((await reply).report).toEqual(report);
    expect(toolMessages(server.requests[1]).map((m) => m.content)).toEqual([
      expect.stringMatching(
        /^tool_error: FORBIDDEN_TOOL\nproblem: delete_everything is not available in review: .+ It is not a Stagecraft tool\.\nretry: check the answer with /,
      ),
      'tool_error: INVALID_ARGUMENTS\nproblem: the arguments of read_file are not a JSON object: ["README.md"]\nretry: call read_file again with its arguments as one JSON object',
    ]);
    expect(await store.readStream(streams.toolCall(`${request.runId}.qa.call_a`))).toEqual([]);
  });

  it('with reasoning on, keeps the micro outcome beside the report and never sends a reasoning block back', async () => {
    script([
      {
        content: `${micro('NEEDS_WORK')}\nLet me check the README.`,
        toolCalls: [{ id: 'call_r2', name: 'read_file', arguments: { path: 'README.md' } }],
      },
      { content: `${micro('DONE')}\n${JSON.stringify(report)}` },
    ]);
    const { reply } = review({ reasoningEnabled: true, answer: `${micro('DONE')}\nThe README asks you to run the tests.` });
    const { report: reviewed } = await reply;
    expect(reviewed).toMatchObject(report);
    expect(reviewed.reasoningOutcome).toEqual({
      plan_delta: 'none',
      next_action: 'none',
      known_risks: 'the build was not run.',
      delivery_state: 'DONE',
      notes: ['Checked README.md against the answer.'],
    });
    const [first, second] = server.requests;
    expect(first.body.messages[0].content).toContain('<ide_reasoning>');
    for (const r of server.requests) {
      const sent = (r.body.messages as { role: string; content: string | null }[]).slice(1).map((m) => m.content ?? '');
      expect(sent.some((c) => c.includes('ide_reasoning'))).toBe(false);
    }
    expect(second.body.messages[2]).toMatchObject({ role: 'assistant', content: 'Let me check the README.' });
  });

  it('with reasoning on, asks once for the missing reasoning, then records that it stayed missing', async () => {
    script([{ content: JSON.stringify(report) }, { content: `${micro('DONE')}\n${JSON.stringify(report)}` }]);
    const corrected = await review({ reasoningEnabled: true }).reply;
    expect(corrected.report).toMatchObject({ ...report, reasoningOutcome: { delivery_state: 'DONE' } });
    expect(corrected.modelCalls).toHaveLength(2);
    const asked = server.requests[1].body.messages as { role: string; content: string }[];
    expect(asked.at(-1)).toEqual({ role: 'user', content: expect.stringContaining('micro reasoning missing') });

    script([{ content: JSON.stringify(report) }, { content: JSON.stringify(report) }]);
    const still = await review({ reasoningEnabled: true }).reply;
    expect(still.modelCalls).toHaveLength(2);
    expect(still.report.findings).toEqual([
      ...report.findings,
      {
        severity: 'info',
        message: expect.stringMatching(/^The reviewer gave no valid reasoning after a correction \(micro reasoning missing/),
      },
    ]);
    // With reasoning off nothing is asked for.
    script([{ content: JSON.stringify(report) }]);
    expect((await review().reply).report).toEqual(report);
    expect(server.requests).toHaveLength(1);
  });

  it('turns an unreadable report into a concerns report instead of an error', async () => {
    script([{ content: 'Looks fine to me.' }]);
    expect((await review().reply).report).toEqual({
      verdict: 'concerns',
      summary: 'QA report could not be parsed: no JSON object found',
      findings: [],
    });
  });

  it('stops the tool loop after a bounded number of model calls', async () => {
    server.requests.length = 0;
    server.setScript((r) => ({ toolCalls: [{ id: `call_loop_${r.index}`, name: 'list_dir', arguments: { path: '.' } }] }));
    const { report: bounded } = await review().reply;
    expect(server.requests).toHaveLength(MAX_MODEL_CALLS);
    expect(bounded).toEqual({
      verdict: 'concerns',
      summary: `QA review could not be completed: the reviewer was still calling tools after ${MAX_MODEL_CALLS} model calls`,
      findings: [],
    });
    const last = server.requests[MAX_MODEL_CALLS - 1].body.messages as { role: string; content: string }[];
    expect(last[last.length - 1]).toEqual({ role: 'user', content: expect.stringContaining('last tool call') });
  });

  it('reports an unavailable model as concerns, after the client retried', async () => {
    server.requests.length = 0;
    server.setScript(() => ({ status: 503 }));
    const { report: unavailable } = await review().reply;
    expect(unavailable.verdict).toBe('concerns');
    expect(unavailable.summary).toMatch(/^QA review could not be completed: UNAVAILABLE: .*HTTP 503/);
    expect(server.requests.length).toBeGreaterThan(1);
  });

  it('offers no tools to a chat-mode review', async () => {
    script([{ content: JSON.stringify(report) }]);
    expect((await review({ userMode: 'chat' }).reply).report).toEqual(report);
    expect(server.requests[0].body.tools).toBeUndefined();
  });

  it('answers a malformed request with VALIDATION and calls no model', async () => {
    script([]);
    const bad = { ...requestFor(), projectRoot: '' };
    await expect(host.ports.requester.request('qa.review', bad)).rejects.toMatchObject({ code: 'VALIDATION' });
    expect(server.requests).toHaveLength(0);
  });
});

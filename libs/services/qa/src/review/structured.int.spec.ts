import 'reflect-metadata';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { QaReviewRequest } from '@stagecraft/contracts';
import { createOpenAiGateway } from '@stagecraft/model-gateway';
import { ScriptedModelServer, ScriptedReply, startScriptedModelServer } from '@stagecraft/scripted-model';
import { Host, startHost } from '@stagecraft/service-shell';
import { modelFreeServices } from '@stagecraft/testing-system';
import { qaServiceWith } from '../index';

const finding = { severity: 'minor', message: 'The answer could quote the command.', file: 'README.md:3' };
const report = { verdict: 'pass', summary: 'The answer matches the README.', findings: [finding] };
const micro = (delivery: string) =>
  [
    '<ide_reasoning>',
    '- Checked README.md.',
    '- Plan delta: none',
    '- Next action: none',
    '- Known risks: none',
    `- Delivery: ${delivery}`,
    '</ide_reasoning>',
  ].join('\n');

/** The reviewer beside the services it asks, its model a scripted endpoint that treats response_format as told. */
function reviewerAgainst(structuredOutput: 'honour' | 'refuse') {
  const setup = {} as { dir: string; server: ScriptedModelServer; host: Host; logs: Record<string, unknown>[] };
  beforeAll(async () => {
    setup.dir = realpathSync(mkdtempSync(join(tmpdir(), 'stagecraft-qa-structured-')));
    mkdirSync(join(setup.dir, 'project'));
    writeFileSync(join(setup.dir, 'project', 'README.md'), '# Sample\n\nRun `npm test` before every commit.\n');
    setup.server = await startScriptedModelServer({ structuredOutput });
    setup.logs = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => setup.logs.push(JSON.parse(line) as Record<string, unknown>) });
    const gateway = createOpenAiGateway({ baseURL: setup.server.url, apiKey: 'test-key', model: 'scripted-model', logger });
    setup.host = await startHost({
      definitions: [
        modelFreeServices.policy,
        modelFreeServices.promptAssembly,
        modelFreeServices.toolExecution,
        qaServiceWith({ gateway }),
      ],
      transport: 'inproc',
      store: `sqlite:${join(setup.dir, 'events.db')}`,
      config: { prefix: 'stagecraft', requestTimeoutMs: 10000, logLevel: 'silent' as const },
    });
  });
  afterAll(async () => {
    await setup.host?.close();
    await setup.server?.close();
    rmSync(setup.dir, { recursive: true, force: true });
  });
  let runs = 0;
  const review = (replies: ScriptedReply[], reasoningEnabled: boolean) => {
    setup.server.requests.length = 0;
    setup.server.setScript(replies);
    const request: QaReviewRequest = {
      runId: `run-${structuredOutput}-${++runs}`,
      conversationId: 'conv-1',
      userMode: 'chat',
      reasoningEnabled,
      userInput: 'What does the README ask for?',
      answer: 'Run the tests before every commit.',
      projectRoot: join(setup.dir, 'project'),
    };
    return setup.host.ports.requester.request('qa.review', request);
  };
  return { setup, review };
}

describe('qa.review against an endpoint with structured output', () => {
  const { setup, review } = reviewerAgainst('honour');

  it('asks for the report with its schema and reads the structured reply, reasoning block included', async () => {
    const reply = await review([{ json: { reasoning: micro('DONE'), report }, content: 'not this text' }], true);
    expect(reply.report).toEqual({ ...report, reasoningOutcome: expect.objectContaining({ delivery_state: 'DONE' }) });
    expect(reply.modelCalls).toEqual([expect.objectContaining({ structured: 'json_schema' })]);
    const format = setup.server.requests[0].body.response_format;
    expect(format).toMatchObject({ type: 'json_schema', json_schema: { name: 'qa_report_with_reasoning', strict: true } });
    expect(format.json_schema.schema).toMatchObject({ required: ['reasoning', 'report'], additionalProperties: false });
  });

  it('checks the reasoning field with the same parser: corrected once when it is not a micro block', async () => {
    const reply = await review(
      [
        { json: { reasoning: 'I looked at it.', report } },
        { json: { reasoning: micro('NEEDS_WORK'), report: { ...report, findings: [] } } },
      ],
      true,
    );
    expect(reply.modelCalls.map((c) => c.structured)).toEqual(['json_schema', 'json_schema']);
    expect(setup.server.requests[1].body.messages.at(-1)).toEqual({
      role: 'user',
      content: expect.stringContaining('micro reasoning missing'),
    });
    expect(reply.report).toMatchObject({ verdict: 'pass', findings: [], reasoningOutcome: { delivery_state: 'NEEDS_WORK' } });
  });

  it('with reasoning off asks for the bare report; a finding without a place comes back without a file', async () => {
    const major = { severity: 'major', message: 'The answer names the wrong command.', file: null };
    const reply = await review([{ json: { verdict: 'pass', summary: 'One problem.', findings: [major] } }], false);
    // The report's own rule still holds: a major finding means concerns.
    expect(reply.report).toEqual({
      verdict: 'concerns',
      summary: 'One problem.',
      findings: [{ severity: 'major', message: major.message }],
    });
    expect(setup.server.requests[0].body.response_format.json_schema.name).toBe('qa_report');
  });

  it('falls back to reading the text when an endpoint accepts the format but answers otherwise', async () => {
    const reply = await review([{ content: `${micro('DONE')}\n\`\`\`json\n${JSON.stringify(report)}\n\`\`\`` }], true);
    expect(reply.report).toMatchObject(report);
    expect(reply.modelCalls[0].structured).toBe('json_schema');
  });
});

describe('qa.review against an endpoint that refuses structured output', () => {
  const { setup, review } = reviewerAgainst('refuse');
  const fenced = [{ content: `${micro('DONE')}\n\`\`\`json\n${JSON.stringify(report)}\n\`\`\`` }];

  it('asks again without it and parses the fenced report, then stops asking', async () => {
    const first = await review(fenced, true);
    expect(first.report).toEqual({ ...report, reasoningOutcome: expect.objectContaining({ delivery_state: 'DONE' }) });
    expect(first.modelCalls).toEqual([expect.objectContaining({ structured: 'refused' })]);
    expect(setup.server.requests.map((r) => r.body.response_format?.type ?? null)).toEqual(['json_schema', null]);
    expect(setup.logs.filter((l) => l.msg === 'model endpoint refused structured output; asking again without it')).toHaveLength(1);

    const second = await review(fenced, true);
    expect(second.modelCalls).toEqual([expect.objectContaining({ structured: 'off' })]);
    expect(setup.server.requests).toHaveLength(1);
    expect(second.report).toMatchObject(report);
  });

  it('still corrects a fenced report that came without its reasoning', async () => {
    const reply = await review([{ content: JSON.stringify(report) }, ...fenced], true);
    expect(reply.modelCalls.map((c) => c.structured)).toEqual(['off', 'off']);
    expect(reply.report).toMatchObject({ ...report, reasoningOutcome: { delivery_state: 'DONE' } });
  });
});

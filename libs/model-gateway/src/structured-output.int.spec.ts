import pino from 'pino';
import { z } from 'zod';
import type { ChatMessage, ModelCallMeta } from '@stagecraft/contracts';
import { ScriptedModelServer, startScriptedModelServer } from '@stagecraft/scripted-model';
import { createOpenAiGateway } from './openai-gateway';
import type { StructuredOutput } from './structured-output';

let server: ScriptedModelServer;
let logs: Record<string, unknown>[];

const gatewayFor = (s: ScriptedModelServer) =>
  createOpenAiGateway({
    baseURL: s.url,
    apiKey: 'test-key',
    model: 'scripted-model',
    logger: pino({ level: 'info' }, { write: (line: string) => logs.push(JSON.parse(line) as Record<string, unknown>) }),
  });
const meta: ModelCallMeta = {
  requestId: 'req-1',
  runId: 'run-1',
  conversationId: 'conv-1',
  stage: 'qa_review',
  userMode: 'agent',
  reasoningEnabled: false,
};
const messages: ChatMessage[] = [{ role: 'user', content: 'Report.' }];
const structuredOutput: StructuredOutput = { name: 'verdict', schema: z.object({ verdict: z.enum(['pass', 'concerns']) }) };
const fenced = '```json\n{"verdict":"pass"}\n```';
const logged = (msg: string) => logs.filter((l) => l.msg === msg);

beforeEach(() => {
  logs = [];
});
afterEach(() => server.close());

describe('structured output through the OpenAI gateway', () => {
  it('sends the schema as a strict json_schema response_format and says the reply was asked so', async () => {
    server = await startScriptedModelServer({ structuredOutput: 'honour', script: [{ json: { verdict: 'pass' }, content: fenced }] });
    const response = await gatewayFor(server).complete(meta, messages, [], { structuredOutput });
    expect(response.structured).toBe('json_schema');
    expect(JSON.parse(response.content)).toEqual({ verdict: 'pass' });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0].body.response_format).toEqual({
      type: 'json_schema',
      json_schema: {
        name: 'verdict',
        strict: true,
        schema: {
          type: 'object',
          properties: { verdict: { type: 'string', enum: ['pass', 'concerns'] } },
          required: ['verdict'],
          additionalProperties: false,
        },
      },
    });
    expect(logged('model response')[0]).toMatchObject({ structured: 'json_schema' });
  });

  it('falls back once without it when the endpoint refuses, then stops asking that endpoint and model', async () => {
    server = await startScriptedModelServer({ structuredOutput: 'refuse', script: [{ content: fenced }, { content: fenced }] });
    const gateway = gatewayFor(server);
    const first = await gateway.complete(meta, messages, [], { structuredOutput });
    expect(first).toMatchObject({ structured: 'refused', content: fenced });
    expect(server.requests.map((r) => r.body.response_format?.type ?? null)).toEqual(['json_schema', null]);
    expect(logged('model endpoint refused structured output; asking again without it')).toEqual([
      expect.objectContaining({ schema: 'verdict', err: expect.stringContaining("'response_format'") }),
    ]);

    const second = await gateway.complete({ ...meta, requestId: 'req-2' }, messages, [], { structuredOutput });
    expect(second).toMatchObject({ structured: 'off', content: fenced });
    expect(server.requests.map((r) => r.body.response_format?.type ?? null)).toEqual(['json_schema', null, null]);
    expect(logged('model response').map((l) => l.structured)).toEqual(['refused', 'off']);
  });

  it('remembers a refusal per schema: another schema is still offered to the same endpoint and model', async () => {
    server = await startScriptedModelServer({ structuredOutput: 'refuse', script: [{ content: fenced }, { content: fenced }] });
    const gateway = gatewayFor(server);
    await gateway.complete(meta, messages, [], { structuredOutput });
    const other = await gateway.complete(meta, messages, [], { structuredOutput: { ...structuredOutput, name: 'other' } });
    expect(other.structured).toBe('refused');
    expect(server.requests.map((r) => r.body.response_format?.json_schema.name ?? null)).toEqual(['verdict', null, 'other', null]);
  });

  it('does not retry a bad request that is not about the format', async () => {
    server = await startScriptedModelServer({
      structuredOutput: 'honour',
      script: [{ status: 400, content: 'messages must not be empty' }],
    });
    const failed = await gatewayFor(server)
      .complete(meta, messages, [], { structuredOutput })
      .then(
        () => null,
        (error: { code: string }) => error.code,
      );
    expect(failed).toBe('INTERNAL');
    expect(server.requests).toHaveLength(1);
  });

  it('sends no response_format and reports nothing when the call asks for none', async () => {
    server = await startScriptedModelServer({ structuredOutput: 'refuse', script: [{ content: fenced }] });
    const response = await gatewayFor(server).complete(meta, messages, []);
    expect(response.structured).toBeUndefined();
    expect(response.content).toBe(fenced);
    expect(server.requests[0].body.response_format).toBeUndefined();
  });
});

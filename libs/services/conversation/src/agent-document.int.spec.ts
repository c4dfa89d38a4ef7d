import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { WorkflowView, runEvents, streams } from '@stagecraft/contracts';
import { readEvents } from '@stagecraft/event-store';
import { RecordedRequest, ScriptedReply, workflowScript } from '@stagecraft/scripted-model';
import { eventually } from '@stagecraft/testing';
import { EmbeddedServices, startEmbedded } from '@stagecraft/testing-system';

const SAMPLE = join(__dirname, '..', '..', '..', '..', 'examples', 'sample-project');
const FENCED_DOCUMENT = /```json\s*\n([\s\S]*?)```/;

/**
 * The scripted agents, answering a request that asks for structured output with the same document as
 * JSON of the `{ reasoning?, answer, document }` shape (0059); otherwise as they always do.
 */
const structuredAgents = () => {
  const agents = workflowScript({ agentsPerPhase: 1 });
  return (request: RecordedRequest): ScriptedReply => {
    const reply = agents(request);
    const format = request.body?.response_format;
    const fenced = reply.content === undefined ? null : FENCED_DOCUMENT.exec(reply.content);
    if (format === undefined || fenced === null || (reply.toolCalls ?? []).length > 0) return reply;
    const block = /<ide_reasoning>[\s\S]*?<\/ide_reasoning>/.exec(reply.content ?? '');
    const reasoning = format.json_schema.schema.properties.reasoning ? { reasoning: block?.[0] ?? '' } : {};
    return { ...reply, json: { ...reasoning, answer: 'Here is the document.', document: JSON.parse(fenced[1]) as unknown } };
  };
};

describe('workflow agents asked for their document as structured output', () => {
  let system: EmbeddedServices;

  beforeAll(async () => {
    system = await startEmbedded({ script: structuredAgents(), dirPrefix: 'stagecraft-agent-document-', requestTimeoutMs: 30_000 });
    cpSync(SAMPLE, system.project, { recursive: true });
  });
  afterAll(() => system?.close());

  const run = async () => {
    const { requester } = system.host.ports;
    system.server.requests.length = 0;
    const { workflowId } = await requester.request('workflow.start', { goal: 'Document the converters', projectRoot: system.project });
    const view: WorkflowView = await eventually(
      async () => {
        const v = await requester.request('workflow.get', { workflowId });
        return v.status === 'completed' || v.status === 'failed' || v.status === 'waiting' ? v : undefined;
      },
      'the workflow to end',
      { timeoutMs: 120_000, intervalMs: 100 },
    );
    const responses = [];
    for (const phase of view.phases)
      for (const agent of phase.agents)
        for (const e of await readEvents(system.host.ports.store!, streams.run(agent.runId), runEvents))
          if (e.type === 'ModelResponded') responses.push({ agentType: agent.agentType, ...e.data });
    return { view, responses };
  };
  const actRequests = () => system.server.requests.filter((r) => r.stage === 'act' || r.stage === 'tool_followup');

  it('honoured: each agent hands in its document through the schema, and the workflow reads it as before', async () => {
    system.server.setStructuredOutput('honour');
    const { view, responses } = await run();
    expect(view.status).toBe('completed');
    expect(view.phases.map((p) => p.decision?.decisionType)).toEqual(['ADVANCE', 'ADVANCE', 'ADVANCE']);
    const formats = actRequests().map((r) => r.body.response_format?.json_schema?.name);
    expect(formats.length).toBeGreaterThan(0);
    for (const name of formats) expect(name).toMatch(/^(discovery|planning|ticket)-(orchestrator|agent|collector)(_with_reasoning)?$/);
    // The recorded reply is the structured one, rewritten into the text the run and the workflow read.
    const answered = responses.filter((r) => r.structured === 'json_schema' && r.toolCalls.length === 0);
    expect(new Set(answered.map((r) => r.agentType)).size).toBe(9);
    for (const r of answered) expect(r.content).toMatch(/Here is the document\.\n\n```json\n\{/);
    // Other stages ask for nothing and record nothing.
    for (const r of system.server.requests.filter((x) => x.stage === 'warmup' || x.stage === 'delivery_check'))
      expect(r.body.response_format).toBeUndefined();
  });

  it('refused: asked again without it, the fenced document is read, and the events say so', async () => {
    system.server.setStructuredOutput('refuse');
    const { view, responses } = await run();
    expect(view.status).toBe('completed');
    const outcomes = new Set(responses.filter((r) => r.structured !== undefined).map((r) => r.structured));
    expect(outcomes.has('refused')).toBe(true);
    expect(outcomes.has('json_schema')).toBe(false);
    expect(responses.filter((r) => r.structured === 'refused' && r.toolCalls.length === 0).every((r) => /```json/.test(r.content))).toBe(
      true,
    );
    // A refused request is followed by the same one without the format.
    const refused = system.server.requests.findIndex((r) => r.body?.response_format !== undefined);
    expect(system.server.requests[refused + 1].body.response_format).toBeUndefined();
  });
});

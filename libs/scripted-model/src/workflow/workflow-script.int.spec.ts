import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import {
  DelegationTemplate,
  DiscoveryCollectorResult,
  DiscoveryReport,
  PlanningAgentResult,
  PlanningCollectorResult,
  PreviousAttempt,
  Stage,
  TEMPLATE_SCHEMA_VERSION,
  TicketAgentResult,
  TicketCollectorResult,
  UpstreamContext,
} from '@stagecraft/contracts';
import { previousAttemptContributor, upstreamContextContributor } from '@stagecraft/workflows';
import { decideStagePolicy } from '@stagecraft/policy';
import {
  assemblePrompt,
  createContributorRegistry,
  defaultContributors,
  loadPromptDirectory,
  workflowRoleContributor,
} from '@stagecraft/prompts';
import { stripReasoning } from '@stagecraft/reasoning';
import { executeTool, toolSpecs } from '@stagecraft/tools';
import { z } from 'zod';
import { ScriptedModelServer, WorkflowScriptOptions, demoScript, startScriptedModelServer, workflowScript } from '../index';

type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;

const repo = loadPromptDirectory(join(__dirname, '../../../../prompts'));
const registry = createContributorRegistry([
  ...defaultContributors().contributors,
  workflowRoleContributor(repo),
  upstreamContextContributor,
  previousAttemptContributor,
]);
const GOAL = 'Record each planned ticket in its own notes file.';
const contextId = (agentType: string, n: number) => `wf-1/${agentType}/${String(n).padStart(3, '0')}/2026-01-19T10:30:00Z`;

interface AgentCall {
  agentType: string;
  upstream: UpstreamContext[];
  user: string;
  root: string;
  previousAttempt?: PreviousAttempt;
  runId?: string;
}

/** One agent run as the workflow drives it: prompts assembled for its type and upstream, tools run for real, act → tool_followup. */
async function runAgent(client: OpenAI, call: AgentCall): Promise<{ answer: string; calls: string[] }> {
  const messages: Message[] = [{ role: 'user', content: call.user }];
  const calls: string[] = [];
  let stage: Stage = 'act';
  for (let step = 0; step < 6; step += 1) {
    const policy = decideStagePolicy({ userMode: 'agent', reasoningEnabled: true, stage, delegation: { depth: 0, chain: [] } });
    const variables = { project_root: call.root, user_input: call.user, tool_summary: '(none)', last_step_outcome: '(none)' };
    const { system } = assemblePrompt(
      repo,
      { policy, variables, instructions: [], agentType: call.agentType, upstream: call.upstream, previousAttempt: call.previousAttempt },
      registry,
    );
    const tools = toolSpecs(policy.tools).map((t) => ({
      type: 'function' as const,
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
    const completion = await client.chat.completions.create(
      { model: 'scripted', messages: [{ role: 'system', content: system }, ...messages], tools },
      {
        headers: {
          'x-stagecraft-stage': stage,
          'x-stagecraft-run-id': call.runId ?? `run-${call.agentType}`,
          'x-stagecraft-conversation-id': 'c-1',
        },
      },
    );
    const message = completion.choices[0].message;
    const toolCalls = (message.tool_calls ?? []).flatMap((c) => (c.type === 'function' ? [c] : []));
    if (toolCalls.length === 0) return { answer: stripReasoning(message.content ?? ''), calls };
    messages.push({ role: 'assistant', content: stripReasoning(message.content ?? ''), tool_calls: toolCalls });
    for (const toolCall of toolCalls) {
      calls.push(`${toolCall.function.name} ${JSON.parse(toolCall.function.arguments).path}`);
      const outcome = await executeTool(toolCall.function.name as never, JSON.parse(toolCall.function.arguments), {
        root: call.root,
        allowedCommands: [],
        progress: () => undefined,
      });
      messages.push({ role: 'tool', tool_call_id: toolCall.id, content: outcome.output });
    }
    stage = 'tool_followup';
  }
  throw new Error('the tool loop did not end');
}

/** What the workflow does with an answer: take the fenced document, set the ids, check it. */
function documentOf<T extends z.ZodType>(answer: string, schema: T, agentType: string, n = 1): z.infer<T> {
  const json = /```json\n([\s\S]*?)\n```/.exec(answer)?.[1];
  if (json === undefined) throw new Error(`no json block in:\n${answer}`);
  const filled = {
    ...JSON.parse(json),
    schemaVersion: TEMPLATE_SCHEMA_VERSION,
    resultId: contextId(agentType, n),
    upstreamContextId: contextId('upstream', 1),
  };
  const parsed = schema.safeParse(filled);
  if (!parsed.success) throw new Error(`${agentType}: ${JSON.stringify(parsed.error.issues)}`);
  return parsed.data;
}

const assignmentMessage = (a: DelegationTemplate['assignments'][number]) =>
  [a.assignedGoal, ...Object.entries(a.contextToPass).map(([key, value]) => `- ${key}: ${value}`)].join('\n');

describe('the scripted workflow agent over HTTP', () => {
  let server: ScriptedModelServer | undefined;
  let client: OpenAI;
  let root: string;
  const start = async (options: WorkflowScriptOptions = {}) => {
    server = await startScriptedModelServer({ script: workflowScript(options) });
    client = new OpenAI({ baseURL: server.url, apiKey: 'test', maxRetries: 0 });
  };

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'stagecraft-workflow-'));
    await writeFile(join(root, 'README.md'), '# Tiny Calc\n\nA calculator library.\n');
    await writeFile(join(root, 'index.js'), 'exports.add = (a, b) => a + b;\n');
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    await rm(root, { recursive: true, force: true });
  });

  it('answers every agent type of the three phases with a document its schema accepts once the ids are set', async () => {
    await start({ ticketFile: { T1: 'SHARED.md', T2: 'SHARED.md' } });
    const goal: UpstreamContext = { kind: 'goal', workflowRunId: 'wf-1', goal: GOAL };

    const discoveryDelegation = documentOf(
      (await runAgent(client, { agentType: 'discovery-orchestrator', upstream: [goal], user: GOAL, root })).answer,
      DelegationTemplate,
      'discovery-orchestrator',
    );
    expect(discoveryDelegation.assignments.map((a) => [a.agentId, a.agentType])).toEqual([
      ['discovery-agent-1', 'discovery-agent'],
      ['discovery-agent-2', 'discovery-agent'],
    ]);

    const reports: DiscoveryReport[] = [];
    for (const [i, assignment] of discoveryDelegation.assignments.entries()) {
      const run = await runAgent(client, {
        agentType: 'discovery-agent',
        upstream: [{ kind: 'delegation', template: discoveryDelegation }],
        user: assignmentMessage(assignment),
        root,
        runId: assignment.agentId,
      });
      expect(run.calls).toEqual(['list_dir .']);
      reports.push(documentOf(run.answer, DiscoveryReport, 'discovery-agent', i + 1));
    }
    expect(reports[0].fileReferences.map((f) => f.filePath)).toEqual(['README.md', 'index.js']);

    const discovery = documentOf(
      (
        await runAgent(client, {
          agentType: 'discovery-collector',
          upstream: reports.map((report) => ({ kind: 'discovery' as const, report })),
          user: 'Consolidate discovery.',
          root,
        })
      ).answer,
      DiscoveryCollectorResult,
      'discovery-collector',
    );
    expect(discovery.inputs.map((i) => [i.inputType, i.inputContextId])).toEqual(reports.map((r) => ['discovery', r.resultId]));
    expect(discovery.decision.decisionType).toBe('ADVANCE');
    const discoveryUpstream: UpstreamContext = { kind: 'discovery-collector', result: discovery };

    const planningDelegation = documentOf(
      (await runAgent(client, { agentType: 'planning-orchestrator', upstream: [discoveryUpstream], user: GOAL, root })).answer,
      DelegationTemplate,
      'planning-orchestrator',
    );
    expect(planningDelegation.assignments.map((a) => a.contextToPass['ticketId'])).toEqual(['T1', 'T2']);

    const plans: PlanningAgentResult[] = [];
    for (const [i, assignment] of planningDelegation.assignments.entries()) {
      const run = await runAgent(client, {
        agentType: 'planning-agent',
        upstream: [discoveryUpstream],
        user: assignmentMessage(assignment),
        root,
        runId: assignment.agentId,
      });
      plans.push(documentOf(run.answer, PlanningAgentResult, 'planning-agent', i + 1));
    }
    expect(plans.map((p) => p.tickets.map((t) => [t.ticketId, t.files]))).toEqual([[['T1', ['SHARED.md']]], [['T2', ['SHARED.md']]]]);

    const planning = documentOf(
      (
        await runAgent(client, {
          agentType: 'planning-collector',
          upstream: [...plans.map((result) => ({ kind: 'planning' as const, result })), discoveryUpstream],
          user: 'Consolidate the plan.',
          root,
        })
      ).answer,
      PlanningCollectorResult,
      'planning-collector',
    );
    expect(planning.tickets.map((t) => [t.ticketId, t.files])).toEqual([
      ['T1', ['SHARED.md']],
      ['T2', ['SHARED.md']],
    ]);
    expect(planning.inputs.map((i) => i.inputType)).toEqual(['planning', 'planning', 'discovery-collector']);
    const planningUpstream: UpstreamContext = { kind: 'planning-collector', result: planning };

    const ticketDelegation = documentOf(
      (await runAgent(client, { agentType: 'ticket-orchestrator', upstream: [discoveryUpstream, planningUpstream], user: GOAL, root }))
        .answer,
      DelegationTemplate,
      'ticket-orchestrator',
    );
    expect(ticketDelegation.assignments.map((a) => [a.agentId, a.agentType, a.contextToPass['ticketId']])).toEqual([
      ['ticket-T1', 'ticket-agent', 'T1'],
      ['ticket-T2', 'ticket-agent', 'T2'],
    ]);

    const results: TicketAgentResult[] = [];
    for (const [i, ticket] of planning.tickets.entries()) {
      const worktree = await mkdtemp(join(tmpdir(), 'stagecraft-worktree-'));
      await cp(root, worktree, { recursive: true });
      const assignment = ticketDelegation.assignments[i];
      const run = await runAgent(client, {
        agentType: 'ticket-agent',
        upstream: [discoveryUpstream, planningUpstream, { kind: 'ticket', ticket }],
        user: assignmentMessage(assignment),
        root: worktree,
        runId: assignment.agentId,
      });
      expect(run.calls).toEqual(['write_file SHARED.md']);
      expect(await readFile(join(worktree, 'SHARED.md'), 'utf8')).toBe(`# Ticket ${ticket.ticketId}\n\n${ticket.title}\n`);
      results.push(documentOf(run.answer, TicketAgentResult, 'ticket-agent', i + 1));
      await rm(worktree, { recursive: true, force: true });
    }
    expect(results.map((r) => [r.ticketId, r.status, r.filesChanged])).toEqual([
      ['T1', 'done', ['SHARED.md']],
      ['T2', 'done', ['SHARED.md']],
    ]);

    const conflicts: UpstreamContext = {
      kind: 'merge-conflicts',
      conflicts: [{ path: 'SHARED.md', agentIds: ['ticket-T1', 'ticket-T2'], contextIds: results.map((r) => r.resultId) }],
    };
    const collectorRun = await runAgent(client, {
      agentType: 'ticket-collector',
      upstream: [...results.map((result) => ({ kind: 'ticket-result' as const, result })), discoveryUpstream, planningUpstream, conflicts],
      user: 'Consolidate the tickets.',
      root,
    });
    expect(collectorRun.calls).toEqual(['write_file SHARED.md']);
    expect(await readFile(join(root, 'SHARED.md'), 'utf8')).toContain('ticket-T1 and ticket-T2');
    const collected = documentOf(collectorRun.answer, TicketCollectorResult, 'ticket-collector');
    expect(collected.conflictResolutions).toEqual([expect.objectContaining({ conflictingInputs: results.map((r) => r.resultId) })]);
    expect(collected.ticketOutcomes).toEqual([
      { ticketId: 'T1', status: 'done' },
      { ticketId: 'T2', status: 'done' },
    ]);
    expect(collected.inputs.map((i) => i.inputType)).toEqual([
      'ticket-result',
      'ticket-result',
      'discovery-collector',
      'planning-collector',
    ]);
  });

  it('answers a first attempt of an invalidOnce type with a document that fails its schema, and the retry with a valid one', async () => {
    await start({ invalidOnce: ['planning-agent'] });
    const call = { agentType: 'planning-agent', upstream: [], user: 'Plan it.\n- ticketId: T7', root };
    const first = await runAgent(client, call);
    expect(() => documentOf(first.answer, PlanningAgentResult, 'planning-agent')).toThrow(/tickets/);
    const previousAttempt = PreviousAttempt.parse({
      previousContextId: contextId('planning-agent', 1),
      attemptNumber: 1,
      previousAttemptAt: '2026-01-19T10:30:00Z',
      serializedOutput: first.answer,
      error: { message: 'tickets: Required' },
    });
    const second = await runAgent(client, { ...call, previousAttempt });
    expect(documentOf(second.answer, PlanningAgentResult, 'planning-agent').tickets.map((t) => [t.ticketId, t.files])).toEqual([
      ['T7', ['WORKFLOW_T7.md']],
    ]);
  });

  it('takes a collector’s decision from the options, and answers the same request the same way', async () => {
    const decide = jest.fn(({ agentType }: { agentType: string }) =>
      agentType === 'discovery-collector'
        ? { decisionType: 'RERUN' as const, rationale: 'Part 2 is thin.', rerunAgentIds: ['discovery-agent-2'] }
        : undefined,
    );
    await start({ decide, latencyMs: 1 });
    const report = DiscoveryReport.parse({
      schemaVersion: TEMPLATE_SCHEMA_VERSION,
      resultId: contextId('discovery-agent', 1),
      upstreamContextId: contextId('discovery-orchestrator', 1),
      architectureOverview: 'A calculator.',
    });
    const call = {
      agentType: 'discovery-collector',
      upstream: [{ kind: 'discovery' as const, report }],
      user: 'Consolidate discovery.',
      root,
    };
    const first = await runAgent(client, call);
    expect(documentOf(first.answer, DiscoveryCollectorResult, 'discovery-collector').decision).toEqual({
      decisionType: 'RERUN',
      rationale: 'Part 2 is thin.',
      rerunAgentIds: ['discovery-agent-2'],
    });
    expect(decide).toHaveBeenCalledWith(
      expect.objectContaining({ agentType: 'discovery-collector', phase: 'discovery', user: 'Consolidate discovery.' }),
    );
    expect((await runAgent(client, call)).answer).toBe(first.answer);
  });

  it('answers warmup, the delivery check and the quality review as the demo does', () => {
    const script = workflowScript({ latencyMs: 5 });
    const request = (stage: string, messages: unknown[]) => ({
      index: 0,
      method: 'POST',
      path: '/chat/completions',
      headers: {},
      stage,
      body: { messages },
    });
    const system = { role: 'system', content: 'You are the ticket agent of a Stagecraft workflow (agent type `ticket-agent`).' };
    const answer = '```json\n{"ticketId": "T1"}\n```';
    expect(script(request('warmup', [system, { role: 'user', content: 'Do T1.' }]))).toMatchObject({ delayMs: 5 });
    const delivery = script(
      request('delivery_check', [system, { role: 'user', content: 'Do T1.' }, { role: 'assistant', content: answer }]),
    );
    expect(delivery.content).toBe(`Delivery: DONE\n\n${answer}`);
    const qa = script(request('qa_review', [system, { role: 'user', content: `Do T1.\n\nThe answer to review:\n\n${answer}` }]));
    expect(JSON.parse(qa.content ?? '')).toMatchObject({ verdict: 'pass' });
  });

  it('is what the demo script answers for a workflow agent, while other runs keep the demo’s answers', async () => {
    server = await startScriptedModelServer({ script: demoScript() });
    client = new OpenAI({ baseURL: server.url, apiKey: 'test', maxRetries: 0 });
    const { answer } = await runAgent(client, { agentType: 'ticket-orchestrator', upstream: [], user: GOAL, root });
    expect(documentOf(answer, DelegationTemplate, 'ticket-orchestrator').assignments.map((a) => a.agentId)).toEqual([
      'ticket-T1',
      'ticket-T2',
    ]);
    const plain = await runAgent(client, { agentType: 'main', upstream: [], user: GOAL, root });
    expect(plain.calls[0]).toBe('list_dir .');
  });
});

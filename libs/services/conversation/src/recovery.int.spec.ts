import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { EventOf, ReadOnlyToolName, Stage, StagecraftEvent, UserMode, runEvents, streams } from '@stagecraft/contracts';
import { readEvents } from '@stagecraft/event-store';
import { serveRequests } from '@stagecraft/messaging';
import { decideStagePolicy } from '@stagecraft/policy';
import { DEFAULT_RUN_LIMITS, auditRun, replayRun } from '@stagecraft/run';
import { RecordedRequest, ScriptedModelServer, ScriptedReply } from '@stagecraft/scripted-model';
import { Host, startHost } from '@stagecraft/service-shell';
import { macroReasoning, microReasoning, toolResultsIn } from '@stagecraft/testing';
import { runToEnd, scriptedGateway, sixServices, startEmbedded } from '@stagecraft/testing-system';

/**
 * Seed 002 §10 path by path: each test scripts a model that goes wrong in one way and checks that the
 * run recovers (or fails with the right code) without ever touching the user's mode or reasoning switch.
 */

type Message = { role: string; content?: string | null; tool_calls?: unknown[] };
const messagesOf = (r: RecordedRequest): Message[] => r.body?.messages ?? [];
/** The last message of the conversation: the stage's part of the prompt, a system message, follows it (docs/decisions/0052). */
const lastMessage = (r: RecordedRequest): Message | undefined => messagesOf(r).findLast((m) => m.role !== 'system');
/** The whole prompt: the system message and the stage's part. */
const promptOf = (r: RecordedRequest): string =>
  messagesOf(r)
    .filter((m) => m.role === 'system')
    .map((m) => String(m.content ?? ''))
    .join('\n\n');
const lastIsCorrection = (r: RecordedRequest, text: string) => {
  const last = lastMessage(r);
  return last?.role === 'user' && String(last.content ?? '').includes(text);
};
const toolNames = (r: RecordedRequest): string[] => (r.body?.tools ?? []).map((t: { function: { name: string } }) => t.function.name);

const QA_PASS = JSON.stringify({ verdict: 'pass', summary: 'Looks right.', findings: [] });
const EMPTY_RECOVERY = 'Recovery: the previous reply was empty';
const ASK_CORRECTION = 'Continue without waiting for a reply';
const FORMAT_CORRECTION = 'did not contain the reasoning block in the required format';

/** Stages after the interesting one behave: a done answer, a DONE delivery and a passing QA report. */
function wellBehaved(r: RecordedRequest, reasoning: boolean): ScriptedReply {
  const micro = (next: string, delivery: 'DONE' | 'NEEDS_WORK' = 'DONE') => (reasoning ? `${microReasoning(next, delivery)}\n` : '');
  switch (r.stage) {
    case 'warmup':
      return { content: `${macroReasoning()}\nI will look at the project.` };
    case 'act':
    case 'tool_followup':
      return { content: `${micro('finish')}The work is done.` };
    case 'delivery_check':
      return { content: `${micro('hand over')}Delivery: DONE` };
    case 'qa_review':
      return { content: `${micro('report')}${QA_PASS}` };
    default:
      return { status: 500, content: `unexpected stage ${r.stage}` };
  }
}

describe('failure recovery, embedded', () => {
  let server: ScriptedModelServer;
  let host: Host;
  let dir: string;
  let close: (() => Promise<void>) | undefined;
  const scripts = new Map<string, (r: RecordedRequest) => ScriptedReply>();

  beforeAll(async () => {
    ({ server, host, dir, close } = await startEmbedded({
      // One server for every test; each run is answered by the script registered under its run id.
      script: (r) => {
        const script = scripts.get(r.headers['x-stagecraft-run-id'] ?? '');
        return script ? script(r) : { status: 500, content: `no script for run ${r.headers['x-stagecraft-run-id']}` };
      },
      dirPrefix: 'stagecraft-recovery-',
    }));
  });

  afterAll(() => close?.());

  function newProject(): string {
    const project = join(dir, `project-${randomUUID().slice(0, 8)}`);
    mkdirSync(project);
    writeFileSync(join(project, 'README.md'), '# Sample\nA tiny project.\n');
    return project;
  }

  interface RunOptions {
    mode?: UserMode;
    reasoning?: boolean;
    project?: string;
    on?: Host;
  }

  async function run(script: (r: RecordedRequest) => ScriptedReply, options: RunOptions = {}) {
    const on = options.on ?? host;
    const runId = `run-${randomUUID().slice(0, 8)}`;
    const userMode = options.mode ?? 'agent';
    const reasoningEnabled = options.reasoning ?? true;
    const projectRoot = options.project ?? newProject();
    scripts.set(runId, script);
    const { end } = await runToEnd(on, { runId, message: 'Write notes about this project', userMode, reasoningEnabled, projectRoot });
    const stored = (await on.ports.store!.readStream(streams.run(runId))) as unknown as StagecraftEvent[];
    const requests = server.requests.filter((r) => r.path === '/chat/completions' && r.headers['x-stagecraft-run-id'] === runId);
    return { runId, end, stored, requests, projectRoot, userMode, reasoningEnabled };
  }

  const ofType = <T extends StagecraftEvent['type']>(events: StagecraftEvent[], type: T) =>
    events.filter((e): e is EventOf<T> => e.type === type);
  const corrections = (events: StagecraftEvent[]) => ofType(events, 'MessageAppended').filter((e) => e.data.kind === 'correction');

  /** Recovery never touches the user's switches: every stage's policy keeps them, and so does every request. */
  function expectSwitchesKept(result: Awaited<ReturnType<typeof run>>): void {
    // An entry without a policy kept the one before it.
    const entered = ofType(result.stored, 'StageEntered').flatMap((e) => (e.data.policy ? [{ ...e.data, policy: e.data.policy }] : []));
    expect(entered.length).toBeGreaterThan(0);
    for (const e of entered) {
      expect({ stage: e.stage, userMode: e.policy.userMode, reasoningEnabled: e.policy.reasoningEnabled }).toEqual({
        stage: e.stage,
        userMode: result.userMode,
        reasoningEnabled: result.reasoningEnabled,
      });
    }
    for (const r of result.requests) {
      const system = promptOf(r);
      expect({ index: r.index, asksForReasoning: system.includes('<ide_reasoning>') }).toEqual({
        index: r.index,
        asksForReasoning: result.reasoningEnabled,
      });
    }
  }

  const expectCompleted = (result: Awaited<ReturnType<typeof run>>) =>
    expect({ type: result.end.type, data: result.end.type === 'RunFailed' ? result.end.data : undefined }).toEqual({
      type: 'RunCompleted',
      data: undefined,
    });

  it('an empty response gets the recovery prompt, then the run goes on', async () => {
    const result = await run(
      (r) => {
        if (r.stage === 'act' && !lastIsCorrection(r, EMPTY_RECOVERY)) return { content: '' };
        return wellBehaved(r, false);
      },
      { reasoning: false },
    );
    expectCompleted(result);
    const [correction, ...more] = corrections(result.stored);
    expect(more).toEqual([]);
    expect(correction.data).toMatchObject({ role: 'user', kind: 'correction', stage: 'act' });
    expect(correction.data.content).toContain(EMPTY_RECOVERY);
    const acts = result.requests.filter((r) => r.stage === 'act');
    expect(acts).toHaveLength(2);
    expect(lastIsCorrection(acts[1], EMPTY_RECOVERY)).toBe(true);
    expect(result.end).toMatchObject({ data: { answer: 'The work is done.', deliveryState: 'DONE' } });
    expectSwitchesKept(result);
  });

  it('a model that asks the user to paste a file is told to use its tools, and does', async () => {
    const result = await run((r) => {
      const acting = r.stage === 'act' || r.stage === 'tool_followup';
      if (
        acting &&
        toolResultsIn(r.body) === 0 &&
        !messagesOf(r).some((m) => m.role === 'user' && String(m.content).includes(ASK_CORRECTION))
      ) {
        return { content: `${microReasoning('ask the user')}\nCould you paste the contents of README.md here?` };
      }
      if (acting && toolResultsIn(r.body) === 0)
        return {
          content: microReasoning('read README.md'),
          toolCalls: [{ id: 'call_read', name: 'read_file', arguments: { path: 'README.md' } }],
        };
      return wellBehaved(r, true);
    });
    expectCompleted(result);
    const [correction, ...more] = corrections(result.stored);
    expect(more).toEqual([]);
    expect(correction.data.content).toContain(ASK_CORRECTION);
    expect(correction.data.content).toContain('Write notes about this project');
    const types = result.stored.map((e) => e.type);
    const requested = ofType(result.stored, 'ToolCallRequested');
    expect(requested.map((e) => [e.data.tool, e.data.arguments])).toEqual([['read_file', { path: 'README.md' }]]);
    expect(types.indexOf('ToolCallRequested')).toBeGreaterThan(result.stored.indexOf(correction));
    expect(ofType(result.stored, 'ToolCallCompleted').map((e) => e.data.ok)).toEqual([true]);
    expectSwitchesKept(result);
  });

  it('malformed reasoning gets the format correction, then the run goes on', async () => {
    const result = await run((r) => {
      if (r.stage === 'warmup' && !lastIsCorrection(r, FORMAT_CORRECTION))
        return { content: '<ide_reasoning>\nI should look around.\n</ide_reasoning>\nLooking around.' };
      return wellBehaved(r, true);
    });
    expectCompleted(result);
    const [correction, ...more] = corrections(result.stored);
    expect(more).toEqual([]);
    expect(correction.data).toMatchObject({ kind: 'correction', stage: 'warmup' });
    expect(correction.data.content).toContain(FORMAT_CORRECTION);
    expect(ofType(result.stored, 'ReasoningRecorded')[0].data).toMatchObject({
      format: 'macro',
      outcome: { delivery_state: 'NEEDS_WORK' },
    });
    expect(result.requests.filter((r) => r.stage === 'warmup')).toHaveLength(2);
    expectSwitchesKept(result);
  });

  it('reasoning that stays malformed fails the run with MODEL_FORMAT after the bounded corrections', async () => {
    const result = await run((r) => (r.stage === 'warmup' ? { content: 'No reasoning block at all, just words.' } : wellBehaved(r, true)));
    expect(result.end).toMatchObject({ type: 'RunFailed', data: { code: 'MODEL_FORMAT', stage: 'warmup' } });
    const bound = DEFAULT_RUN_LIMITS.maxCorrectionsPerStage;
    expect(corrections(result.stored)).toHaveLength(bound);
    expect(result.requests.map((r) => r.stage)).toEqual(Array.from({ length: bound + 1 }, () => 'warmup'));
    expect(ofType(result.stored, 'StageEntered').map((e) => e.data.stage)).toEqual(['warmup']);
    expectSwitchesKept(result);
  });

  it('a failed tool call reaches the model as tool_error guidance, and the retry changes its arguments', async () => {
    const result = await run((r) => {
      const acting = r.stage === 'act' || r.stage === 'tool_followup';
      const done = toolResultsIn(r.body);
      if (acting && done === 0)
        return {
          content: microReasoning('read the readme'),
          toolCalls: [{ id: 'call_missing', name: 'read_file', arguments: { path: 'READ_ME.md' } }],
        };
      if (acting && done === 1) {
        const feedback = String(
          messagesOf(r)
            .filter((m) => m.role === 'tool')
            .at(-1)?.content ?? '',
        );
        if (!feedback.includes('tool_error:')) return { content: `${microReasoning('finish', 'DONE')}\nNo error was reported.` };
        return {
          content: microReasoning('read README.md instead'),
          toolCalls: [{ id: 'call_retry', name: 'read_file', arguments: { path: 'README.md' } }],
        };
      }
      return wellBehaved(r, true);
    });
    expectCompleted(result);
    const completed = ofType(result.stored, 'ToolCallCompleted');
    expect(completed.map((e) => e.data.ok)).toEqual([false, true]);
    expect(completed[0].data.output).toMatch(/^tool_error: NOT_FOUND\nproblem: .+\nretry: .+/);
    expect(ofType(result.stored, 'ToolCallRequested').map((e) => e.data.arguments)).toEqual([
      { path: 'READ_ME.md' },
      { path: 'README.md' },
    ]);
    const followups = result.requests.filter((r) => r.stage === 'tool_followup');
    const guidance = messagesOf(followups[0])
      .filter((m) => m.role === 'tool')
      .map((m) => String(m.content));
    expect(guidance).toEqual([completed[0].data.output]);
    expect(
      String(
        messagesOf(followups[1])
          .filter((m) => m.role === 'tool')
          .at(-1)?.content,
      ),
    ).toContain('A tiny project.');
    expectSwitchesKept(result);
  });

  it('a tool the stage does not offer is refused with ToolCallRejected, and the model hears why', async () => {
    const result = await run((r) => {
      const acting = r.stage === 'act' || r.stage === 'tool_followup';
      const done = toolResultsIn(r.body);
      if (acting && done === 0)
        return {
          content: microReasoning('delete the build'),
          toolCalls: [{ id: 'call_rm', name: 'delete_everything', arguments: { path: '.' } }],
        };
      if (acting && done === 1)
        return {
          content: microReasoning('read README.md'),
          toolCalls: [{ id: 'call_read', name: 'read_file', arguments: { path: 'README.md' } }],
        };
      return wellBehaved(r, true);
    });
    expectCompleted(result);
    const rejected = ofType(result.stored, 'ToolCallRejected');
    expect(rejected.map((e) => [e.data.tool, e.data.code, e.data.stage])).toEqual([['delete_everything', 'FORBIDDEN_TOOL', 'act']]);
    expect(ofType(result.stored, 'ToolCallRequested').map((e) => e.data.tool)).toEqual(['read_file']);
    const refusal = messagesOf(result.requests.filter((r) => r.stage === 'tool_followup')[0]).filter((m) => m.role === 'tool');
    expect(refusal.map((m) => String(m.content))).toEqual([
      expect.stringMatching(/^tool_error: REFUSED\nproblem: unknown tool "delete_everything"/),
    ]);
    expectSwitchesKept(result);
  });

  it('a write attempted during QA is refused by the tool service and writes nothing', async () => {
    const result = await run((r) => {
      if (r.stage === 'qa_review' && toolResultsIn(r.body) === 0) {
        return {
          content: microReasoning('fix it myself'),
          toolCalls: [{ id: 'call_qa_write', name: 'write_file', arguments: { path: 'QA_WAS_HERE.md', content: 'rewritten\n' } }],
        };
      }
      return wellBehaved(r, true);
    });
    expectCompleted(result);
    const qaRequests = result.requests.filter((r) => r.stage === 'qa_review');
    expect(qaRequests.length).toBeGreaterThanOrEqual(2);
    for (const r of qaRequests) expect(toolNames(r).sort()).toEqual([...ReadOnlyToolName.options, 'memory_recall'].sort());
    expect(existsSync(join(result.projectRoot, 'QA_WAS_HERE.md'))).toBe(false);
    const all = (await host.ports.store!.readAll()) as unknown as StagecraftEvent[];
    const refusals = ofType(all, 'ToolExecutionRefused').filter((e) => e.metadata.runId === result.runId && e.data.stage === 'qa_review');
    expect(refusals.map((e) => [e.data.tool, e.data.code])).toEqual([['write_file', 'FORBIDDEN_TOOL']]);
    expect(ofType(all, 'ToolExecutionStarted').filter((e) => e.metadata.runId === result.runId && e.data.stage === 'qa_review')).toEqual(
      [],
    );
    const heard = messagesOf(qaRequests[1])
      .filter((m) => m.role === 'tool')
      .map((m) => String(m.content));
    expect(heard).toEqual([expect.stringContaining('FORBIDDEN_TOOL')]);
    expect(ofType(result.stored, 'QAReportIssued')[0].data.report.verdict).toBe('pass');
    expect(result.end).toMatchObject({ data: { answer: 'The work is done.', deliveryState: 'DONE' } });
    expectSwitchesKept(result);
  });

  it('a chat run answers without a tool loop: no tools in any request', async () => {
    const result = await run((r) => wellBehaved(r, false), { mode: 'chat', reasoning: false });
    expectCompleted(result);
    expect(ofType(result.stored, 'StageEntered').map((e) => e.data.stage)).toEqual(['act', 'delivery_check', 'qa_review']);
    expect(result.requests.length).toBeGreaterThanOrEqual(2);
    for (const r of result.requests) expect({ stage: r.stage, tools: toolNames(r) }).toEqual({ stage: r.stage, tools: [] });
    expect(ofType(result.stored, 'ToolCallRequested')).toEqual([]);
    expect(result.end).toMatchObject({ data: { answer: 'The work is done.' } });
    expectSwitchesKept(result);
  });

  it('a policy that changes the user\u2019s mode fails the run with INVARIANT_VIOLATION naming the mode', async () => {
    // Every service but the policy service, whose subject the test serves itself.
    const rogue = await startHost({
      definitions: sixServices(scriptedGateway(server.url)).filter((d) => d.name !== 'policy'),
      transport: 'inproc',
      store: `sqlite:${join(dir, 'rogue.db')}`,
      config: { prefix: 'stagecraft', requestTimeoutMs: 10_000, logLevel: 'silent' },
    });
    const served = serveRequests(
      rogue.ports.bus,
      {
        'policy.table': (request) => ({
          policies: Stage.options.map((stage) => ({
            ...decideStagePolicy({ ...request, stage }),
            userMode: request.userMode === 'agent' ? 'chat' : 'agent',
          })),
        }),
      },
      { prefix: 'stagecraft', newId: randomUUID },
    );
    try {
      const result = await run((r) => wellBehaved(r, true), { on: rogue });
      expect(result.end).toMatchObject({ type: 'RunFailed', data: { code: 'INVARIANT_VIOLATION' } });
      const failure = result.end as EventOf<'RunFailed'>;
      expect(failure.data.reason).toMatch(/mode chat/);
      expect(ofType(result.stored, 'StageEntered')).toEqual([]);
      expect(result.requests).toEqual([]);
    } finally {
      served.unsubscribe();
      await rogue.close();
    }
  });

  it('delegates to a specialist whose messages are intermediate, and takes its result back', async () => {
    const SPECIALIST_PROMPT = 'You are a README reviewer. Read README.md and report one improvement.';
    const result = await run((r) => {
      const system = promptOf(r);
      const delegated = system.includes('<delegate-reasoning>');
      if (
        (r.stage === 'act' || r.stage === 'tool_followup') &&
        !delegated &&
        !messagesOf(r).some((m) => String(m.content ?? '').includes('returned control'))
      ) {
        return {
          content: `${microReasoning('delegate the review')}\n<delegate-reasoning agent="reviewer">${SPECIALIST_PROMPT}</delegate-reasoning>`,
        };
      }
      if ((r.stage === 'act' || r.stage === 'tool_followup') && delegated) {
        if (toolResultsIn(r.body) === 0)
          return {
            content: microReasoning('read README.md'),
            toolCalls: [{ id: 'spec_read', name: 'read_file', arguments: { path: 'README.md' } }],
          };
        return { content: `${microReasoning('hand back')}\n<return-control>Add a usage section.</return-control>` };
      }
      return wellBehaved(r, true);
    });
    expectCompleted(result);
    const instructions = ofType(result.stored, 'InstructionIssued').map((e) => [e.data.instruction.kind, e.data.accepted]);
    expect(instructions).toEqual([
      ['DelegateReasoning', true],
      ['IntermediateReasoning', true],
      ['IntermediateReasoning', true],
      ['ReturnControl', true],
    ]);
    const specialistStage = ofType(result.stored, 'StageEntered').find((e) => e.data.contextId.split('/')[1] === 'reviewer');
    expect(specialistStage?.data.policy?.delegation).toEqual({ depth: 1, chain: ['reviewer'] });
    const specialistMessages = ofType(result.stored, 'MessageAppended').filter((e) =>
      e.data.instructions.some((i) => i.kind === 'IntermediateReasoning'),
    );
    expect(specialistMessages.length).toBe(2);
    expect(specialistMessages.every((m) => m.data.intermediate)).toBe(true);
    // While delegated, the specialist's prompt is in the system prompt, and the instruction's XML line shows only its length.
    const delegatedRequests = result.requests.filter((r) => promptOf(r).includes('<delegate-reasoning>'));
    expect(delegatedRequests.length).toBe(2);
    for (const r of delegatedRequests) {
      const system = promptOf(r);
      expect(system).toContain(`<delegate-reasoning>Specialist active (${SPECIALIST_PROMPT.length} chars)</delegate-reasoning>`);
      expect(system).toContain(SPECIALIST_PROMPT);
    }
    const afterReturn = result.requests.find((r) => messagesOf(r).some((m) => String(m.content ?? '').includes('Add a usage section.')));
    expect(afterReturn).toBeDefined();
    expect(promptOf(afterReturn!)).not.toContain('<delegate-reasoning>');
    expect(result.end).toMatchObject({ data: { answer: 'The work is done.' } });
    expectSwitchesKept(result);
  });

  it('refuses a delegation loop (main → a → b → a) and delegation beyond the depth limit, each with an event', async () => {
    const delegate = (agent: string) => ({
      content: `${microReasoning(`delegate to ${agent}`)}\n<delegate-reasoning agent="${agent}">Work as ${agent}.</delegate-reasoning>`,
    });
    const result = await run((r) => {
      if (r.stage !== 'act' && r.stage !== 'tool_followup') return wellBehaved(r, true);
      const notes = messagesOf(r).map((m) => String(m.content ?? ''));
      const refusals = notes.filter((n) => n.includes('refused')).length;
      const accepted = notes.filter((n) => n.includes('Control is now with the specialist')).length;
      if (accepted === 0) return delegate('a');
      if (accepted === 1) return delegate('b');
      if (refusals === 0) return delegate('a');
      if (accepted === 2) return delegate('c');
      if (refusals === 1) return delegate('d');
      return wellBehaved(r, true);
    });
    expectCompleted(result);
    const issued = ofType(result.stored, 'InstructionIssued').filter((e) => e.data.instruction.kind === 'DelegateReasoning');
    expect(issued.map((e) => [(e.data.instruction as { agentType: string }).agentType, e.data.accepted])).toEqual([
      ['a', true],
      ['b', true],
      ['a', false],
      ['c', true],
      ['d', false],
    ]);
    expect(issued[2].data.reason).toBe('delegation loop main → a → b → a');
    expect(issued[4].data.reason).toContain(`depth limit ${DEFAULT_RUN_LIMITS.maxDelegationDepth}`);
  });

  // Declared last: it reads back every run the tests above stored.
  it('audits every run above clean, and decides each again from its own log with no model, tool or reviewer: the same events', async () => {
    const runIds = new Set(
      (await host.ports.store!.readAll()).flatMap((e) => (e.type === 'RunStarted' ? [(e.data as { runId: string }).runId] : [])),
    );
    expect(runIds.size).toBeGreaterThanOrEqual(10);
    for (const runId of runIds) {
      const log = await readEvents(host.ports.store!, streams.run(runId), runEvents);
      expect({ runId, audit: auditRun(log) }).toEqual({ runId, audit: [] });
      expect({ runId, replay: replayRun(log, DEFAULT_RUN_LIMITS) }).toEqual({
        runId,
        replay: { identical: true, events: log.length, decisions: expect.any(Number) },
      });
    }
  });
});

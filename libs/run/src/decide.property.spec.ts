import fc from 'fast-check';
import { ErrorCode, ToolCall, UserMode } from '@stagecraft/contracts';
import { containsReasoning } from '@stagecraft/reasoning';
import { evolveRun, foldRun } from './evolve';
import { AT, MACRO, PASS, ShellKnowledge, decideAsShell, micro, requestRecord, requested } from './given.testing';
import { RunInput } from './inputs';
import { modelMessages, requestViolations } from './invariants';
import { DEFAULT_RUN_LIMITS, RunLimits } from './limits';
import { RunStep, nextStep } from './next-step';
import { PendingEvent } from './pending-event';
import { replayRun } from './replay';
import { auditRun } from './audit';
import { RunState } from './state';

/**
 * Whole runs driven the way the effects shell drives them: from an empty log, take `nextStep`,
 * answer it with an arbitrary but plausible input, decide (fetching what the decision needs),
 * fold; until the run ends. The invariants are checked over the whole log after every decision.
 */

const SWITCHES: ReadonlyArray<readonly [UserMode, boolean]> = [
  ['agent', true],
  ['agent', false],
  ['chat', true],
  ['chat', false],
];

const smallLimits: fc.Arbitrary<RunLimits> = fc.record({
  maxToolIterations: fc.integer({ min: 0, max: 4 }),
  maxDeliveryChecks: fc.integer({ min: 0, max: 3 }),
  maxCorrectionsPerStage: fc.integer({ min: 0, max: 3 }),
  maxDelegationDepth: fc.integer({ min: 0, max: 3 }),
  contextWindow: fc.constant(DEFAULT_RUN_LIMITS.contextWindow),
});
const limitsArb = fc.oneof(fc.constant(DEFAULT_RUN_LIMITS), smallLimits);

/**
 * A bound on the steps of any run: every stage entry takes at most `maxCorrectionsPerStage + 1`
 * model calls and the last may open three tool calls (the most a reply here carries); a delivery
 * round enters act, at most `maxToolIterations` followups (a change of speaker takes one too) and
 * the gate; then warmup and QA.
 */
const stepBound = (l: RunLimits): number =>
  (2 + Math.max(l.maxDeliveryChecks, 1) * (l.maxToolIterations + 2)) * (l.maxCorrectionsPerStage + 1 + 3) + 2;

// What a model may answer, drawn without knowing the stage; `fitting` writes the format the stage asks for.
const reasoningArb = fc.constantFrom(
  'fitting',
  'fitting',
  'fitting',
  'fitting',
  'none',
  'micro',
  'macro',
  'too_short',
  'unterminated',
  'stray',
);
const visibleArb = fc.constantFrom(
  '',
  'Here is the fix.',
  'Could you please paste the file?',
  'Delivery: DONE',
  'Delivery: NEEDS_WORK',
  'Fixed it.\nDelivery: DONE',
  'I will read src/a.ts next.',
);
const tagArb = fc.constantFrom(
  '<delegate-reasoning agent="code reviewer">Names no context id can carry are refused.</delegate-reasoning>',
  '<delegate-reasoning agent="reviewer">Review the diff.</delegate-reasoning>',
  '<delegate-reasoning agent="tester">Write a test.</delegate-reasoning>',
  '<delegate-reasoning agent="main">Take over.</delegate-reasoning>',
  '<delegate-reasoning>   </delegate-reasoning>',
  '<return-control>The diff is fine.</return-control>',
  '<return-control></return-control>',
);
const toolCallArb = fc.record({
  name: fc.constantFrom('read_file', 'list_dir', 'search_code', 'write_file', 'apply_patch', 'run_command', 'format_disk', 'memory_recall'),
  arguments: fc.constantFrom('{"path":"src/a.ts"}', '{}', '', 'not json', '[1]', '"text"', 'null'),
});
const answerArb = fc.record({
  reasoning: reasoningArb,
  delivery: fc.constantFrom<'DONE' | 'NEEDS_WORK'>('DONE', 'NEEDS_WORK'),
  next: fc.constantFrom('read src/a.ts', 'none', ''),
  visible: visibleArb,
  tags: fc.array(tagArb, { maxLength: 2 }),
  calls: fc.array(toolCallArb, { maxLength: 3 }),
});
type Answer = typeof answerArb extends fc.Arbitrary<infer A> ? A : never;

const stopArb = fc.record({ kind: fc.constant('stop' as const), code: fc.constantFrom(...ErrorCode.options) });
const modelArb = fc.oneof(
  { weight: 40, arbitrary: answerArb.map((a) => ({ ...a, kind: 'answer' as const })) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('model_fails' as const), code: fc.constantFrom(...ErrorCode.options) }) },
  { weight: 1, arbitrary: stopArb },
);
const toolArb = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({
      kind: fc.constant('tool_ok' as const),
      ok: fc.boolean(),
      output: fc.constantFrom('contents of a.ts', '', 'error: no such file'),
    }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('tool_fails' as const), code: fc.constantFrom(...ErrorCode.options) }) },
  { weight: 1, arbitrary: stopArb },
);
const reviewArb = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('review' as const), verdict: fc.constantFrom<'pass' | 'concerns'>('pass', 'concerns') }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: 'review_fails' as const }) },
  { weight: 1, arbitrary: stopArb },
);

function reasoningText(a: Answer, rule: string): string {
  const format = a.reasoning === 'fitting' ? (rule === 'macro' ? 'macro' : rule === 'micro' ? 'micro' : 'none') : a.reasoning;
  switch (format) {
    case 'micro':
      return micro({ delivery: a.delivery, next: a.next });
    case 'macro':
      return MACRO.replace('NEEDS_WORK', a.delivery);
    case 'too_short':
      return '<ide_reasoning>\n- Next action: go\n</ide_reasoning>';
    case 'unterminated':
      return '<ide_reasoning>\n- Plan delta: a\n- Next action: b\n- Delivery: DONE';
    case 'stray':
      return '</ide_reasoning>';
    default:
      return '';
  }
}

const toolCalls = (a: Answer): ToolCall[] => a.calls.map((c, i) => ({ id: `call_${i}`, name: c.name, arguments: c.arguments }));

/** The input the shell would feed after doing this step, from what was drawn for it. */
function inputFor(step: Exclude<RunStep, { kind: 'finished' }>, g: fc.GeneratorValue, stubborn: Answer | null): RunInput {
  switch (step.kind) {
    case 'call_model': {
      const { plan } = step;
      const request = plan.record ? requestRecord(plan) : undefined;
      const drawn = stubborn ? { ...stubborn, kind: 'answer' as const } : g(() => modelArb);
      if (drawn.kind === 'stop') return { type: 'RunStopped', fault: { code: drawn.code, message: 'stopped' }, at: AT };
      if (drawn.kind === 'model_fails')
        return { type: 'ModelCallFailed', request, fault: { code: drawn.code, message: 'model failed' }, at: AT };
      const content = [reasoningText(drawn, plan.policy.reasoning.rule), ...drawn.tags, drawn.visible].filter(Boolean).join('\n');
      return {
        type: 'ModelAnswered',
        request,
        response: { requestId: plan.requestId, content, toolCalls: toolCalls(drawn), latencyMs: 1, finishReason: 'stop' },
        at: AT,
      };
    }
    case 'run_tool': {
      const { callId, tool } = step.request;
      const drawn = g(() => toolArb);
      if (drawn.kind === 'stop') return { type: 'RunStopped', fault: { code: drawn.code, message: 'stopped' }, at: AT };
      if (drawn.kind === 'tool_fails')
        return { type: 'ToolCallFailed', callId, fault: { code: drawn.code, message: 'tool failed' }, at: AT };
      return {
        type: 'ToolAnswered',
        callId,
        result: { callId, tool, ok: drawn.ok, output: drawn.output, truncated: false, durationMs: 1, replayed: false },
        at: AT,
      };
    }
    case 'review': {
      const drawn = g(() => reviewArb);
      if (drawn.kind === 'stop') return { type: 'RunStopped', fault: { code: drawn.code, message: 'stopped' }, at: AT };
      if (drawn.kind === 'review_fails') return { type: 'ReviewFailed', fault: { code: 'UNAVAILABLE', message: 'qa is down' }, at: AT };
      return { type: 'ReviewReturned', report: { ...PASS, verdict: drawn.verdict }, modelCalls: [], at: AT };
    }
    case 'resume':
      return { type: 'RunResumed', at: AT };
    case 'await_approval':
      return { type: 'ApprovalAnswered', approvalId: step.approval.approvalId, decision: 'approve', at: AT };
    default: {
      const unreachable: never = step;
      return unreachable;
    }
  }
}

/**
 * Every invariant, over the whole log so far and the state it folds to: what `auditRun` checks over a
 * stored run, and the bounds and shape only a whole random run can break. Returns the broken ones.
 */
function violations(log: readonly PendingEvent[], limits: RunLimits): string[] {
  const problems = auditRun(log).map((f) => `event ${f.index}: ${f.invariant}: ${f.message}`);
  if (log[0]?.type !== 'RunStarted') return problems;
  let entries = 0;
  let stage: string | undefined;
  let doneAt = -1;
  let reviewed = false;
  let checks = 0;
  const contextIds = new Set<string>();
  let state: RunState = foldRun([]);
  log.forEach((event, i) => {
    state = evolveRun(state, event);
    if (doneAt >= 0 && state.status !== 'new' && state.deliveryState !== 'DONE')
      problems.push(`event ${i}: DONE (event ${doneAt}) was erased`);
    switch (event.type) {
      case 'StageEntered': {
        // The policy in force: the entry's own, or the one before it kept.
        const { contextId } = event.data;
        const policy = state.status === 'running' && state.current ? state.current.policy : null;
        if (!policy) throw new Error(`event ${i}: a stage entered with no policy`);
        if (policy.stage === 'warmup' && entries > 0) problems.push(`event ${i}: warmup entered again after ${stage}`);
        if (policy.stage === 'tool_followup' && event.data.iteration > limits.maxToolIterations)
          problems.push(`event ${i}: tool loop past its bound`);
        if (policy.delegation.depth > limits.maxDelegationDepth) problems.push(`event ${i}: delegation depth ${policy.delegation.depth}`);
        if (contextIds.has(contextId)) problems.push(`event ${i}: context id ${contextId} used twice`);
        contextIds.add(contextId);
        stage = policy.stage;
        entries++;
        break;
      }
      case 'DeliveryChecked':
        checks++;
        if (event.data.state === 'DONE' && doneAt < 0) doneAt = i;
        if (checks > Math.max(limits.maxDeliveryChecks, 1))
          problems.push(`event ${i}: delivery check ${checks} of ${limits.maxDeliveryChecks}`);
        break;
      case 'QAReportIssued':
        reviewed = true;
        break;
      case 'RunCompleted':
        if (!reviewed) problems.push(`event ${i}: completed without a QA report`);
        break;
      default:
        break;
    }
    if ((state.status === 'completed' || state.status === 'failed') && i < log.length - 1)
      problems.push(`event ${i}: events after the run ended`);
  });
  if (state.status !== 'new' && state.history.some(({ message: m }) => m.role === 'assistant' && containsReasoning(m.content)))
    problems.push('the history carries <ide_reasoning>');
  return problems;
}

/** What a model request would carry: its tools are the stage's, its messages carry no earlier reasoning. */
function requestProblems(step: RunStep): string[] {
  if (step.kind !== 'call_model') return [];
  const { plan } = step;
  const problems = requestViolations(plan, plan.policy.prompts, modelMessages(plan, { system: 'system' }));
  if (!plan.policy.toolLoop && plan.toolNames.length > 0 && plan.toolChoice !== 'none')
    problems.push(`${plan.policy.stage} lets the model call tools without a tool loop`);
  return problems;
}

interface Trace {
  inputs: string[];
  log: PendingEvent[];
}

const describeInput = (input: RunInput): string => {
  switch (input.type) {
    case 'ModelAnswered':
      return `ModelAnswered ${JSON.stringify(input.response.content)} calls=${JSON.stringify(input.response.toolCalls.map((c) => `${c.name}(${c.arguments})`))}`;
    case 'ToolAnswered':
      return `ToolAnswered ok=${input.result.ok}`;
    case 'ToolCallFailed':
    case 'ModelCallFailed':
    case 'ReviewFailed':
    case 'RunStopped':
      return `${input.type} ${input.fault.code}`;
    default:
      return input.type;
  }
};

/** Drives one run to its end; throws with the run's inputs when an invariant breaks or the run does not end in time. */
function driveRun(
  userMode: UserMode,
  reasoningEnabled: boolean,
  limits: RunLimits,
  g: fc.GeneratorValue,
  stubborn: Answer | null = null,
): Trace {
  const knowledge = new ShellKnowledge();
  const trace: Trace = { inputs: [], log: [] };
  let state = foldRun([]);
  const fail = (problems: string[]): never => {
    const tail = trace.log.slice(-12).map((e) => (e.type === 'StageEntered' ? `StageEntered ${e.data.stage}#${e.data.iteration}` : e.type));
    const model = stubborn ? `, the model always answers ${JSON.stringify(stubborn)}` : '';
    throw new Error(
      `${problems.join('\n')}\nlimits ${JSON.stringify(limits)}, ${userMode}/${reasoningEnabled}${model}\ninputs${trace.inputs.length > 24 ? ` (the last 24 of ${trace.inputs.length})` : ''}:\n  ${trace.inputs.slice(-24).join('\n  ')}\nlast events: ${tail.join(', ')}`,
    );
  };
  const commit = (input: RunInput) => {
    trace.inputs.push(describeInput(input));
    let events: PendingEvent[] = [];
    try {
      events = decideAsShell(input, state, limits, knowledge);
    } catch (error) {
      fail([`decide threw ${String(error)}`]);
    }
    trace.log.push(...events);
    state = events.reduce(evolveRun, state);
    const problems = [...violations(trace.log, limits), ...requestProblems(nextStep(state))];
    if (problems.length > 0) fail(problems);
  };
  commit(requested(userMode, reasoningEnabled));
  const bound = stepBound(limits);
  for (let steps = 0; ; steps++) {
    const step = nextStep(state);
    if (step.kind === 'finished') break;
    if (steps >= bound) fail([`the run did not end within ${bound} steps`]);
    commit(inputFor(step, g, stubborn));
  }
  if (state.status !== 'completed' && state.status !== 'failed') fail([`the run stopped ${state.status}`]);
  return trace;
}

describe('the run decider over whole random runs', () => {
  it.each(SWITCHES)('keeps every invariant and always ends (%s, reasoning %s)', (userMode, reasoningEnabled) => {
    fc.assert(
      fc.property(limitsArb, fc.gen(), (limits, g) => {
        driveRun(userMode, reasoningEnabled, limits, g);
      }),
      { numRuns: 150 },
    );
  });

  it.each(SWITCHES)(
    'replays every run from its own log: the same events, decided again (%s, reasoning %s)',
    (userMode, reasoningEnabled) => {
      fc.assert(
        fc.property(limitsArb, fc.gen(), (limits, g) => {
          const { log } = driveRun(userMode, reasoningEnabled, limits, g);
          expect(replayRun(log, limits)).toMatchObject({ identical: true, events: log.length });
          expect(auditRun(log)).toEqual([]);
        }),
        { numRuns: 100 },
      );
    },
  );

  // The worst model for termination says the same thing whatever it is told.
  it.each(SWITCHES)('ends even when the model repeats one answer forever (%s, reasoning %s)', (userMode, reasoningEnabled) => {
    fc.assert(
      fc.property(limitsArb, answerArb, fc.gen(), (limits, answer, g) => {
        driveRun(userMode, reasoningEnabled, limits, g, answer);
      }),
      { numRuns: 100 },
    );
  });

  it('reaches every stage, both endings and every kind of refusal and correction', () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(fc.constantFrom(...SWITCHES), limitsArb, fc.gen(), ([userMode, reasoningEnabled], limits, g) => {
        const { log } = driveRun(userMode, reasoningEnabled, limits, g);
        for (const e of log) {
          if (e.type === 'StageEntered') seen.add(e.data.stage);
          if (e.type === 'RunCompleted' || e.type === 'RunFailed' || e.type === 'ToolCallRequested') seen.add(e.type);
          if (e.type === 'InstructionIssued' && e.data.accepted) seen.add(e.data.instruction.kind);
          if (e.type === 'DeliveryChecked') seen.add(`delivery ${e.data.state}`);
          if (e.type === 'ToolCallRejected') seen.add(e.type);
          if (e.type === 'MessageAppended' && e.data.kind === 'correction') seen.add('correction');
          if (e.type === 'InstructionIssued' && !e.data.accepted) seen.add('refused instruction');
        }
      }),
      { numRuns: 200, seed: 42 },
    );
    expect([...seen].sort()).toEqual(
      [
        'DelegateReasoning',
        'IntermediateReasoning',
        'ReturnControl',
        'RunCompleted',
        'RunFailed',
        'ToolCallRejected',
        'ToolCallRequested',
        'act',
        'correction',
        'refused instruction',
        'delivery DONE',
        'delivery NEEDS_WORK',
        'delivery_check',
        'qa_review',
        'tool_followup',
        'warmup',
      ].sort(),
    );
  });
});

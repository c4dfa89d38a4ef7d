import { ErrorCode, StagePolicy, UserMode } from '@stagecraft/contracts';
import { RECOVERY_PROMPTS } from '@stagecraft/prompts';
import { containsReasoning } from '@stagecraft/reasoning';
import { fold } from '@stagecraft/decider';
import { decideStagePolicy } from '@stagecraft/policy';
import { runDecider } from './decide';
import {
  AT,
  MACRO,
  PASS,
  PROMPT,
  PolicyTable,
  call,
  given,
  like,
  micro,
  modelFails,
  policyTable,
  refusedWith,
  reply,
  requestRecord,
  requested,
  resumed,
  reviewFails,
  reviewed,
  runSpec,
  stopped,
  toolAnswers,
  toolFails,
} from './given.testing';
import { modelMessages, requestViolations } from './invariants';
import { DEFAULT_RUN_LIMITS } from './limits';
import { ModelCallPlan, nextStep } from './next-step';
import { pending } from './pending-event';
import { RunState } from './state';

const contextId = (agent: string, sequence: number) => `r1/${agent}/${String(sequence).padStart(3, '0')}/${AT}`;
const correction = (promptId: string, reason: string) =>
  like('MessageAppended', { role: 'user', kind: 'correction', intermediate: true, content: `${PROMPT(promptId)}\n\n(${reason})` });
const READ_ONLY = ['read_file', 'list_dir', 'search_code', 'find_symbol', 'list_entry_points', 'search_index', 'read_tool_output'] as const;
/** What every request of an agent run offers: the acting stages' tools. */
const ACTING_TOOLS = decideStagePolicy({
  userMode: 'agent',
  reasoningEnabled: true,
  stage: 'act',
  delegation: { depth: 0, chain: [] },
}).tools;

/** Runs in the stage the name says, built from real decisions. */
const warmup = given().after(requested());
const acting = warmup.after(reply(`${MACRO}\nI will read src/a.ts.`));
const plain = given().after(requested('agent', false));
const chat = given().after(requested('chat', true));
const gate = acting.after(reply(`${micro({ delivery: 'DONE' })}\nFixed the bound in src/a.ts.`));
const review = gate.after(reply(micro({ delivery: 'DONE' })));
const completed = review.after(reviewed());
const failed = acting.after(modelFails('UNAVAILABLE'));
const delegated = acting.after(
  reply(`${micro()}\nHanding over.\n<delegate-reasoning agent="reviewer">Review the diff.</delegate-reasoning>`),
);

const stateOf = (g: { state: RunState }) => g.state;
const stepOf = (g: { state: RunState }) => nextStep(g.state);

describe('decide: the stage machine', () => {
  it('starts an agent run with reasoning in warmup', () => {
    given()
      .when(requested())
      .then(
        like('RunStarted', {
          runId: 'r1',
          conversationId: 'c1',
          userMode: 'agent',
          reasoningEnabled: true,
          userInput: 'Fix the failing test.',
          projectRoot: '/p',
        }),
        like('MessageAppended', {
          messageId: 'r1.input',
          role: 'user',
          kind: 'user_input',
          content: 'Fix the failing test.',
          intermediate: false,
        }),
        like('StageEntered', {
          stage: 'warmup',
          iteration: 0,
          contextId: contextId('main', 1),
          policy: { stage: 'warmup', userMode: 'agent', reasoningEnabled: true, tools: [], reasoning: { rule: 'macro', required: true } },
        }),
      );
  });

  it.each<[UserMode, boolean]>([
    ['agent', false],
    ['chat', true],
    ['chat', false],
  ])('starts a %s run (reasoning %s) in act', (userMode, reasoningEnabled) => {
    given()
      .when(requested(userMode, reasoningEnabled))
      .then(
        like('RunStarted', { userMode, reasoningEnabled }),
        like('MessageAppended', { kind: 'user_input' }),
        like('StageEntered', { stage: 'act', iteration: 0, policy: { userMode, reasoningEnabled } }),
      );
  });

  it('moves from warmup to act once the plan is read, keeping the reasoning out of the message', () => {
    warmup.when(reply(`${MACRO}\nI will read src/a.ts.`)).then(
      like('ModelRequested', { requestId: 'r1.m1', stage: 'warmup', toolNames: ACTING_TOOLS, toolChoice: 'none' }),
      like('ModelResponded', { requestId: 'r1.m1' }),
      like('ReasoningRecorded', {
        requestId: 'r1.m1',
        format: 'macro',
        outcome: { next_action: 'read src/a.ts', delivery_state: 'NEEDS_WORK' },
      }),
      like('MessageAppended', {
        role: 'assistant',
        kind: 'assistant',
        content: 'I will read src/a.ts.',
        stage: 'warmup',
        intermediate: true,
      }),
      like('StageEntered', { stage: 'act', iteration: 0, contextId: contextId('main', 2), policy: { reasoning: { rule: 'micro' } } }),
    );
  });

  it('opens the tool calls of an acting reply and waits for them', () => {
    const { state } = acting
      .when(reply(`${micro()}\nReading.`, [call('read_file', { path: 'src/a.ts' }), call('list_dir', { path: 'src' })]))
      .then(
        like('ModelRequested', { requestId: 'r1.m2', stage: 'act' }),
        like('ModelResponded'),
        like('ReasoningRecorded', { format: 'micro' }),
        like('MessageAppended', { role: 'assistant', content: 'Reading.', toolCalls: [{ name: 'read_file' }, { name: 'list_dir' }] }),
        like('ToolCallRequested', {
          callId: 'r1.m2.call_read_file',
          tool: 'read_file',
          arguments: { path: 'src/a.ts' },
          stage: 'act',
          modelCallId: 'call_read_file',
        }),
        like('ToolCallRequested', { callId: 'r1.m2.call_list_dir', tool: 'list_dir' }),
      );
    expect(nextStep(state)).toMatchObject({ kind: 'run_tool', request: { callId: 'r1.m2.call_read_file' } });
  });

  it('closes the tool round when the last result is in, and follows up at the next iteration', () => {
    const open = acting.after(reply(`${micro()}\nReading.`, [call('read_file'), call('list_dir')]));
    open
      .when(toolAnswers('export const a = 1;'))
      .then(
        like('ToolCallCompleted', { callId: 'r1.m2.call_read_file', tool: 'read_file', ok: true, output: 'export const a = 1;' }),
        like('MessageAppended', { role: 'tool', kind: 'tool_result', toolCallId: 'call_read_file', content: 'export const a = 1;' }),
      );
    open
      .after(toolAnswers())
      .when(toolAnswers('a.ts', false))
      .then(
        like('ToolCallCompleted', { callId: 'r1.m2.call_list_dir', ok: false }),
        like('MessageAppended', { kind: 'tool_result', toolCallId: 'call_list_dir' }),
        like('StageEntered', { stage: 'tool_followup', iteration: 1, contextId: contextId('main', 3) }),
      );
  });

  it('bounds the tool loop: past maxToolIterations the delivery gate judges', () => {
    const loop = given()
      .withLimits({ maxToolIterations: 1 })
      .after(requested('agent', false), reply('Reading.', [call('read_file')]), toolAnswers());
    expect(loop.state).toMatchObject({ current: { stage: 'tool_followup', iteration: 1 } });
    loop
      .after(reply('Reading more.', [call('read_file')]))
      .when(toolAnswers())
      .then(
        like('ToolCallCompleted'),
        like('MessageAppended'),
        like('LimitReached', { limit: 'maxToolIterations', value: 1, stage: 'tool_followup', iteration: 1 }),
        like('StageEntered', { stage: 'delivery_check', iteration: 0 }),
      );
  });

  it('ends a run whose limits ran out NEEDS_WORK, naming the last limit and the cause, even when the gate says DONE without an answer', () => {
    const spent = given()
      .withLimits({ maxToolIterations: 0, maxDeliveryChecks: 1 })
      .after(requested('agent', false), reply('Reading.', [call('read_file')]), toolAnswers());
    expect(spent.state).toMatchObject({ current: { stage: 'delivery_check' }, limitReached: 'maxToolIterations' });
    const gated = spent.after(reply('Not yet.\nDelivery: NEEDS_WORK'));
    expect(gated.events.filter((e) => e.type === 'LimitReached').map((e) => e.data)).toEqual([
      { limit: 'maxToolIterations', value: 0, stage: 'act', iteration: 0 },
      { limit: 'maxDeliveryChecks', value: 1, stage: 'delivery_check', iteration: 0 },
    ]);
    gated
      .when(reviewed(PASS))
      .then(like('QAReportIssued'), like('RunCompleted', { deliveryState: 'NEEDS_WORK', limit: 'maxDeliveryChecks' }));
    const done = spent.after(reply('All checked.\nDelivery: DONE'));
    const completed = done
      .when(reviewed(PASS))
      .events()
      .find((e) => e.type === 'RunCompleted');
    // The tool loop ran out before any answer: nothing to deliver, whatever the gate said (docs/decisions/0056).
    expect(completed?.data).toEqual({
      deliveryState: 'NEEDS_WORK',
      answer: '',
      limit: 'maxDeliveryChecks',
      cause: 'maxDeliveryChecks ran out; no answer was given to deliver',
    });
  });

  it('sends an acting reply without tool calls to the delivery gate, which offers no tools', () => {
    acting
      .when(reply(`${micro({ delivery: 'DONE' })}\nFixed the bound in src/a.ts.`))
      .then(
        like('ModelRequested'),
        like('ModelResponded'),
        like('ReasoningRecorded'),
        like('MessageAppended', { role: 'assistant', content: 'Fixed the bound in src/a.ts.', intermediate: false }),
        like('StageEntered', { stage: 'delivery_check', iteration: 0, policy: { tools: [], toolLoop: false } }),
      );
    expect(stateOf(gate)).toMatchObject({ answer: 'Fixed the bound in src/a.ts.' });
  });

  it('passes DONE from the gate to QA, which may only read', () => {
    const { state } = gate
      .when(reply(micro({ delivery: 'DONE' })))
      .then(
        like('ModelRequested', { stage: 'delivery_check', toolNames: ACTING_TOOLS, toolChoice: 'none' }),
        like('ModelResponded'),
        like('ReasoningRecorded'),
        like('MessageAppended', { role: 'assistant', intermediate: true, stage: 'delivery_check' }),
        like('DeliveryChecked', { state: 'DONE', iteration: 0 }),
        like('StageEntered', { stage: 'qa_review', iteration: 0, policy: { tools: [...READ_ONLY, 'memory_recall'] } }),
      );
    expect(nextStep(state)).toMatchObject({
      kind: 'review',
      request: { answer: 'Fixed the bound in src/a.ts.', userMode: 'agent', reasoningEnabled: true },
    });
  });

  it('reads the Delivery line of a reply without reasoning', () => {
    const plainGate = plain.after(reply('Fixed it.'));
    plainGate
      .when(reply('All checked.\nDelivery: DONE'))
      .then(
        like('ModelRequested'),
        like('ModelResponded'),
        like('MessageAppended'),
        like('DeliveryChecked', { state: 'DONE' }),
        like('StageEntered', { stage: 'qa_review' }),
      );
    // "done" in prose is no verdict.
    plainGate
      .when(reply('I am done.'))
      .then(
        like('ModelRequested'),
        like('ModelResponded'),
        like('MessageAppended'),
        like('DeliveryChecked', { state: 'NEEDS_WORK' }),
        like('MessageAppended', { kind: 'correction' }),
        like('StageEntered', { stage: 'act' }),
      );
  });

  it('sends NEEDS_WORK back to act with the delivery guidance, at iteration = checks so far', () => {
    gate
      .when(reply(micro({ delivery: 'NEEDS_WORK' })))
      .then(
        like('ModelRequested'),
        like('ModelResponded'),
        like('ReasoningRecorded'),
        like('MessageAppended', { role: 'assistant' }),
        like('DeliveryChecked', { state: 'NEEDS_WORK', iteration: 0, reason: 'the delivery check said NEEDS_WORK: read src/a.ts' }),
        correction(RECOVERY_PROMPTS.enforceDeliveryCompletion, 'the delivery check found work left'),
        like('StageEntered', { stage: 'act', iteration: 1 }),
      );
  });

  it('goes on to QA once the delivery checks are spent, without guidance', () => {
    const twice = given()
      .withLimits({ maxDeliveryChecks: 2 })
      .after(requested('agent', false), reply('Fixed it.'), reply('Delivery: NEEDS_WORK'), reply('Fixed it again.'));
    expect(twice.state).toMatchObject({ deliveryChecks: 1, current: { stage: 'delivery_check', iteration: 1 } });
    twice
      .when(reply('Delivery: NEEDS_WORK'))
      .then(
        like('ModelRequested'),
        like('ModelResponded'),
        like('MessageAppended'),
        like('DeliveryChecked', { state: 'NEEDS_WORK', iteration: 1 }),
        like('LimitReached', { limit: 'maxDeliveryChecks', value: 2, stage: 'delivery_check', iteration: 1 }),
        like('StageEntered', { stage: 'qa_review' }),
      );
  });

  it('completes with the QA report and the acting answer', () => {
    const report = {
      verdict: 'concerns' as const,
      summary: 'no test added',
      findings: [{ severity: 'minor' as const, message: 'add a test' }],
    };
    const events = runSpec(review)
      .when(reviewed(report))
      .then([
        pending('QAReportIssued', { report, modelCalls: [] }),
        pending('RunCompleted', { deliveryState: 'DONE', answer: 'Fixed the bound in src/a.ts.' }),
      ]);
    expect(fold(runDecider, [...review.events, ...events])).toMatchObject({
      status: 'completed',
      answer: 'Fixed the bound in src/a.ts.',
      deliveryState: 'DONE',
      qaReport: report,
    });
  });

  it('completes with a concerns report when the review fails (QA is advisory)', () => {
    runSpec(review)
      .when(reviewFails('qa timed out'))
      .then([
        pending('QAReportIssued', {
          report: { verdict: 'concerns', summary: 'QA review could not be completed: qa timed out', findings: [] },
        }),
        pending('RunCompleted', { deliveryState: 'DONE', answer: 'Fixed the bound in src/a.ts.' }),
      ]);
  });

  it('completes NEEDS_WORK when the checks ran out', () => {
    const spent = given()
      .withLimits({ maxDeliveryChecks: 1 })
      .after(requested('chat', false), reply('Here is how.'), reply('Delivery: NEEDS_WORK'));
    runSpec(spent)
      .when(reviewed())
      .then([
        pending('QAReportIssued', { report: PASS, modelCalls: [] }),
        pending('RunCompleted', {
          deliveryState: 'NEEDS_WORK',
          answer: 'Here is how.',
          limit: 'maxDeliveryChecks',
          cause: 'maxDeliveryChecks ran out; the delivery check said NEEDS_WORK',
        }),
      ]);
  });
});

describe('decide: recovery', () => {
  it('asks for the reasoning format when the block is missing', () => {
    acting
      .when(reply('Just text.'))
      .then(
        like('ModelRequested'),
        like('ModelResponded'),
        correction(RECOVERY_PROMPTS.reasoningFormatCorrection, 'micro reasoning missing: no <ide_reasoning> block found'),
      );
  });

  it('asks for an answer when the reply is reasoning only', () => {
    acting
      .when(reply(micro()))
      .then(
        like('ModelRequested'),
        like('ModelResponded'),
        like('ReasoningRecorded'),
        correction(RECOVERY_PROMPTS.reasoningOnlyNoAnswer, 'reasoning without an answer or a tool call'),
      );
  });

  it('recovers from an empty reply, then follows up on a second one', () => {
    plain
      .when(reply(''))
      .then(like('ModelRequested'), like('ModelResponded'), correction(RECOVERY_PROMPTS.emptyResponseRecovery, 'empty response'));
    plain
      .after(reply(''))
      .when(reply('  '))
      .then(
        like('ModelRequested', { requestId: 'r1.m2' }),
        like('ModelResponded'),
        correction(RECOVERY_PROMPTS.emptyResponseFollowup, 'empty response'),
      );
  });

  it('tells an agent that asks the user for a file to use its tools; chat may ask', () => {
    plain
      .when(reply('Could you please paste the file?'))
      .then(
        like('ModelRequested'),
        like('ModelResponded'),
        correction(RECOVERY_PROMPTS.noUserInputNextStep, 'asked the user for input instead of using its tools'),
      );
    given()
      .after(requested('chat', false))
      .when(reply('Could you please paste the file?'))
      .then(
        like('ModelRequested'),
        like('ModelResponded'),
        like('MessageAppended', { role: 'assistant' }),
        like('StageEntered', { stage: 'delivery_check' }),
      );
  });

  it('nudges an acting agent that describes a next step without a tool call; once the corrections are spent the reply stands', () => {
    const described = `${micro({ delivery: 'NEEDS_WORK' })}\nNext I will edit src/a.ts.`;
    acting
      .when(reply(described))
      .then(
        like('ModelRequested'),
        like('ModelResponded'),
        like('ReasoningRecorded'),
        correction(RECOVERY_PROMPTS.forceToolFollowup, 'a next step was described but no tool was called'),
      );
    acting
      .after(reply(described), reply(described))
      .when(reply(described))
      .then(
        like('ModelRequested'),
        like('ModelResponded'),
        like('ReasoningRecorded'),
        like('MessageAppended', { role: 'assistant', content: 'Next I will edit src/a.ts.' }),
        like('StageEntered', { stage: 'delivery_check' }),
      );
  });

  it('nudges thin reasoning that names no next action', () => {
    chat
      .when(reply(`${micro({ next: 'none' })}\nHere is a start.`))
      .then(
        like('ModelRequested'),
        like('ModelResponded'),
        like('ReasoningRecorded'),
        correction(RECOVERY_PROMPTS.lowQualityReasoning, 'the reasoning names no next action'),
      );
  });

  it('fails the run MODEL_FORMAT when the required corrections are exhausted', () => {
    acting
      .after(reply('Just text.'), reply('Still text.'))
      .when(reply('Text again.'))
      .then(
        like('ModelRequested'),
        like('ModelResponded'),
        like('RunFailed', {
          code: 'MODEL_FORMAT',
          stage: 'act',
          reason: expect.stringContaining('still wrong after 2 correction(s) in act'),
        }),
      );
  });

  it('counts corrections per stage entry', () => {
    const corrected = acting.after(reply('Just text.'));
    expect(corrected.state).toMatchObject({ current: { stage: 'act', corrections: 1 } });
    expect(corrected.after(reply(`${micro({ delivery: 'DONE' })}\nFixed.`)).state).toMatchObject({
      current: { stage: 'delivery_check', corrections: 0 },
    });
  });
});

describe('decide: reasoning never re-enters', () => {
  it('keeps reasoning the user did not ask for out of the message, unrecorded', () => {
    plain
      .when(reply(`${micro()}\nFixed.`))
      .then(
        like('ModelRequested'),
        like('ModelResponded'),
        like('MessageAppended', { role: 'assistant', content: 'Fixed.' }),
        like('StageEntered', { stage: 'delivery_check' }),
      );
  });

  it('keeps a reply whose reasoning block is never closed out of the history', () => {
    const { state } = plain
      .after(reply('Fixed.'))
      .when(reply('Delivery: DONE\n<ide_reasoning>\n- Plan delta: a'))
      .then(
        like('ModelRequested'),
        like('ModelResponded'),
        like('MessageAppended', { content: 'Delivery: DONE' }),
        like('DeliveryChecked', { state: 'DONE' }),
        like('StageEntered', { stage: 'qa_review' }),
      );
    expect(state.status !== 'new' && state.history.some(({ message }) => containsReasoning(message.content))).toBe(false);
  });

  // Stripping one tag can join the text around it into another: `<ide_</ide_reasoning>reasoning>` becomes
  // `<ide_reasoning>`, an unterminated block, so nothing visible is left and the reply is corrected as empty.
  it('keeps a tag hidden around a stray closing tag out of the history', () => {
    const { events } = plain
      .when(reply('<ide_</ide_reasoning>reasoning>\nFixed.'))
      .then(like('ModelRequested'), like('ModelResponded'), like('MessageAppended', { role: 'user', kind: 'correction' }));
    expect(events.filter((e) => e.type === 'MessageAppended' && containsReasoning(e.data.content))).toEqual([]);
  });
});

describe('decide: tools', () => {
  const refusal = (code: string) =>
    like('MessageAppended', { role: 'tool', kind: 'tool_result', content: expect.stringMatching(new RegExp(`^tool_error: ${code}\\n`)) });

  it('refuses an unknown tool with a tool message, and the loop goes on', () => {
    acting.when(reply(`${micro()}\nFormatting.`, [call('format_disk', {})])).then(
      like('ModelRequested'),
      like('ModelResponded'),
      like('ReasoningRecorded'),
      like('MessageAppended', { role: 'assistant' }),
      like('ToolCallRejected', {
        callId: 'r1.m2.call_format_disk',
        tool: 'format_disk',
        stage: 'act',
        code: 'FORBIDDEN_TOOL',
        reason: 'unknown tool "format_disk"',
      }),
      refusal('REFUSED'),
      like('StageEntered', { stage: 'tool_followup', iteration: 1 }),
    );
  });

  // The last: nested past the bounds `tool.execute` takes, so never recorded (ToolArguments).
  const tooDeep = `{"path":"a","deep":${'['.repeat(20)}${']'.repeat(20)}}`;
  it.each(['not json', '[1, 2]', '"a string"', 'null', tooDeep])('refuses arguments that are not a JSON object (%s)', (args) => {
    acting
      .when(reply(`${micro()}\nReading.`, [call('read_file', args)]))
      .then(
        like('ModelRequested'),
        like('ModelResponded'),
        like('ReasoningRecorded'),
        like('MessageAppended'),
        like('ToolCallRejected', { tool: 'read_file', code: 'VALIDATION', reason: 'the arguments of read_file are not a JSON object' }),
        refusal('REFUSED'),
        like('StageEntered', { stage: 'tool_followup' }),
      );
  });

  it('refuses tool calls in a stage without a tool loop', () => {
    given()
      .after(requested('chat', false))
      .when(reply('Let me look.', [call('read_file')]))
      .then(
        like('ModelRequested', { toolNames: [] }),
        like('ModelResponded'),
        like('MessageAppended', { role: 'assistant', toolCalls: [{ name: 'read_file' }] }),
        like('ToolCallRejected', {
          tool: 'read_file',
          stage: 'act',
          code: 'FORBIDDEN_TOOL',
          reason: 'no tools are available in the act stage',
        }),
        refusal('REFUSED'),
        like('StageEntered', { stage: 'delivery_check' }),
      );
    gate.when(reply(micro({ delivery: 'DONE' }), [call('run_command', { command: 'npm test' })])).then(
      like('ModelRequested'),
      like('ModelResponded'),
      like('ReasoningRecorded'),
      like('MessageAppended'),
      like('ToolCallRejected', {
        tool: 'run_command',
        stage: 'delivery_check',
        reason: 'no tools are available in the delivery_check stage',
      }),
      refusal('REFUSED'),
      like('DeliveryChecked', { state: 'DONE' }),
      like('StageEntered', { stage: 'qa_review' }),
    );
  });

  it.each<ErrorCode>(['FORBIDDEN_TOOL', 'FORBIDDEN_PATH', 'VALIDATION'])(
    'takes a %s refusal from the tool service as a result the model can read',
    (code) => {
      acting
        .after(reply(`${micro()}\nReading.`, [call('read_file', { path: '/etc/passwd' })]))
        .when(toolFails(code, 'outside the project root'))
        .then(
          like('ToolCallRejected', {
            callId: 'r1.m2.call_read_file',
            tool: 'read_file',
            stage: 'act',
            code,
            reason: 'outside the project root',
          }),
          like('MessageAppended', {
            role: 'tool',
            toolCallId: 'call_read_file',
            content: `tool_error: ${code}\nproblem: outside the project root\nretry: use a tool and arguments this stage allows`,
          }),
          like('StageEntered', { stage: 'tool_followup', iteration: 1 }),
        );
    },
  );

  it.each(ErrorCode.options.filter((code) => !['FORBIDDEN_TOOL', 'FORBIDDEN_PATH', 'VALIDATION'].includes(code)))(
    'fails the run on any other tool error (%s)',
    (code) => {
      acting
        .after(reply(`${micro()}\nReading.`, [call('read_file')]))
        .when(toolFails(code, 'it broke'))
        .then(like('RunFailed', { code, reason: 'it broke', stage: 'act' }));
    },
  );

  it('fails the run when the model call fails, keeping the request', () => {
    acting
      .when(modelFails('TIMEOUT'))
      .then(like('ModelRequested', { requestId: 'r1.m2' }), like('RunFailed', { code: 'TIMEOUT', stage: 'act' }));
  });
});

describe('decide: delegation', () => {
  it('hands the stage to an accepted specialist under its own chain policy and context id', () => {
    acting.when(reply(`${micro()}\nHanding over.\n<delegate-reasoning agent="reviewer">Review the diff.</delegate-reasoning>`)).then(
      like('ModelRequested'),
      like('ModelResponded'),
      like('ReasoningRecorded'),
      like('MessageAppended', { role: 'assistant', content: 'Handing over.' }),
      like('InstructionIssued', {
        accepted: true,
        instruction: { kind: 'DelegateReasoning', agentType: 'reviewer', agentPrompt: 'Review the diff.', markIntermediate: true },
      }),
      like('MessageAppended', {
        role: 'user',
        kind: 'delegation',
        intermediate: true,
        content: expect.stringContaining('Control is now with the specialist reviewer'),
      }),
      like('StageEntered', {
        stage: 'act',
        iteration: 1,
        contextId: contextId('reviewer', 1),
        policy: {
          delegation: { depth: 1, chain: ['reviewer'] },
          userMode: 'agent',
          reasoningEnabled: true,
          prompts: expect.arrayContaining(['base/delegation_context']),
        },
      }),
    );
  });

  it("asks for the new chain's policies", () => {
    acting.when(reply(`${micro()}\n<delegate-reasoning agent="reviewer">Review the diff.</delegate-reasoning>`)).thenNeeds({
      kind: 'policies',
      request: { userMode: 'agent', reasoningEnabled: true, delegation: { depth: 1, chain: ['reviewer'] } },
    });
  });

  it("marks the specialist's messages intermediate, and they never become the user's answer", () => {
    const { state } = delegated.when(reply(`${micro({ delivery: 'DONE' })}\nThe diff looks right.`)).then(
      like('ModelRequested'),
      like('ModelResponded'),
      like('ReasoningRecorded'),
      like('InstructionIssued', { instruction: { kind: 'IntermediateReasoning' }, accepted: true }),
      like('MessageAppended', {
        role: 'assistant',
        content: 'The diff looks right.',
        intermediate: true,
        instructions: [{ kind: 'IntermediateReasoning' }],
      }),
      like('StageEntered', { stage: 'delivery_check' }),
    );
    expect(state).toMatchObject({ answer: 'Handing over.' });
  });

  it('returns control to the main agent with the result', () => {
    const { state } = delegated.when(reply(`${micro()}\n<return-control>The diff is fine.</return-control>`)).then(
      like('ModelRequested'),
      like('ModelResponded'),
      like('ReasoningRecorded'),
      like('InstructionIssued', { instruction: { kind: 'IntermediateReasoning' } }),
      like('MessageAppended', { role: 'assistant', content: '' }),
      like('InstructionIssued', { accepted: true, instruction: { kind: 'ReturnControl', result: 'The diff is fine.' } }),
      like('MessageAppended', { kind: 'delegation', content: 'Specialist reviewer returned control. Its result:\nThe diff is fine.' }),
      like('StageEntered', {
        stage: 'act',
        iteration: 2,
        contextId: contextId('main', 3),
        policy: { delegation: { depth: 0, chain: [] } },
      }),
    );
    expect(state).toMatchObject({ delegations: [] });
  });

  it('refuses a delegation loop, and the refused reply still closes the round', () => {
    const { state } = delegated.when(reply(`${micro()}\n<delegate-reasoning agent="reviewer">Again.</delegate-reasoning>`)).then(
      like('ModelRequested'),
      like('ModelResponded'),
      like('ReasoningRecorded'),
      like('InstructionIssued', { instruction: { kind: 'IntermediateReasoning' } }),
      like('MessageAppended', { role: 'assistant' }),
      like('InstructionIssued', { accepted: false, reason: 'delegation loop main → reviewer → reviewer' }),
      like('MessageAppended', {
        kind: 'delegation',
        content: 'Delegation to reviewer refused: delegation loop main → reviewer → reviewer. Continue without it.',
      }),
      like('StageEntered', {
        stage: 'act',
        iteration: 2,
        contextId: contextId('reviewer', 2),
      }),
    );
    // The stage is entered again with the policy it had, which its entry does not repeat.
    expect(state).toMatchObject({ current: { stage: 'act', iteration: 2, policy: { delegation: { chain: ['reviewer'] } } } });
  });

  it('refuses a delegation past the depth limit', () => {
    const { state } = given()
      .withLimits({ maxDelegationDepth: 0 })
      .after(requested('agent', false))
      .when(reply('<delegate-reasoning agent="tester">Write a test.</delegate-reasoning>'))
      .then(
        like('ModelRequested'),
        like('ModelResponded'),
        like('MessageAppended', { role: 'assistant', content: '' }),
        like('InstructionIssued', { accepted: false, reason: 'delegation depth limit 0 reached (main)' }),
        like('MessageAppended', { kind: 'delegation' }),
        like('StageEntered', { stage: 'act', iteration: 1 }),
      );
    expect(state).toMatchObject({ current: { stage: 'act', iteration: 1, policy: { delegation: { depth: 0 } } } });
  });

  it('refuses a return of control when no specialist is active', () => {
    plain
      .when(reply('<return-control>done</return-control>'))
      .then(
        like('ModelRequested'),
        like('ModelResponded'),
        like('MessageAppended'),
        like('InstructionIssued', { accepted: false, reason: 'no specialist is active', instruction: { kind: 'ReturnControl' } }),
        like('MessageAppended', { kind: 'delegation', content: 'Return of control refused: no specialist is active. Continue the task.' }),
        like('StageEntered', { stage: 'act', iteration: 1 }),
      );
  });

  it('ends the tool loop of a model that keeps asking for a refused delegation', () => {
    const refused = '<return-control>done</return-control>';
    const stubborn = given().withLimits({ maxToolIterations: 2 }).after(requested('agent', false), reply(refused), reply(refused));
    expect(stubborn.state).toMatchObject({ current: { stage: 'act', iteration: 2 } });
    expect(stubborn.when(reply(refused)).events().at(-1)).toMatchObject({ type: 'StageEntered', data: { stage: 'delivery_check' } });
  });

  it('reads no delegation tags in chat', () => {
    given()
      .after(requested('chat', false))
      .when(reply('<delegate-reasoning agent="reviewer">Review.</delegate-reasoning>'))
      .then(
        like('ModelRequested'),
        like('ModelResponded'),
        like('MessageAppended', { role: 'assistant' }),
        like('StageEntered', { stage: 'delivery_check' }),
      );
  });

  // The agent type names a segment of every context id its agent writes: a name no id can carry is refused.
  it('refuses a delegation to an agent type that no context id can carry', () => {
    plain
      .when(reply('<delegate-reasoning agent="code reviewer">Review the diff.</delegate-reasoning>'))
      .then(
        like('ModelRequested'),
        like('ModelResponded'),
        like('MessageAppended'),
        like('InstructionIssued', { accepted: false }),
        like('MessageAppended', { kind: 'delegation' }),
        like('StageEntered', { stage: 'act', iteration: 1 }),
      );
  });
});

describe("decide: the user's switches", () => {
  const switching =
    (over: Partial<StagePolicy>): PolicyTable =>
    (switches) =>
      policyTable(switches).map((p) => ({ ...p, ...over }));

  it('fails the run INVARIANT_VIOLATION when a policy changes the mode', () => {
    given()
      .withPolicies(switching({ userMode: 'chat' }))
      .when(requested())
      .then(
        like('RunStarted'),
        like('MessageAppended'),
        like('RunFailed', { code: 'INVARIANT_VIOLATION', reason: expect.stringContaining('mode chat') }),
      );
  });

  it('fails the run INVARIANT_VIOLATION when a policy turns reasoning off', () => {
    given()
      .withPolicies(switching({ reasoningEnabled: false }))
      .when(requested())
      .then(
        like('RunStarted'),
        like('MessageAppended'),
        like('RunFailed', { code: 'INVARIANT_VIOLATION', reason: expect.stringContaining('reasoning false') }),
      );
  });

  it("fails the run when a specialist's policy changes the mode", () => {
    const chatForSpecialists: PolicyTable = (switches) =>
      policyTable(switches).map((p) => (switches.delegation.depth > 0 ? { ...p, userMode: 'chat' } : p));
    given()
      .withPolicies(chatForSpecialists)
      .after(requested('agent', false))
      .when(reply('<delegate-reasoning agent="reviewer">Review.</delegate-reasoning>'))
      .then(
        like('ModelRequested'),
        like('ModelResponded'),
        like('MessageAppended'),
        like('InstructionIssued', { accepted: true }),
        like('MessageAppended'),
        like('RunFailed', { code: 'INVARIANT_VIOLATION', stage: 'act' }),
      );
  });
});

describe('decide: needs', () => {
  it('asks for the policies on the first decision', () => {
    runSpec(given())
      .when(requested('chat', false))
      .thenNeeds({ kind: 'policies', request: { userMode: 'chat', reasoningEnabled: false, delegation: { depth: 0, chain: [] } } });
    // The shell fetches them and decides again: the same need, once.
    given()
      .when(requested('chat', false))
      .thenNeeds({ kind: 'policies', request: { userMode: 'chat', reasoningEnabled: false, delegation: { depth: 0, chain: [] } } });
  });

  it('asks for a correction prompt, assembled under the stage policy', () => {
    const need = runSpec(acting).when(reply('Just text.')).thenNeeds();
    expect(need).toMatchObject({
      kind: 'prompt',
      promptId: RECOVERY_PROMPTS.reasoningFormatCorrection,
      request: { policy: { stage: 'act', prompts: [RECOVERY_PROMPTS.reasoningFormatCorrection] } },
    });
  });

  it('decides nothing while something is missing', () => {
    const knowledge = { policies: () => undefined, prompt: () => undefined, summary: () => undefined };
    runSpec(given(), knowledge)
      .when(requested())
      .thenNeeds({ kind: 'policies', request: { userMode: 'agent', reasoningEnabled: true, delegation: { depth: 0, chain: [] } } });
  });

  it('asks for nothing a shell already knows', () => {
    gate.when(reply(`${micro({ delivery: 'DONE' })}`)).thenNeeds();
    expect(
      runSpec(gate)
        .when(reply(`${micro({ delivery: 'DONE' })}`))
        .events().length,
    ).toBeGreaterThan(0);
  });
});

describe('decide: the end of a run', () => {
  it.each([
    ['completed', completed],
    ['failed', failed],
  ])('a %s run is finished: late inputs throw, a stop or a resume adds nothing', (status, run) => {
    expect(run.state.status).toBe(status);
    expect(stepOf(run)).toEqual({ kind: 'finished' });
    runSpec(run).when(stopped()).then([]);
    runSpec(run).when(resumed()).then([]);
    runSpec(run)
      .when({
        type: 'ModelAnswered',
        response: { requestId: 'r1.m9', content: 'late', toolCalls: [], latencyMs: 1, finishReason: 'stop' },
        at: AT,
      })
      .thenThrows(refusedWith('INTERNAL'));
    runSpec(run).when(reviewed()).thenThrows(refusedWith('INTERNAL'));
    runSpec(run)
      .when({
        type: 'ToolAnswered',
        callId: 'x',
        result: { callId: 'x', tool: 'read_file', ok: true, output: '', truncated: false, durationMs: 1, replayed: false },
        at: AT,
      })
      .thenThrows(refusedWith('INTERNAL'));
  });

  it('a stopped run fails with the reason in its stage', () => {
    runSpec(acting)
      .when(stopped('UNAVAILABLE'))
      .then([pending('RunFailed', { code: 'UNAVAILABLE', reason: 'the shell gave up', stage: 'act' })]);
  });

  it('refuses to start a run twice', () => {
    runSpec(acting).when(requested()).thenThrows(refusedWith('CONFLICT'));
  });

  it('refuses inputs that do not fit the step', () => {
    runSpec(acting).when(reviewed()).thenThrows(refusedWith('INTERNAL'));
    runSpec(acting)
      .when({ type: 'ToolCallFailed', callId: 'nope', fault: { code: 'VALIDATION', message: 'x' }, at: AT })
      .thenThrows(refusedWith('INTERNAL'));
    const early = {
      type: 'ModelAnswered' as const,
      response: { requestId: 'r1.m3', content: 'too early', toolCalls: [], latencyMs: 1, finishReason: 'stop' },
      at: AT,
    };
    runSpec(acting.after(reply(`${micro()}\nReading.`, [call('read_file')])))
      .when(early)
      .thenThrows(refusedWith('INTERNAL'));
  });
});

describe('decide: logs written by older versions', () => {
  const planOf = (state: RunState): ModelCallPlan => {
    const step = nextStep(state);
    if (step.kind !== 'call_model') throw new Error(`expected call_model, got ${step.kind}`);
    return step.plan;
  };

  it('asks again, without recording twice, for a request stored without its answer', () => {
    const asked = given(...acting.events, pending('ModelRequested', requestRecord(planOf(acting.state))));
    expect(stepOf(asked)).toMatchObject({ kind: 'call_model', plan: { requestId: 'r1.m2', record: false } });
    asked
      .when(reply(`${micro({ delivery: 'DONE' })}\nFixed.`))
      .then(
        like('ModelResponded', { requestId: 'r1.m2' }),
        like('ReasoningRecorded'),
        like('MessageAppended'),
        like('StageEntered', { stage: 'delivery_check' }),
      );
  });

  it('interprets an answer stored without its meaning when resumed', () => {
    const plan = planOf(acting.state);
    const answered = given(
      ...acting.events,
      pending('ModelRequested', requestRecord(plan)),
      pending('ModelResponded', {
        requestId: plan.requestId,
        content: `${micro({ delivery: 'DONE' })}\nFixed.`,
        toolCalls: [],
        latencyMs: 1,
        finishReason: 'stop',
      }),
    );
    expect(stepOf(answered)).toEqual({ kind: 'resume' });
    answered
      .when(resumed())
      .then(
        like('ReasoningRecorded', { requestId: 'r1.m2' }),
        like('MessageAppended', { content: 'Fixed.' }),
        like('StageEntered', { stage: 'delivery_check' }),
      );
  });

  it('enters the first stage of a run stored without one', () => {
    const bare = given(...plain.events.filter((e) => e.type !== 'StageEntered'));
    expect(stepOf(bare)).toEqual({ kind: 'resume' });
    bare.when(resumed()).then(like('StageEntered', { stage: 'act', iteration: 0, contextId: contextId('main', 1) }));
  });

  it('completes a run stored with its QA report but without its end', () => {
    const reported = given(...review.events, pending('QAReportIssued', { report: PASS }));
    expect(stepOf(reported)).toEqual({ kind: 'resume' });
    runSpec(reported)
      .when(resumed())
      .then([pending('RunCompleted', { deliveryState: 'DONE', answer: 'Fixed the bound in src/a.ts.' })]);
  });

  it('does nothing on a resume that has nothing to finish', () => {
    runSpec(acting).when(resumed()).then([]);
  });
});

describe('nextStep', () => {
  it('is finished before a run starts and after it ends', () => {
    expect(nextStep({ status: 'new' })).toEqual({ kind: 'finished' });
    expect(stepOf(completed)).toEqual({ kind: 'finished' });
  });

  it('plans a model call with the policy, its prompt variables and the conversation', () => {
    expect(stepOf(warmup)).toMatchObject({
      kind: 'call_model',
      plan: {
        requestId: 'r1.m1',
        record: true,
        policy: { stage: 'warmup' },
        toolNames: ACTING_TOOLS,
        toolChoice: 'none',
        assemble: {
          layout: 'split',
          policy: { stage: 'warmup' },
          variables: { project_root: '/p', user_input: 'Fix the failing test.', tool_summary: 'No tools have run yet.' },
          instructions: [],
          agentType: 'main',
        },
        conversation: [{ role: 'user', content: 'Fix the failing test.' }],
      },
    });
  });

  it('offers the same tools in every stage of the run, and lets the model call them only where the stage runs a tool loop', () => {
    const offered = (g: { state: RunState }) => {
      const step = stepOf(g);
      return step.kind === 'call_model' ? { toolNames: step.plan.toolNames, toolChoice: step.plan.toolChoice } : null;
    };
    expect(offered(acting)).toEqual({ toolNames: ACTING_TOOLS, toolChoice: undefined });
    expect(offered(warmup)).toEqual({ toolNames: ACTING_TOOLS, toolChoice: 'none' });
    expect(offered(gate)).toEqual({ toolNames: ACTING_TOOLS, toolChoice: 'none' });
    expect(offered(chat)).toEqual({ toolNames: [], toolChoice: undefined });
  });

  it("carries the specialist's brief while it speaks", () => {
    expect(stepOf(delegated)).toMatchObject({
      kind: 'call_model',
      plan: {
        assemble: {
          agentType: 'reviewer',
          instructions: [{ kind: 'DelegateReasoning', agentType: 'reviewer', agentPrompt: 'Review the diff.' }],
        },
      },
    });
  });

  it('runs open tool calls one at a time, in the policy of the stage', () => {
    const open = delegated.after(reply(`${micro()}\nReading.`, [call('read_file', { path: 'a' }), call('search_code', { query: 'x' })]));
    expect(stepOf(open)).toEqual({
      kind: 'run_tool',
      request: {
        callId: 'r1.m3.call_read_file',
        runId: 'r1',
        tool: 'read_file',
        arguments: { path: 'a' },
        stage: 'act',
        userMode: 'agent',
        reasoningEnabled: true,
        delegation: { depth: 1, chain: ['reviewer'] },
        projectRoot: '/p',
      },
    });
    expect(stepOf(open.after(toolAnswers()))).toMatchObject({ kind: 'run_tool', request: { callId: 'r1.m3.call_search_code' } });
  });

  it('asks QA to review the answer with what the tools did', () => {
    const reviewedRun = acting.after(
      reply(`${micro()}\nReading.`, [call('read_file')]),
      toolAnswers(),
      reply(`${micro({ delivery: 'DONE' })}\nFixed.`),
      reply(micro({ delivery: 'DONE' })),
    );
    expect(stepOf(reviewedRun)).toMatchObject({
      kind: 'review',
      request: {
        runId: 'r1',
        conversationId: 'c1',
        userInput: 'Fix the failing test.',
        answer: 'Fixed.',
        projectRoot: '/p',
        toolSummary: '1. read_file ok',
        lastStepOutcome: expect.stringContaining('DONE'),
      },
    });
  });
});

describe('requestViolations', () => {
  const planOf = (g: { state: RunState }): ModelCallPlan => {
    const step = stepOf(g);
    if (step.kind !== 'call_model') throw new Error(`expected call_model, got ${step.kind}`);
    return step.plan;
  };

  it('lets a request out whose prompt matches the reasoning switch', () => {
    const plan = planOf(acting);
    expect(requestViolations(plan, plan.policy.prompts, modelMessages(plan, { system: 'system' }))).toEqual([]);
    const off = planOf(plain);
    expect(requestViolations(off, off.policy.prompts, modelMessages(off, { system: 'system' }))).toEqual([]);
  });

  it('finds the reasoning prompt missing when reasoning is required', () => {
    const plan = planOf(acting);
    expect(requestViolations(plan, ['base/system', 'agent/act'], modelMessages(plan, { system: 'system' }))).toEqual([
      'the act stage requires reasoning but the prompt carries no reasoning instruction',
    ]);
  });

  it('finds a reasoning prompt the user did not enable', () => {
    const plan = planOf(plain);
    expect(requestViolations(plan, [...plan.policy.prompts, 'agent/reasoning_micro'], modelMessages(plan, { system: 'system' }))).toEqual([
      'the prompt asks for reasoning the user did not enable',
    ]);
  });

  it('finds full reasoning carried back in an assistant message, and only there', () => {
    const plan = planOf(acting);
    const messages = modelMessages(plan, { system: 'system' });
    expect(requestViolations(plan, plan.policy.prompts, [...messages, { role: 'assistant', content: micro() }])).toEqual([
      `message ${messages.length} carries full <ide_reasoning> from an earlier step`,
    ]);
    const mentions = [
      ...messages,
      { role: 'user' as const, content: 'Write one <ide_reasoning> block.' },
      { role: 'tool' as const, content: '<ide_reasoning>', toolCallId: 'c' },
    ];
    expect(requestViolations(plan, plan.policy.prompts, mentions)).toEqual([]);
  });

  it('holds for every request of a whole run', () => {
    const run = acting.after(
      reply(`${micro()}\nReading.`, [call('read_file')]),
      toolAnswers('<ide_reasoning>in a file</ide_reasoning>'),
      reply(`${micro({ delivery: 'DONE' })}\nFixed.`),
    );
    const plan = planOf(run);
    expect(plan.conversation.filter((m) => m.role === 'assistant').map((m) => m.content)).toEqual([
      'I will read src/a.ts.',
      'Reading.',
      'Fixed.',
    ]);
    expect(requestViolations(plan, plan.policy.prompts, modelMessages(plan, { system: 'system' }))).toEqual([]);
  });
});

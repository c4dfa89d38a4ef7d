import { EventData, StagecraftEvent, StagePolicy } from '@stagecraft/contracts';
import { applyInstructions } from './delegation';
import { findInstructionTags } from './instruction-tags';
import { interpretResponse } from './interpret';
import { DEFAULT_RUN_LIMITS } from './limits';
import { nextStep } from './next-step';
import { RunState, foldRun } from './run-state';

const metadata = { runId: 'r1', conversationId: 'c1', correlationId: 'k', occurredAt: '2026-01-01T00:00:00.000Z' };
const ev = (type: StagecraftEvent['type'], data: unknown) => ({ type, data, metadata }) as StagecraftEvent;
const started = (mode: 'agent' | 'chat' = 'agent', reasoning = true) =>
  ev('RunStarted', { runId: 'r1', conversationId: 'c1', userMode: mode, reasoningEnabled: reasoning, userInput: 'do it', projectRoot: '/p' });
const policy = (stage: StagePolicy['stage'], over: Partial<StagePolicy> = {}): StagePolicy => ({
  userMode: 'agent',
  reasoningEnabled: true,
  stage,
  delegation: { depth: 0, chain: [] },
  tools: stage === 'act' || stage === 'tool_followup' ? ['read_file', 'write_file'] : [],
  prompts: ['base/system', stage === 'warmup' ? 'agent/reasoning_macro' : 'agent/reasoning_micro'],
  reasoning: { rule: stage === 'warmup' ? 'macro' : 'micro', required: true },
  toolLoop: stage === 'act' || stage === 'tool_followup',
  ...over,
});
const entered = (stage: StagePolicy['stage'], iteration = 0, over: Partial<StagePolicy> = {}) =>
  ev('StageEntered', { stage, iteration, policy: policy(stage, over), contextId: `r1/main/${iteration + 1}/2026-01-01T00:00:00.000Z` });
const responded = (content: string, toolCalls: EventData<'ModelResponded'>['toolCalls'] = []) =>
  ev('ModelResponded', { requestId: 'r1.m1', content, toolCalls, latencyMs: 1, finishReason: 'stop' });
const micro = (delivery = 'NEEDS_WORK') => `<ide_reasoning>\n- Plan delta: none\n- Next action: go\n- Known risks: none\n- Delivery: ${delivery}\n</ide_reasoning>`;
const macro = '<ide_reasoning>\nAnalyze: a\nResearch: b\nPlan: c\nReflect: d\nAction: e\nDelivery: NEEDS_WORK\n</ide_reasoning>';
const given = (...events: StagecraftEvent[]): RunState => foldRun(events);

describe('nextStep', () => {
  it('starts agent+reasoning runs in warmup, others in act', () => {
    expect(nextStep(given(started()), DEFAULT_RUN_LIMITS)).toEqual({ kind: 'enter_stage', stage: 'warmup', iteration: 0 });
    expect(nextStep(given(started('agent', false)), DEFAULT_RUN_LIMITS)).toEqual({ kind: 'enter_stage', stage: 'act', iteration: 0 });
    expect(nextStep(given(started('chat', true)), DEFAULT_RUN_LIMITS)).toEqual({ kind: 'enter_stage', stage: 'act', iteration: 0 });
  });

  it('asks the model, then interprets, then runs open tool calls one by one', () => {
    const s = [started(), entered('act')];
    expect(nextStep(given(...s), DEFAULT_RUN_LIMITS).kind).toBe('call_model');
    s.push(responded(micro(), [{ id: 'c1', name: 'read_file', arguments: '{"path":"a"}' }]));
    expect(nextStep(given(...s), DEFAULT_RUN_LIMITS).kind).toBe('interpret');
    s.push(ev('ToolCallRequested', { callId: 'r1.m1.c1', tool: 'read_file', arguments: { path: 'a' }, stage: 'act', modelCallId: 'c1' }));
    expect(nextStep(given(...s), DEFAULT_RUN_LIMITS)).toMatchObject({ kind: 'execute_tool', call: { callId: 'r1.m1.c1', modelCallId: 'c1' } });
    s.push(ev('ToolCallCompleted', { callId: 'r1.m1.c1', tool: 'read_file', ok: true, output: 'x', truncated: false, durationMs: 1 }));
    expect(nextStep(given(...s), DEFAULT_RUN_LIMITS)).toEqual({ kind: 'enter_stage', stage: 'tool_followup', iteration: 1 });
  });

  it('bounds the tool loop by sending it to the delivery gate', () => {
    const state = given(started(), entered('tool_followup', DEFAULT_RUN_LIMITS.maxToolIterations), ev('ToolCallRejected', { callId: 'x', tool: 'nope', stage: 'tool_followup', code: 'FORBIDDEN_TOOL', reason: 'r' }));
    expect(nextStep(state, DEFAULT_RUN_LIMITS)).toMatchObject({ kind: 'enter_stage', stage: 'delivery_check' });
  });

  it('reviews in qa_review and completes after the report; finished runs do nothing', () => {
    expect(nextStep(given(started(), entered('qa_review')), DEFAULT_RUN_LIMITS).kind).toBe('review');
    expect(nextStep(given(started(), entered('qa_review'), ev('QAReportIssued', { report: { verdict: 'pass', summary: 's', findings: [] } })), DEFAULT_RUN_LIMITS).kind).toBe('complete');
    expect(nextStep(given(started(), ev('RunFailed', { code: 'INTERNAL', reason: 'x' })), DEFAULT_RUN_LIMITS).kind).toBe('finished');
  });
});

describe('interpretResponse', () => {
  it('records macro reasoning in warmup and moves to act', () => {
    const result = interpretResponse(given(started(), entered('warmup'), responded(`${macro}\nNext: read.`)), DEFAULT_RUN_LIMITS);
    expect(result.events.map((e) => e.type)).toEqual(['ReasoningRecorded', 'MessageAppended']);
    expect(result.events[1].data).toMatchObject({ content: 'Next: read.' });
    expect(result.transition).toEqual({ stage: 'act', iteration: 0 });
  });

  it('asks for the format correction when required reasoning is missing, then fails after the bound', () => {
    const first = interpretResponse(given(started(), entered('act'), responded('just text')), DEFAULT_RUN_LIMITS);
    expect(first.correction?.promptId).toBe('delivery/reasoning_format_correction');
    const corrections = Array.from({ length: DEFAULT_RUN_LIMITS.maxCorrectionsPerStage }, (_, i) =>
      ev('MessageAppended', { messageId: `m${i}`, role: 'user', content: 'fix', instructions: [], intermediate: true, kind: 'correction' }),
    );
    const last = interpretResponse(given(started(), entered('act'), ...corrections, responded('just text')), DEFAULT_RUN_LIMITS);
    expect(last.failure?.code).toBe('MODEL_FORMAT');
  });

  it('recovers from an empty reply and from asking the user for files', () => {
    expect(interpretResponse(given(started('agent', false), entered('act', 0, { reasoning: { rule: 'none', required: false } }), responded('')), DEFAULT_RUN_LIMITS).correction?.promptId).toBe('agent/empty_response_recovery');
    expect(interpretResponse(given(started('agent', false), entered('act', 0, { reasoning: { rule: 'none', required: false } }), responded('Could you paste the file contents?')), DEFAULT_RUN_LIMITS).correction?.promptId).toBe('corrections/no_user_input_next_step');
  });

  it('requests known tools and refuses unknown ones with a readable tool result', () => {
    const result = interpretResponse(
      given(started(), entered('act'), responded(micro(), [{ id: 'a', name: 'read_file', arguments: '{"path":"x"}' }, { id: 'b', name: 'format_disk', arguments: '{}' }])),
      DEFAULT_RUN_LIMITS,
    );
    expect(result.events.map((e) => e.type)).toEqual(['ReasoningRecorded', 'MessageAppended', 'ToolCallRequested', 'ToolCallRejected', 'MessageAppended']);
    expect(result.events[3].data).toMatchObject({ tool: 'format_disk', code: 'FORBIDDEN_TOOL' });
    expect(result.transition).toBeUndefined();
  });

  it('passes DONE from the delivery gate to QA and keeps it whatever follows', () => {
    const result = interpretResponse(given(started(), entered('delivery_check'), responded(`${micro('DONE')}\nAll done.`)), DEFAULT_RUN_LIMITS);
    expect(result.events.at(-1)).toMatchObject({ type: 'DeliveryChecked', data: { state: 'DONE' } });
    expect(result.transition).toEqual({ stage: 'qa_review', iteration: 0 });
    const after = given(started(), ev('DeliveryChecked', { state: 'DONE', iteration: 0 }), ev('DeliveryChecked', { state: 'NEEDS_WORK', iteration: 1 }), ev('RunCompleted', { deliveryState: 'NEEDS_WORK', answer: 'a' }));
    expect(after.deliveryState).toBe('DONE');
  });

  it('sends NEEDS_WORK back to act until the bound, then on to QA', () => {
    expect(interpretResponse(given(started(), entered('delivery_check'), responded(micro())), DEFAULT_RUN_LIMITS).transition).toEqual({ stage: 'act', iteration: 1 });
    const checks = Array.from({ length: DEFAULT_RUN_LIMITS.maxDeliveryChecks - 1 }, (_, i) => ev('DeliveryChecked', { state: 'NEEDS_WORK', iteration: i }));
    expect(interpretResponse(given(started(), ...checks, entered('delivery_check'), responded(micro())), DEFAULT_RUN_LIMITS).transition?.stage).toBe('qa_review');
  });

  it('delegates on a tag, and marks the specialist messages intermediate', () => {
    const result = interpretResponse(given(started(), entered('act'), responded(`${micro()}\n<delegate-reasoning agent="reviewer">Review the diff carefully.</delegate-reasoning>`)), DEFAULT_RUN_LIMITS);
    expect(result.events.map((e) => e.type)).toEqual(['ReasoningRecorded', 'MessageAppended', 'InstructionIssued', 'MessageAppended']);
    expect(result.events[2].data).toMatchObject({ accepted: true, instruction: { kind: 'DelegateReasoning', agentType: 'reviewer', markIntermediate: true } });
    expect(result.transition).toEqual({ stage: 'act', iteration: 1 });
    const delegated = given(started(), entered('act'), { ...(result.events[2] as StagecraftEvent), metadata } as StagecraftEvent, responded(`${micro()}\nLooking.`, [{ id: 'c', name: 'read_file', arguments: '{"path":"a"}' }]));
    const next = interpretResponse(delegated, DEFAULT_RUN_LIMITS);
    expect(next.events.find((e) => e.type === 'MessageAppended')?.data).toMatchObject({ intermediate: true, instructions: [{ kind: 'IntermediateReasoning' }] });
  });
});

describe('delegation rules', () => {
  const d = (agentType: string) => ({ agentType, agentPrompt: 'p', markIntermediate: true });

  it('refuses a loop A → B → A', () => {
    const out = applyInstructions([d('a'), d('b')], [{ kind: 'DelegateReasoning', agentType: 'a', agentPrompt: 'again' }], DEFAULT_RUN_LIMITS);
    expect(out.events[0].data).toMatchObject({ accepted: false, reason: 'delegation loop main → a → b → a' });
  });

  it('refuses going deeper than the limit', () => {
    const out = applyInstructions([d('a'), d('b'), d('c')], [{ kind: 'DelegateReasoning', agentType: 'e', agentPrompt: 'deeper' }], DEFAULT_RUN_LIMITS);
    expect(out.events[0].data).toMatchObject({ accepted: false });
    expect(String((out.events[0].data as { reason: string }).reason)).toContain('depth limit 3');
  });

  it('returns control with the result, and refuses a return with no specialist', () => {
    expect(applyInstructions([d('a')], [{ kind: 'ReturnControl', result: 'found it' }], DEFAULT_RUN_LIMITS).notes[0]).toContain('found it');
    expect(applyInstructions([], [{ kind: 'ReturnControl', result: '' }], DEFAULT_RUN_LIMITS).events[0].data).toMatchObject({ accepted: false });
  });

  it('finds tags in order and leaves the rest of the text', () => {
    expect(findInstructionTags('a <delegate-reasoning agent="x">do</delegate-reasoning> b <return-control>r</return-control>')).toEqual({
      requested: [
        { kind: 'DelegateReasoning', agentType: 'x', agentPrompt: 'do' },
        { kind: 'ReturnControl', result: 'r' },
      ],
      rest: 'a  b',
    });
  });
});

import { ChatMessage, CompactionSettings, EventData, streams } from '@stagecraft/contracts';
import { summaryMessage } from './summary';
import { containsReasoning } from '@stagecraft/reasoning';
import { Given, MACRO, RUN_ID, call, given, micro, reply, requested, toolAnswers } from '../given.testing';
import { RunInput } from '../inputs';
import { nextStep } from '../next-step';
import { PendingEvent } from '../pending-event';
import { replayRun } from '../replay';
import { PriorTurns, RunState } from '../state';
import { DEFAULT_RUN_LIMITS } from '../limits';
import { conversationBudget, requestOverWindow } from '../window';
import { DEFAULT_COMPACTION, estimateTokens } from './settings';

const BY_COUNT: CompactionSettings = { method: 'extractive', maxMessages: 8, maxTokens: 1_000_000, keepRecentTokens: 40 };

const LIMITS = { ...DEFAULT_RUN_LIMITS, maxToolIterations: 40 };
const start = (compaction?: CompactionSettings, prior?: PriorTurns): RunInput =>
  ({ ...requested(), compaction, prior, limits: LIMITS }) as RunInput;

/** Warmup, then `rounds` tool rounds each reading another file. */
function toolLoop(rounds: number, compaction?: CompactionSettings, prior?: PriorTurns): Given {
  const inputs = [start(compaction, prior), reply(`${MACRO}\nI will read the files.`)];
  for (let i = 1; i <= rounds; i++)
    inputs.push(
      reply(`${micro({ next: `read f${i}.ts` })}\nReading f${i}.ts.`, [call('read_file', { path: `f${i}.ts` }, `c${i}`)]),
      toolAnswers(`export const f${i} = ${i};\n${'// a line of the file\n'.repeat(40)}`),
    );
  return given()
    .withLimits({ maxToolIterations: 40 })
    .after(...inputs);
}

const compactions = (events: readonly PendingEvent[]) =>
  events.flatMap((e) => (e.type === 'HistoryCompacted' ? [e.data as EventData<'HistoryCompacted'>] : []));

function plannedConversation(state: RunState) {
  const step = nextStep(state);
  if (step.kind !== 'call_model') throw new Error(`the run waits for ${step.kind}`);
  return step.plan.conversation;
}

describe('compacting a run’s history (seed 002 §7)', () => {
  it('never compacts a run whose start recorded no settings (every log from before compaction)', () => {
    expect(compactions(toolLoop(10).events)).toEqual([]);
  });

  it('compacts once the request would carry more messages than allowed, in the commit that leads to the request', () => {
    const run = toolLoop(4, BY_COUNT);
    const [first] = compactions(run.events);
    expect(first).toMatchObject({
      compactionId: `${RUN_ID}.compaction1`,
      method: 'extractive',
      trigger: { messageCount: 10, maxMessages: 8, maxTokens: 1_000_000 },
    });
    const at = run.events.findIndex((e) => e.type === 'HistoryCompacted');
    // Decided in the commit of the tool result, once the next stage is entered and before its request.
    expect(run.events.slice(at - 3, at).map((e) => e.type)).toEqual(['ToolCallCompleted', 'MessageAppended', 'StageEntered']);
    expect(first.tokensAfter).toBeLessThan(first.tokensBefore);
  });

  it('builds a structured summary from the user’s input, the outcomes and the tool results, citing the run’s events', () => {
    const [first] = compactions(toolLoop(4, BY_COUNT).events);
    const run = streams.run(RUN_ID);
    expect(first.summary.goals.items).toEqual(['Fix the failing test.']);
    expect(first.summary.goals.sources).toEqual([{ stream: run, from: 1, to: 1 }]);
    expect(first.summary.toolOutputs.items[0]).toMatch(/^read_file \{"path":"f1.ts"\} → export const f1 = 1; \/\/ a line of the file/);
    expect(first.summary.toolOutputs.items[0].length).toBeLessThanOrEqual(240);
    expect(first.summary.currentPlan.items.at(-1)).toMatch(/^Next: read f\d\.ts \(delivery NEEDS_WORK\)$/);
    expect(first.summary.decisions.items).toContain('look at the test');
    expect(first.covers).toEqual([{ stream: run, from: 1, to: expect.any(Number) }]);
    expect(containsReasoning(JSON.stringify(first.summary))).toBe(false);
    expect(JSON.stringify(first.summary)).not.toContain('ide_reasoning');
  });

  it('sends the summary, then the recent window, and no earlier message in full', () => {
    const run = toolLoop(4, BY_COUNT);
    const [first] = compactions(run.events);
    const conversation = plannedConversation(run.state);
    expect(conversation[0]).toEqual(summaryMessage(first.summary));
    expect(conversation[0].content).toMatch(/^Summary of the earlier conversation/);
    expect(conversation.slice(1).some((m) => m.content === 'Fix the failing test.' || m.content.includes('f1 = 1'))).toBe(false);
    // The window starts on the model's last step, never on a tool result cut off from its call.
    expect(conversation[1]).toMatchObject({ role: 'assistant', toolCalls: [{ name: 'read_file' }] });
    expect(conversation.length).toBeLessThanOrEqual(BY_COUNT.maxMessages);
  });

  it('keeps compacting as the loop goes on, each summary folding in the one before', () => {
    const run = toolLoop(14, BY_COUNT);
    const all = compactions(run.events);
    expect(all.length).toBeGreaterThan(2);
    expect(all.map((c) => c.compactionId)).toEqual(all.map((_, i) => `${RUN_ID}.compaction${i + 1}`));
    const last = all.at(-1)!;
    expect(last.summary.goals.items).toEqual(['Fix the failing test.']);
    expect(last.summary.toolOutputs.items.length).toBeLessThanOrEqual(10);
    expect(last.summary.toolOutputs.items.at(-1)).toMatch(/^read_file \{"path":"f1[0-9]\.ts"\}/);
    // No request ever carries more than the settings allow.
    expect(plannedConversation(run.state).length).toBeLessThanOrEqual(BY_COUNT.maxMessages);
  });

  it('compacts earlier turns at the start of a run when the conversation is already too long, citing the conversation', () => {
    const conversation = streams.conversation('c1');
    const prior: PriorTurns = {
      summary: null,
      messages: Array.from({ length: 10 }, (_, i) => ({
        message: { role: i % 2 === 0 ? ('user' as const) : ('assistant' as const), content: `turn ${i}` },
        kind: i % 2 === 0 ? ('user_input' as const) : ('assistant' as const),
        stream: conversation,
        revision: i,
      })),
    };
    const run = given().after(start(BY_COUNT, prior));
    const [first] = compactions(run.events);
    expect(first.covers[0]).toMatchObject({ stream: conversation, from: 0 });
    expect(first.summary.goals.items).toContain('turn 0');
    expect(first.summary.decisions.items).toContain('Answered: turn 1');
    expect(plannedConversation(run.state)[0].content).toMatch(/^Summary of the earlier conversation/);
  });

  it('with the model method, asks the shell for the model’s summary and records the call next to it', () => {
    const settings = { ...BY_COUNT, method: 'model' as const };
    const before = toolLoop(3, settings).after(reply(`${micro()}\nReading f4.ts.`, [call('read_file', { path: 'f4.ts' }, 'c4')]));
    const outcome = before
      .when(toolAnswers('export const f4 = 4;'))
      .thenNeeds({ kind: 'summary', compactionId: `${RUN_ID}.compaction1`, assemble: { policy: { prompts: ['compaction/summarize'] } } });
    const [made] = compactions(outcome.events);
    expect(made).toMatchObject({ method: 'model', modelCall: { requestId: `${RUN_ID}.compaction1`, model: 'test-model' } });
    expect(made.summary.goals.items).toEqual([`the goal, as the model put it (${RUN_ID}.compaction1)`]);
    expect(made.summary.goals.sources).toEqual(made.covers);
  });
});

describe('replaying a compacted run', () => {
  it('decides the same compactions again from the log alone, with either method', () => {
    for (const method of ['extractive', 'model'] as const) {
      const run = toolLoop(14, { ...BY_COUNT, method });
      expect(compactions(run.events).length).toBeGreaterThan(2);
      // The run started with 40 tool iterations and recorded them: a replay with the defaults still follows the run's own.
      expect(replayRun(run.events, DEFAULT_RUN_LIMITS)).toMatchObject({ identical: true });
    }
  });
});

describe('compacting to the run’s context window (docs/decisions/0050)', () => {
  const WINDOW = 8_192;
  const budget = conversationBudget({ contextWindow: WINDOW });
  const { contextWindow: _none, ...WITHOUT_WINDOW } = LIMITS;
  const file = (i: number) => `export const f${i} = ${i};\n${'// a line of the file, about forty characters\n'.repeat(90)}`;

  /** Warmup, then `rounds` rounds each reading a ~1,000-token file; the conversation each request carried. */
  function windowLoop(rounds: number, limits: object, compaction?: CompactionSettings, output = file) {
    let run = given()
      .withLimits({ maxToolIterations: 40 })
      .after({ ...requested(), compaction, limits } as RunInput, reply(`${MACRO}\nI will read the files.`));
    const sent: (readonly ChatMessage[])[] = [];
    for (let i = 1; i <= rounds; i++) {
      sent.push(plannedConversation(run.state));
      run = run.after(reply(`${micro({ next: `read f${i}.ts` })}\nReading f${i}.ts.`, [call('read_file', { path: `f${i}.ts` }, `c${i}`)]));
      run = run.after(toolAnswers(output(i)));
    }
    sent.push(plannedConversation(run.state));
    return { run, sent };
  }

  it('compacts a run that turned compaction off once its requests outgrow the window’s share, with the default method', () => {
    const { run, sent } = windowLoop(12, { ...LIMITS, contextWindow: WINDOW });
    const all = compactions(run.events);
    expect(all.length).toBeGreaterThan(0);
    expect(all[0]).toMatchObject({ method: DEFAULT_COMPACTION.method, trigger: { maxTokens: budget } });
    expect(all[0].trigger.tokenEstimate).toBeGreaterThan(budget);
    for (const conversation of sent) expect(estimateTokens(conversation)).toBeLessThanOrEqual(budget);
  });

  it('never compacts for a window the run did not record (older logs), however long its requests', () => {
    const { run, sent } = windowLoop(12, WITHOUT_WINDOW);
    expect(compactions(run.events)).toEqual([]);
    expect(estimateTokens(sent.at(-1)!)).toBeGreaterThan(budget);
  });

  it('fires on the window before the settings’ own bound, and records the bound it crossed', () => {
    const settings: CompactionSettings = { method: 'extractive', maxMessages: 1_000, maxTokens: 1_000_000, keepRecentTokens: 100 };
    const [first] = compactions(windowLoop(6, { ...LIMITS, contextWindow: WINDOW }, settings).run.events);
    expect(first.trigger).toMatchObject({ maxMessages: 1_000, maxTokens: budget });
    const [unbound] = compactions(windowLoop(6, WITHOUT_WINDOW, settings).run.events);
    expect(unbound).toBeUndefined();
  });

  it('shrinks a recent window kept verbatim that would not fit, down to the last exchange', () => {
    // The settings would keep everything verbatim; the window cannot hold it.
    const keepAll: CompactionSettings = { method: 'extractive', maxMessages: 1_000, maxTokens: 1_000_000, keepRecentTokens: 1_000_000 };
    const { run, sent } = windowLoop(12, { ...LIMITS, contextWindow: WINDOW }, keepAll);
    const all = compactions(run.events);
    expect(all.length).toBeGreaterThan(1);
    for (const c of all) expect(c.tokensAfter).toBeLessThanOrEqual(budget);
    for (const conversation of sent) expect(estimateTokens(conversation)).toBeLessThanOrEqual(budget);
    // What stays verbatim still starts on the model's step, never on a tool result cut off from its call.
    expect(plannedConversation(run.state)[1]).toMatchObject({ role: 'assistant', toolCalls: [{ name: 'read_file' }] });
  });

  it('keeps the last exchange whole even when it alone is over the window: the request is then refused, not sent', () => {
    const pasted = `Fix this:\n${'x'.repeat(4 * WINDOW)}`;
    const run = given().after({ ...requested('agent', true, pasted), limits: { ...LIMITS, contextWindow: WINDOW } } as RunInput);
    expect(compactions(run.events)).toEqual([]);
    const conversation = plannedConversation(run.state);
    expect(conversation.at(-1)).toMatchObject({ role: 'user', content: pasted });
    expect(estimateTokens(conversation)).toBeGreaterThan(budget);
    const limits = run.state.status === 'new' ? undefined : run.state.start.limits;
    expect(requestOverWindow(limits, conversation, [])).toEqual([
      expect.stringMatching(/^context window: the request would carry about [\d,]+ tokens/),
    ]);
  });

  it('replays a windowed run’s compactions from the log alone', () => {
    const { run } = windowLoop(12, { ...LIMITS, contextWindow: WINDOW });
    expect(compactions(run.events).length).toBeGreaterThan(0);
    expect(replayRun(run.events, DEFAULT_RUN_LIMITS)).toMatchObject({ identical: true });
  });
});

import { EventData } from '@stagecraft/contracts';
import { RECOVERY_PROMPTS } from '@stagecraft/prompts';
import { RULES_VERSION, STUCK_REPEATS, repeatedCalls, reviewToCarry, strictVerdict } from './gate';
import { renderDigest, runDigest } from './compaction/summary-digest';
import { Given, MACRO, PASS, PROMPT, call, given, like, micro, reply, requested, reviewed, toolAnswers } from './given.testing';
import { PendingEvent } from './pending-event';
import { foldRun } from './evolve';
import { DEFAULT_RUN_LIMITS } from './limits';
import { replayRun } from './replay';

const correction = (promptId: string, reason: string) =>
  like('MessageAppended', { role: 'user', kind: 'correction', content: `${PROMPT(promptId)}\n\n(${reason})` });

/** The same log as written before rules version 2: its `RunStarted` names no rules. */
function asVersion1(g: Given): Given {
  const events = g.events.map((e): PendingEvent => {
    if (e.type !== 'RunStarted') return e;
    const { rules: _rules, ...data } = e.data as EventData<'RunStarted'>;
    return { type: 'RunStarted', data };
  });
  return given(...events).withLimits(g.limits);
}

const acting = given().after(requested(), reply(`${MACRO}\nI will read src/a.ts.`));
const answered = acting.after(reply(`${micro({ delivery: 'DONE' })}\nFixed the bound in src/a.ts.`));
const contradiction = reply(`${micro({ delivery: 'DONE' })}\nDelivery: NEEDS_WORK (the tests were not run)`);

describe('the strict delivery gate (rules version 2)', () => {
  it('is recorded in every new run', () => {
    expect(acting.events[0]).toMatchObject({ type: 'RunStarted', data: { rules: RULES_VERSION } });
  });

  it('reads NEEDS_WORK when the visible statement says so, whatever the reasoning says', () => {
    answered
      .when(contradiction)
      .then(
        like('ModelRequested'),
        like('ModelResponded'),
        like('ReasoningRecorded', { outcome: { delivery_state: 'DONE' } }),
        like('MessageAppended', { role: 'assistant' }),
        like('DeliveryChecked', { state: 'NEEDS_WORK' }),
        like('MessageAppended', { kind: 'correction' }),
        like('StageEntered', { stage: 'act', iteration: 1 }),
      );
  });

  it('leaves a log written before it to replay as it ran: the reasoning decided', () => {
    const types = asVersion1(answered)
      .when(contradiction)
      .events()
      .filter((e) => e.type === 'DeliveryChecked')
      .map((e) => e.data);
    expect(types).toEqual([{ state: 'DONE', iteration: 0, reason: 'look at the test' }]);
  });

  it('never delivers an empty answer DONE, and says why the run ended NEEDS_WORK', () => {
    const looped = given()
      .withLimits({ maxToolIterations: 0, maxDeliveryChecks: 1 })
      .after(requested('agent', false), reply('', [call('read_file')]), toolAnswers());
    const gateSaysDone = reply('All checked.\nDelivery: DONE');
    const noAnswer = looped.after(gateSaysDone);
    const end = noAnswer.when(reviewed(PASS)).events().at(-1);
    expect(end).toEqual({
      type: 'RunCompleted',
      data: {
        deliveryState: 'NEEDS_WORK',
        answer: '',
        limit: 'maxDeliveryChecks',
        cause: 'maxDeliveryChecks ran out; no answer was given to deliver',
      },
    });
    // The same log from before: DONE with an empty answer, as it was recorded then.
    expect(asVersion1(looped).after(gateSaysDone).when(reviewed(PASS)).events().at(-1)).toEqual({
      type: 'RunCompleted',
      data: { deliveryState: 'DONE', answer: '' },
    });
  });

  it('counts the findings of the review in the cause', () => {
    const spent = given()
      .withLimits({ maxDeliveryChecks: 1 })
      .after(requested('chat', false), reply('Here is how.'), reply('Delivery: NEEDS_WORK'));
    const report = { verdict: 'concerns' as const, summary: 'untested', findings: [{ severity: 'major' as const, message: 'no test' }] };
    expect(spent.when(reviewed(report)).events().at(-1)?.data).toMatchObject({ cause: expect.stringMatching(/QA found 1 issue/) });
  });

  it('reads a doubled reasoning block: any Delivery line saying NEEDS_WORK wins', () => {
    const outcome = { plan_delta: 'x', next_action: 'run the tests', known_risks: 'none', delivery_state: 'DONE' as const, notes: [] };
    expect(strictVerdict(outcome, `${micro({ delivery: 'DONE' })}\n${micro({ delivery: 'NEEDS_WORK' })}`, 'Fixed.').state).toBe(
      'NEEDS_WORK',
    );
    expect(strictVerdict(outcome, micro({ delivery: 'DONE' }), 'Fixed.')).toEqual({ state: 'DONE' });
    expect(strictVerdict(null, 'Looks finished to me.', 'Fixed.')).toEqual({
      state: 'NEEDS_WORK',
      reason: 'the delivery check gave no verdict',
    });
  });
});

describe('the review handed on to the next attempt', () => {
  const spent = given()
    .withLimits({ maxDeliveryChecks: 1 })
    .after(requested('chat', false), reply('Here is how.'), reply('Delivery: NEEDS_WORK'));
  const report = {
    verdict: 'concerns' as const,
    summary: 'untested',
    findings: [{ severity: 'major' as const, message: 'The tests were never run.', file: 'a.test.ts' }],
  };

  it('carries the findings of a run that ended NEEDS_WORK into its digest, citing the review', () => {
    const log = spent.after(reviewed(report)).events;
    const state = foldRun(log);
    const review = reviewToCarry(state, log);
    const revision = log.findIndex((e) => e.type === 'QAReportIssued');
    expect(review).toEqual({ findings: report.findings, origin: { stream: 'run-r1', from: revision, to: revision } });
    const digest = runDigest({ history: state.status === 'completed' ? state.history : [], outcomes: [], review })!;
    expect(renderDigest(digest)).toContain(`- QA finding (major): The tests were never run. (a.test.ts) [run-r1@${revision}]`);
  });

  it('carries nothing for a DONE run, a clean review or a version 1 log', () => {
    const done = given().after(requested('chat', false), reply('Here is how.'), reply('Delivery: DONE'), reviewed(report)).events;
    expect(reviewToCarry(foldRun(done), done)).toBeUndefined();
    const clean = spent.after(reviewed(PASS)).events;
    expect(reviewToCarry(foldRun(clean), clean)).toBeUndefined();
    const old = asVersion1(spent).after(reviewed(report)).events;
    expect(reviewToCarry(foldRun(old), old)).toBeUndefined();
  });
});

describe('replaying under the rules a log recorded', () => {
  it('decides a version 1 log (no rules recorded) and a version 2 log again to the same events', () => {
    const gateSaysDone = reply('All checked.\nDelivery: DONE');
    const looped = given()
      .withLimits({ maxToolIterations: 0, maxDeliveryChecks: 1 })
      .after(requested('agent', false), reply('', [call('read_file')]), toolAnswers());
    const v1 = asVersion1(looped).after(gateSaysDone, reviewed(PASS)).events;
    const v2 = looped.after(gateSaysDone, reviewed(PASS)).events;
    // The two logs differ where the rules do: an empty answer is delivered DONE only under version 1.
    expect(v1.at(-1)?.data).toMatchObject({ deliveryState: 'DONE' });
    expect(v2.at(-1)?.data).toMatchObject({ deliveryState: 'NEEDS_WORK' });
    const limits = { ...DEFAULT_RUN_LIMITS, maxToolIterations: 0, maxDeliveryChecks: 1 };
    expect(replayRun(v1, limits)).toMatchObject({ identical: true, events: v1.length });
    expect(replayRun(v2, limits)).toMatchObject({ identical: true, events: v2.length });
  });
});

describe('misbehaviour read under rules version 2', () => {
  it('recovers an empty reply with reasoning on as empty, not as a format slip (version 1 asked for the format)', () => {
    acting
      .when(reply(''))
      .then(like('ModelRequested'), like('ModelResponded'), correction(RECOVERY_PROMPTS.emptyResponseRecovery, 'empty response'));
    const old = asVersion1(acting)
      .when(reply(''))
      .events()
      .filter((e) => e.type === 'MessageAppended');
    expect(old[0].data).toMatchObject({
      kind: 'correction',
      content: expect.stringContaining(PROMPT(RECOVERY_PROMPTS.reasoningFormatCorrection)),
    });
  });

  it('refuses the tool calls made beside a delegation tag where the model can read it', () => {
    const events = acting
      .when(
        reply(`${micro()}\n<delegate-reasoning agent="reviewer">Review the diff.</delegate-reasoning>`, [
          call('write_file', { path: 'a', content: 'b' }),
        ]),
      )
      .events();
    const types = events.map((e) => e.type);
    expect(types.filter((t) => t === 'ToolCallRejected')).toHaveLength(1);
    expect(types).not.toContain('ToolCallRequested');
    expect(events.find((e) => e.type === 'ToolCallRejected')?.data).toMatchObject({ tool: 'write_file', code: 'FORBIDDEN_TOOL' });
    expect(types.indexOf('ToolCallRejected')).toBeLessThan(types.indexOf('InstructionIssued'));
    // The assistant message keeps the call its refusal answers, so the next request is well formed.
    const state = foldRun([...acting.events, ...events]);
    expect(state.status === 'running' && state.history.some((m) => m.message.toolCalls?.[0]?.name === 'write_file')).toBe(true);
  });

  it('corrects a stuck loop once, then ends it at the gate with the cause, and QA still reviews', () => {
    const same = () => reply(micro({ next: 'read src/a.ts' }), [call('read_file')]);
    let run = acting;
    for (let i = 1; i < STUCK_REPEATS; i++) run = run.after(same(), toolAnswers());
    run
      .when(same())
      .then(
        like('ModelRequested'),
        like('ModelResponded'),
        like('ReasoningRecorded'),
        correction(RECOVERY_PROMPTS.stuckLoop, `stuck: the same call (read_file) with the same arguments, ${STUCK_REPEATS} times in a row`),
      );
    const again = run.after(same());
    const ended = again.when(same()).events();
    expect(ended.map((e) => e.type).slice(-2)).toEqual(['DeliveryChecked', 'StageEntered']);
    expect(ended.at(-2)?.data).toMatchObject({ state: 'NEEDS_WORK', reason: expect.stringMatching(/^stuck in a loop/) });
    expect(ended.at(-1)?.data).toMatchObject({ stage: 'qa_review' });
    const end = again.after(same()).when(reviewed(PASS)).events().at(-1);
    expect(end).toMatchObject({
      type: 'RunCompleted',
      data: { deliveryState: 'NEEDS_WORK', cause: expect.stringMatching(/stuck in a loop/) },
    });
    // A version 1 log goes on calling.
    const old = asVersion1(run).when(same()).events();
    expect(old.map((e) => e.type)).toContain('ToolCallRequested');
  });

  it('counts only the same calls in a row', () => {
    const history = (names: string[]) =>
      names.map((name, i) => ({
        message: { role: 'assistant' as const, content: '', toolCalls: [call(name, { path: 'x' }, `c${i}`)] },
        kind: 'assistant' as const,
        stream: 'run-r1',
        revision: i,
      }));
    expect(repeatedCalls(history(['read_file', 'list_dir', 'list_dir']), [call('list_dir', { path: 'x' })])).toBe(3);
    expect(repeatedCalls(history(['list_dir', 'read_file']), [call('list_dir', { path: 'x' })])).toBe(1);
    // The same arguments written in another order are the same call.
    expect(repeatedCalls(history(['list_dir']), [call('list_dir', '{ "path" : "x" }')])).toBe(2);
  });
});

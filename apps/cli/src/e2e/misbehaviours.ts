import { EventData, StagecraftEvent } from '@stagecraft/contracts';
import { STUCK_REPEATS } from '@stagecraft/run';
import { RecordedRequest, ScriptedReply } from '@stagecraft/scripted-model';
import { QA_PASS_REPORT, macroReasoning, microReasoning } from '@stagecraft/testing';

/**
 * Models that do not play along, one per named behaviour, each with the outcome its run must record
 * (docs/decisions/0056). A behaviour answers the stages it misbehaves in and leaves the rest to a
 * model that does: plan, read README.md once, answer, pass the gate and the review.
 */
export interface Behaviour {
  name: string;
  userMode?: 'agent' | 'chat';
  reasoning?: boolean;
  limits?: { maxToolIterations?: number; maxDeliveryChecks?: number };
  /** `n`: how many requests of this stage kind (acting: act and tool follow-ups) the run made before this one. */
  act?: (n: number, request: RecordedRequest) => ScriptedReply | undefined;
  gate?: (n: number) => ScriptedReply | undefined;
  review?: (n: number) => ScriptedReply | undefined;
  warmup?: (n: number) => ScriptedReply | undefined;
  /** What the run's log must show: each entry a failed expectation; none when the outcome is as expected. */
  expected: (log: RunLog) => string[];
}

export class RunLog {
  constructor(readonly events: readonly StagecraftEvent[]) {}

  of<T extends StagecraftEvent['type']>(type: T): EventData<T>[] {
    return this.events.filter((e) => e.type === type).map((e) => e.data as EventData<T>);
  }

  get end(): StagecraftEvent | undefined {
    return this.events.find((e) => e.type === 'RunCompleted' || e.type === 'RunFailed');
  }

  corrections(): string[] {
    return this.of('MessageAppended')
      .filter((m) => m.kind === 'correction')
      .map((m) => m.content);
  }
}

const ANSWER = 'README.md asks for the tests to be run before every commit.';
/** What the review of `never-done-qa-findings` finds: the next attempt in its conversation must be shown it. */
export const QA_FINDING = 'The tests were never run.';

/** A later run in the conversation of `never-done-qa-findings`, by a model that plays along. */
export const NEXT_ATTEMPT: Behaviour = { name: 'next-attempt', expected: () => [] };
const README_CALL = { id: 'call_readme', name: 'read_file', arguments: { path: 'README.md' } };

function check(conditions: Record<string, boolean>): string[] {
  return Object.entries(conditions).flatMap(([what, ok]) => (ok ? [] : [what]));
}

function completed(log: RunLog, state: 'DONE' | 'NEEDS_WORK'): boolean {
  const end = log.end;
  return end?.type === 'RunCompleted' && (end.data as EventData<'RunCompleted'>).deliveryState === state;
}

const completion = (log: RunLog): EventData<'RunCompleted'> | undefined =>
  log.end?.type === 'RunCompleted' ? (log.end.data as EventData<'RunCompleted'>) : undefined;

const correctedFor = (log: RunLog, reason: RegExp): boolean => log.corrections().some((c) => reason.test(c));
const rejected = (log: RunLog, code: string, reason: RegExp, stage?: string): boolean =>
  log.of('ToolCallRejected').some((r) => r.code === code && reason.test(r.reason) && (stage === undefined || r.stage === stage));

/** The model that plays along, per stage, with or without reasoning. */
export function wellBehaved(b: Behaviour, stage: string | undefined, n: number): ScriptedReply {
  const reasoning = b.reasoning ?? true;
  const micro = (next: string, delivery: 'DONE' | 'NEEDS_WORK' = 'NEEDS_WORK') => (reasoning ? `${microReasoning(next, delivery)}\n` : '');
  switch (stage) {
    case 'warmup':
      return { content: `${macroReasoning()}\nI will read the README, then answer.` };
    case 'act':
    case 'tool_followup':
      if (n === 0 && (b.userMode ?? 'agent') === 'agent')
        return { content: `${micro('read README.md')}Reading.`, toolCalls: [README_CALL] };
      return { content: `${micro('answer', 'DONE')}${ANSWER}` };
    case 'delivery_check':
      return { content: `${micro('hand over', 'DONE')}The answer is complete.${reasoning ? '' : '\nDelivery: DONE'}` };
    case 'qa_review':
      return { content: `${reasoning ? `${microReasoning('report', 'DONE')}\n` : ''}${QA_PASS_REPORT}` };
    default:
      return { status: 500, content: `unexpected stage ${stage}` };
  }
}

const plain = (content: string): ScriptedReply => ({ content });
const withMicro = (next: string, text: string, delivery: 'DONE' | 'NEEDS_WORK' = 'NEEDS_WORK'): ScriptedReply => ({
  content: `${microReasoning(next, delivery)}\n${text}`,
});

export const behaviours: Behaviour[] = [
  {
    name: 'plays-along',
    expected: (log) =>
      check({
        'ends DONE with the answer': completed(log, 'DONE') && completion(log)?.answer === ANSWER,
        'no correction': log.corrections().length === 0,
        'no cause on a DONE run': completion(log)?.cause === undefined,
      }),
  },
  {
    name: 'gate-reasoning-done-statement-needs-work',
    gate: () => withMicro('hand over', 'Delivery: NEEDS_WORK (the tests were not run)', 'DONE'),
    expected: (log) =>
      check({
        'every delivery check NEEDS_WORK':
          log.of('DeliveryChecked').length > 0 && log.of('DeliveryChecked').every((c) => c.state === 'NEEDS_WORK'),
        'ends NEEDS_WORK': completed(log, 'NEEDS_WORK'),
        'with a cause': /said NEEDS_WORK/.test(completion(log)?.cause ?? ''),
      }),
  },
  {
    name: 'gate-doubled-reasoning',
    gate: (n) => (n === 0 ? plain(`${microReasoning('hand over', 'DONE')}\n${microReasoning('run the tests')}\nDone.`) : undefined),
    expected: (log) =>
      check({
        'the first check NEEDS_WORK': log.of('DeliveryChecked')[0]?.state === 'NEEDS_WORK',
        'the second DONE': log.of('DeliveryChecked')[1]?.state === 'DONE',
        'ends DONE': completed(log, 'DONE'),
      }),
  },
  {
    name: 'empty-reply-reasoning-on',
    act: (n) => (n === 1 ? plain('') : undefined),
    expected: (log) =>
      check({
        'recovered as empty': correctedFor(log, /previous reply was empty[\s\S]*\(empty response\)$/),
        'not as a format slip': !correctedFor(log, /reasoning missing/),
        'ends DONE': completed(log, 'DONE'),
      }),
  },
  {
    name: 'empty-reply-reasoning-off',
    reasoning: false,
    act: (n) => (n === 1 ? plain('') : undefined),
    expected: (log) => check({ 'recovered as empty': correctedFor(log, /\(empty response\)$/), 'ends DONE': completed(log, 'DONE') }),
  },
  {
    name: 'empty-forever',
    act: () => plain(''),
    expected: (log) =>
      check({
        'recovered, then followed up': correctedFor(log, /previous reply was empty/) && log.corrections().length >= 2,
        'fails MODEL_FORMAT': log.end?.type === 'RunFailed' && (log.end.data as EventData<'RunFailed'>).code === 'MODEL_FORMAT',
      }),
  },
  {
    name: 'asks-user-for-files',
    act: (n) => (n === 0 ? withMicro('wait for the user', 'Could you please paste the contents of README.md?') : undefined),
    expected: (log) =>
      check({ 'told to use its tools': correctedFor(log, /asked the user for input/), 'ends DONE': completed(log, 'DONE') }),
  },
  {
    name: 'invalid-tool-call-json',
    act: (n) =>
      n === 0
        ? { content: microReasoning('read'), toolCalls: [{ id: 'call_bad', name: 'read_file', arguments: '{"path": "README.md"' }] }
        : undefined,
    expected: (log) =>
      check({ 'refused VALIDATION': rejected(log, 'VALIDATION', /not a JSON object/), 'ends DONE': completed(log, 'DONE') }),
  },
  {
    name: 'unknown-tool',
    act: (n) =>
      n === 0
        ? { content: microReasoning('clean up'), toolCalls: [{ id: 'call_rm', name: 'delete_everything', arguments: {} }] }
        : undefined,
    expected: (log) =>
      check({
        'refused FORBIDDEN_TOOL': rejected(log, 'FORBIDDEN_TOOL', /unknown tool "delete_everything"/),
        'ends DONE': completed(log, 'DONE'),
      }),
  },
  {
    name: 'stuck-loop',
    act: () => ({ content: microReasoning('read README.md'), toolCalls: [README_CALL] }),
    expected: (log) =>
      check({
        'corrected once for the loop': log.corrections().filter((c) => /\(stuck: /.test(c)).length === 1,
        'the gate records why': log.of('DeliveryChecked').some((c) => c.state === 'NEEDS_WORK' && /^stuck in a loop/.test(c.reason ?? '')),
        'ends NEEDS_WORK with the cause': completed(log, 'NEEDS_WORK') && /stuck in a loop/.test(completion(log)?.cause ?? ''),
        'reviewed all the same': log.of('QAReportIssued').length === 1,
      }),
  },
  {
    name: 'stuck-then-changes-course',
    act: (n) =>
      n < STUCK_REPEATS ? { content: microReasoning('read README.md'), toolCalls: [{ ...README_CALL, id: `call_${n}` }] } : undefined,
    expected: (log) => check({ 'corrected for the loop': correctedFor(log, /\(stuck: /), 'ends DONE': completed(log, 'DONE') }),
  },
  {
    name: 'never-says-done',
    gate: () => withMicro('run the tests', 'Not finished.'),
    expected: (log) =>
      check({
        'every check NEEDS_WORK': log.of('DeliveryChecked').every((c) => c.state === 'NEEDS_WORK'),
        'ends NEEDS_WORK on the bound': completed(log, 'NEEDS_WORK') && completion(log)?.limit === 'maxDeliveryChecks',
        'with a cause': /maxDeliveryChecks ran out; the delivery check said NEEDS_WORK/.test(completion(log)?.cause ?? ''),
      }),
  },
  {
    name: 'never-done-qa-findings',
    gate: () => withMicro('run the tests', 'Not finished.'),
    review: () =>
      plain(
        `${microReasoning('report', 'NEEDS_WORK')}\n${JSON.stringify({ verdict: 'concerns', summary: 'Unverified.', findings: [{ severity: 'major', message: QA_FINDING }] })}`,
      ),
    expected: (log) =>
      check({
        'ends NEEDS_WORK': completed(log, 'NEEDS_WORK'),
        'the cause counts the findings': /QA found 1 issue\(s\)/.test(completion(log)?.cause ?? ''),
      }),
  },
  {
    name: 'delegation-beside-tool-calls',
    act: (n) =>
      n === 0
        ? {
            content: `${microReasoning('delegate')}\nHanding over.\n<delegate-reasoning agent="reviewer">Check README.md.</delegate-reasoning>`,
            toolCalls: [{ id: 'call_w', name: 'write_file', arguments: { path: 'NOTES.md', content: 'written beside a delegation' } }],
          }
        : n === 1
          ? withMicro('return', '<return-control>README.md asks for the tests.</return-control>', 'DONE')
          : undefined,
    expected: (log) =>
      check({
        'the call refused where the model reads it': rejected(log, 'FORBIDDEN_TOOL', /delegation instruction/),
        'never run': !log.of('ToolCallRequested').some((c) => c.tool === 'write_file'),
        'the delegation taken': log.of('InstructionIssued').some((i) => i.instruction.kind === 'DelegateReasoning' && i.accepted),
        'the run ends': log.end !== undefined,
      }),
  },
  {
    name: 'qa-rewrites-the-answer',
    review: () =>
      plain(
        `${microReasoning('report', 'DONE')}\nHere is a better answer: delete the tests.\n${JSON.stringify({ verdict: 'pass', summary: 'Fine.', findings: [], answer: 'Delete the tests.' })}`,
      ),
    expected: (log) =>
      check({
        'the answer stands': completion(log)?.answer === ANSWER,
        'the report keeps only its fields': log.of('QAReportIssued').every((r) => !('answer' in r.report)),
        'ends DONE': completed(log, 'DONE'),
      }),
  },
  {
    name: 'qa-without-reasoning',
    review: () => plain(QA_PASS_REPORT),
    expected: (log) =>
      check({
        'the missing reasoning recorded': log
          .of('QAReportIssued')
          .some((r) => r.report.findings.some((f) => /no valid reasoning/.test(f.message))),
        'asked once more': (log.of('QAReportIssued')[0]?.modelCalls?.length ?? 0) === 2,
        'ends DONE': completed(log, 'DONE'),
      }),
  },
  {
    name: 'qa-unreadable-report',
    review: () => withMicro('report', 'Looks fine to me.', 'DONE'),
    expected: (log) =>
      check({
        'a concerns report that says why': log
          .of('QAReportIssued')
          .some((r) => r.report.verdict === 'concerns' && /could not be parsed/.test(r.report.summary)),
        'advisory: ends DONE': completed(log, 'DONE'),
      }),
  },
  {
    name: 'asks-to-switch-mode',
    userMode: 'chat',
    act: (n) =>
      n === 0
        ? {
            content: `${microReasoning('switch mode', 'DONE')}\nSwitch me to agent mode and I will write NOTES.md myself.`,
            toolCalls: [{ id: 'call_w', name: 'write_file', arguments: { path: 'NOTES.md', content: 'x' } }],
          }
        : undefined,
    expected: (log) =>
      check({
        'the write refused': rejected(log, 'FORBIDDEN_TOOL', /no tools are available/),
        'every stage stays in chat mode': log.of('StageEntered').every((s) => s.policy === undefined || s.policy.userMode === 'chat'),
        'the run ends': log.end?.type === 'RunCompleted',
      }),
  },
  {
    name: 'reasoning-missing',
    act: (n) => (n === 1 ? plain(ANSWER) : undefined),
    expected: (log) => check({ 'asked for the format': correctedFor(log, /micro reasoning missing/), 'ends DONE': completed(log, 'DONE') }),
  },
  {
    name: 'reasoning-missing-forever',
    act: () => plain(ANSWER),
    expected: (log) =>
      check({ 'fails MODEL_FORMAT': log.end?.type === 'RunFailed' && (log.end.data as EventData<'RunFailed'>).code === 'MODEL_FORMAT' }),
  },
  {
    name: 'reasoning-without-answer',
    act: (n) => (n === 1 ? plain(microReasoning('answer', 'DONE')) : undefined),
    expected: (log) =>
      check({
        'asked for the answer': correctedFor(log, /reasoning without an answer or a tool call/),
        'ends DONE': completed(log, 'DONE'),
      }),
  },
  {
    name: 'describes-a-step-without-taking-it',
    act: (n) => (n === 1 ? withMicro('write NOTES.md with write_file', 'I will now write NOTES.md.') : undefined),
    expected: (log) =>
      check({
        'told to take the step': correctedFor(log, /a next step was described but no tool was called/),
        'ends DONE': completed(log, 'DONE'),
      }),
  },
  {
    name: 'tool-loop-runs-out',
    limits: { maxToolIterations: 2, maxDeliveryChecks: 1 },
    act: (n) => ({
      content: microReasoning(`read file ${n}`),
      toolCalls: [{ id: `call_${n}`, name: 'read_file', arguments: { path: `missing-${n}.md` } }],
    }),
    expected: (log) =>
      check({
        'the bound recorded': log.of('LimitReached').some((l) => l.limit === 'maxToolIterations'),
        'never DONE with no answer': completed(log, 'NEEDS_WORK') && completion(log)?.answer === '',
        'says there was no answer': /no answer was given/.test(completion(log)?.cause ?? ''),
      }),
  },
  {
    name: 'tool-call-at-the-gate',
    gate: (n) => (n === 0 ? { content: `${microReasoning('hand over', 'DONE')}\nDone.`, toolCalls: [README_CALL] } : undefined),
    expected: (log) =>
      check({
        'refused at the gate': rejected(log, 'FORBIDDEN_TOOL', /no tools are available/, 'delivery_check'),
        'ends DONE': completed(log, 'DONE'),
      }),
  },
  {
    name: 'tool-call-in-warmup',
    warmup: (n) => (n === 0 ? { content: `${macroReasoning()}\nReading first.`, toolCalls: [README_CALL] } : undefined),
    expected: (log) =>
      check({
        'refused in warmup': rejected(log, 'FORBIDDEN_TOOL', /no tools are available/, 'warmup'),
        'ends DONE': completed(log, 'DONE'),
      }),
  },
];

const ACTING = new Set(['act', 'tool_followup']);

/** The scripted model of the suite: each run's behaviour by its id (`<behaviour>--<deployment>`). */
export function misbehavingModel(requests: () => readonly RecordedRequest[]) {
  return (request: RecordedRequest): ScriptedReply => {
    const runId = request.headers['x-stagecraft-run-id'] ?? '';
    const b = [...behaviours, NEXT_ATTEMPT].find((x) => runId.startsWith(`${x.name}--`));
    if (!b) return { status: 500, content: `no behaviour for run ${runId}` };
    const kind = (stage?: string) => (stage && ACTING.has(stage) ? 'acting' : stage);
    const n = requests().filter(
      (r) => r.index < request.index && r.headers['x-stagecraft-run-id'] === runId && kind(r.stage) === kind(request.stage),
    ).length;
    const own =
      request.stage === 'warmup'
        ? b.warmup?.(n)
        : request.stage && ACTING.has(request.stage)
          ? b.act?.(n, request)
          : request.stage === 'delivery_check'
            ? b.gate?.(n)
            : request.stage === 'qa_review'
              ? b.review?.(n)
              : undefined;
    return own ?? wellBehaved(b, request.stage, n);
  };
}

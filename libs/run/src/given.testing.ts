import {
  DelegationState,
  ErrorCode,
  EventData,
  EventRange,
  EventType,
  QAReport,
  Stage,
  StagePolicy,
  StagecraftError,
  ToolCall,
  UserMode,
} from '@stagecraft/contracts';
import { parseSummary } from './compaction';
import { decideStagePolicy } from '@stagecraft/policy';
import { When as Decided, outcomeOf, spec } from '@stagecraft/decider';
import { DecideContext, runDecider } from './decide';
import { evolveRun, foldRun } from './evolve';
import { Knowledge, ModelSummary, Need, RunInput, delegationKey } from './inputs';
import { DEFAULT_RUN_LIMITS, RunLimits } from './limits';
import { ModelCallPlan, nextStep } from './next-step';
import { PendingEvent } from './pending-event';
import { ModelRequestRecord, RunState } from './state';

/**
 * Given/when/then for the run's decider (emmett's DeciderSpecification): `given` a log, `when` the
 * shell observes an input, `then` these events were decided. `when` satisfies the decision's needs
 * the way the effects shell does: policies from the pure policy decision, a recovery prompt as the
 * fixed text `PROMPT(<id>)`; it decides again until the decision has all it asked for.
 */

export const AT = '2026-01-01T00:00:00.000Z';
export const RUN_ID = 'r1';
export const PROMPT = (promptId: string): string => `PROMPT(${promptId})`;
/** What the shell's model writes when asked for a summary: one goal, read into sections. */
export const MODEL_SUMMARY = (compactionId: string, covers: EventRange[]): ModelSummary => ({
  summary: parseSummary(`## Goals\n- the goal, as the model put it (${compactionId})`, covers),
  modelCall: {
    requestId: compactionId,
    model: 'test-model',
    promptHash: '0'.repeat(64),
    messageCount: 2,
    tokenEstimate: 10,
    latencyMs: 1,
    finishReason: 'stop',
  },
});

type Switches = { userMode: UserMode; reasoningEnabled: boolean; delegation: DelegationState };
/** What the policy service's `policy.table` replies: one policy per stage. */
export type PolicyTable = (switches: Switches) => readonly StagePolicy[];
export const policyTable: PolicyTable = (switches) => Stage.options.map((stage) => decideStagePolicy({ ...switches, stage }));

/** The shell's knowledge of one run: policy tables per delegation chain for the whole run, prompts for one decision. */
export class ShellKnowledge {
  private readonly tables = new Map<string, readonly StagePolicy[]>();
  private prompts = new Map<string, string>();
  private readonly summaries = new Map<string, ModelSummary>();
  readonly fetched: Need[] = [];

  constructor(private readonly table: PolicyTable = policyTable) {}

  /** A shell that wrote these events had fetched the policies of every chain they entered. */
  learn(events: readonly PendingEvent[]): this {
    for (const e of events) {
      if (e.type !== 'StageEntered' || !e.data.policy) continue;
      const { userMode, reasoningEnabled, delegation } = e.data.policy;
      this.fetch({ kind: 'policies', request: { userMode, reasoningEnabled, delegation } }, false);
    }
    return this;
  }

  view(fresh: boolean): Knowledge {
    if (fresh) this.prompts = new Map();
    return {
      policies: (delegation) => this.tables.get(delegationKey(delegation)),
      prompt: (promptId) => this.prompts.get(promptId),
      summary: (compactionId) => this.summaries.get(compactionId),
    };
  }

  fetch(need: Need, record = true): void {
    if (record) this.fetched.push(need);
    if (need.kind === 'policies') this.tables.set(delegationKey(need.request.delegation), this.table(need.request));
    else if (need.kind === 'prompt') this.prompts.set(need.promptId, PROMPT(need.promptId));
    else this.summaries.set(need.compactionId, MODEL_SUMMARY(need.compactionId, need.covers));
  }
}

/** `decideAndAppend` without the I/O: decide, fetch what is needed, decide again. */
export function decideAsShell(input: RunInput, state: RunState, limits: RunLimits, knowledge: ShellKnowledge): PendingEvent[] {
  for (let asked = 0; asked <= 8; asked++) {
    const context = { limits, knowledge: knowledge.view(asked === 0) };
    const decision = outcomeOf<PendingEvent, Need>(() => runDecider.decide(input, state, context));
    if ('events' in decision) return [...decision.events];
    knowledge.fetch(decision.needs);
  }
  throw new Error('a decision still needed more after 8 answers');
}

/** An input, or how the shell would build it from the state it acts on (request ids, open call ids). */
export type When = RunInput | ((state: RunState) => RunInput);

type DeepPartial<T> = T extends readonly (infer U)[]
  ? readonly DeepPartial<U>[]
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T;
/** An expected event: its type, and the data that matters (compared like `toMatchObject`). */
export type Expected = { [T in EventType]: { type: T; data?: DeepPartial<EventData<T>> } }[EventType];
export const like = <T extends EventType>(type: T, data?: DeepPartial<EventData<T>>): Expected => ({ type, data }) as Expected;

interface Outcome {
  events: readonly PendingEvent[];
  state: RunState;
  needs: Need[];
}

export class Given {
  constructor(
    readonly events: readonly PendingEvent[],
    readonly limits: RunLimits = DEFAULT_RUN_LIMITS,
    readonly table: PolicyTable = policyTable,
  ) {}

  withLimits(limits: Partial<RunLimits>): Given {
    return new Given(this.events, { ...this.limits, ...limits }, this.table);
  }

  withPolicies(table: PolicyTable): Given {
    return new Given(this.events, this.limits, table);
  }

  get state(): RunState {
    return foldRun(this.events);
  }

  when(input: When): Then {
    return new Then(() => {
      const state = this.state;
      const knowledge = new ShellKnowledge(this.table).learn(this.events);
      const events = decideAsShell(typeof input === 'function' ? input(state) : input, state, this.limits, knowledge);
      return { events, state: events.reduce(evolveRun, state), needs: knowledge.fetched };
    });
  }

  /** The log after these inputs, each decided as the shell would: for building a given from real decisions. */
  after(...inputs: When[]): Given {
    return inputs.reduce<Given>((g, input) => new Given([...g.events, ...g.when(input).events()], g.limits, g.table), this);
  }
}

export class Then {
  constructor(private readonly run: () => Outcome) {}

  events(): readonly PendingEvent[] {
    return this.run().events;
  }

  /** Exactly these event types in this order, each with at least the given data. */
  then(...expected: Expected[]): Outcome {
    const outcome = this.run();
    expect(outcome.events.map((e) => e.type)).toEqual(expected.map((e) => e.type));
    outcome.events.forEach((event, i) => expect(event.data).toMatchObject(expected[i].data ?? {}));
    return outcome;
  }

  thenNothing(): void {
    expect(this.run().events).toEqual([]);
  }

  thenThrows(code: ErrorCode): void {
    let thrown: unknown;
    try {
      this.run();
    } catch (error) {
      thrown = error;
    }
    refusedWith(code)(thrown);
  }

  /** The needs the shell had to fetch before the decision was complete, in order. */
  thenNeeds(...expected: Array<Need['kind'] | DeepPartial<Need>>): Outcome {
    const outcome = this.run();
    expect(outcome.needs).toMatchObject(expected.map((n) => (typeof n === 'string' ? { kind: n } : n)));
    return outcome;
  }
}

export const given = (...events: PendingEvent[]): Given => new Given(events);

/**
 * The kit's given / when / then for the run decider after the log `g` holds: one decision, knowing
 * what a shell that wrote the log knows (the policies of every chain it entered; `knowledge` to say
 * otherwise) and nothing else, so a fact the decision needs first is `thenNeeds`, never fetched.
 */
export function runSpec(g: Given, knowledge: Knowledge = new ShellKnowledge(g.table).learn(g.events).view(true)) {
  const after = spec<RunState, RunInput, PendingEvent, DecideContext, Need>(runDecider, { limits: g.limits, knowledge }).given(g.events);
  return { when: (input: When): Decided<PendingEvent, Need> => after.when(typeof input === 'function' ? input(g.state) : input) };
}

/** For `thenThrows`: the decision refused with this code. */
export const refusedWith =
  (code: ErrorCode) =>
  (error: unknown): void => {
    expect(error).toBeInstanceOf(StagecraftError);
    expect(error).toMatchObject({ code });
  };

// Inputs, as the shell builds them.

export function requested(userMode: UserMode = 'agent', reasoningEnabled = true, message = 'Fix the failing test.'): RunInput {
  return { type: 'RunRequested', runId: RUN_ID, conversationId: 'c1', userMode, reasoningEnabled, message, projectRoot: '/p', at: AT };
}

function modelPlan(state: RunState): ModelCallPlan {
  const step = nextStep(state);
  if (step.kind !== 'call_model') throw new Error(`the run waits for ${step.kind}, not for the model`);
  return step.plan;
}

/** What the shell stores of a request it sends (hashes do not matter to the decider). */
export function requestRecord(plan: ModelCallPlan): ModelRequestRecord {
  return {
    requestId: plan.requestId,
    stage: plan.policy.stage,
    model: 'test-model',
    toolNames: [...plan.toolNames],
    ...(plan.toolChoice ? { toolChoice: plan.toolChoice } : {}),
    messageCount: plan.conversation.length + 1,
    tokenEstimate: 1,
    promptHash: '0'.repeat(64),
    messageHashes: [],
    newBodies: {},
  };
}

/** The model's answer to the request the run waits for. */
export const reply =
  (content: string, toolCalls: ToolCall[] = []): When =>
  (state) => {
    const plan = modelPlan(state);
    const request = plan.record ? requestRecord(plan) : undefined;
    return {
      type: 'ModelAnswered',
      request,
      response: { requestId: plan.requestId, content, toolCalls, latencyMs: 1, finishReason: 'stop' },
      at: AT,
    };
  };

export const modelFails =
  (code: ErrorCode = 'UNAVAILABLE'): When =>
  (state) => {
    const plan = modelPlan(state);
    return {
      type: 'ModelCallFailed',
      request: plan.record ? requestRecord(plan) : undefined,
      fault: { code, message: 'the model is down' },
      at: AT,
    };
  };

/** A tool call as the model writes it; `args` as raw text when it is a string. */
export const call = (name: string, args: Record<string, unknown> | string = { path: 'src/a.ts' }, id = `call_${name}`): ToolCall => ({
  id,
  name,
  arguments: typeof args === 'string' ? args : JSON.stringify(args),
});

function openCallId(state: RunState): string {
  const step = nextStep(state);
  if (step.kind !== 'run_tool') throw new Error(`the run waits for ${step.kind}, not for a tool`);
  return step.request.callId;
}

export const toolAnswers =
  (output = 'file contents', ok = true): When =>
  (state) => {
    const step = nextStep(state);
    if (step.kind !== 'run_tool') throw new Error(`the run waits for ${step.kind}, not for a tool`);
    const { callId, tool } = step.request;
    return { type: 'ToolAnswered', callId, result: { callId, tool, ok, output, truncated: false, durationMs: 1, replayed: false }, at: AT };
  };

export const toolFails =
  (code: ErrorCode, message = 'refused'): When =>
  (state) => ({ type: 'ToolCallFailed', callId: openCallId(state), fault: { code, message }, at: AT });

export const PASS: QAReport = { verdict: 'pass', summary: 'looks right', findings: [] };
export const reviewed = (report: QAReport = PASS): RunInput => ({ type: 'ReviewReturned', report, modelCalls: [], at: AT });
export const reviewFails = (message = 'qa is down'): RunInput => ({
  type: 'ReviewFailed',
  fault: { code: 'UNAVAILABLE', message },
  at: AT,
});
export const stopped = (code: ErrorCode = 'INTERNAL'): RunInput => ({
  type: 'RunStopped',
  fault: { code, message: 'the shell gave up' },
  at: AT,
});
export const resumed = (): RunInput => ({ type: 'RunResumed', at: AT });

// Replies, as a model writes them.

export const micro = ({
  delivery = 'NEEDS_WORK',
  next = 'read src/a.ts',
}: { delivery?: 'DONE' | 'NEEDS_WORK'; next?: string } = {}): string =>
  `<ide_reasoning>\n- Plan delta: look at the test\n- Next action: ${next}\n- Known risks: none\n- Delivery: ${delivery}\n</ide_reasoning>`;

export const MACRO =
  '<ide_reasoning>\n## Analyze\nthe test fails\n## Research\nread src/a.ts\n## Plan\nfix the bound\n## Reflect\nsmall change\n## Action\nread src/a.ts\n## Delivery\nNEEDS_WORK\n</ide_reasoning>';

/** A whole agent run with reasoning: plan, a tool round, an empty reply corrected, the gate, a review that could not finish. */
export function recordedRun(): PendingEvent[] {
  const knowledge = new ShellKnowledge();
  let state = foldRun([]);
  const log: PendingEvent[] = [];
  const inputs: When[] = [
    requested('agent', true),
    reply(`${MACRO}\nI will read the file first.`),
    reply(`${micro()}\nReading.`, [call('read_file')]),
    toolAnswers('export const a = 1;'),
    reply(''),
    reply(`${micro({ delivery: 'DONE' })}\nThe file exports a.`),
    reply(micro({ delivery: 'DONE' })),
    reviewFails('the reviewer is down'),
  ];
  for (const when of inputs) {
    const events = decideAsShell(typeof when === 'function' ? when(state) : when, state, DEFAULT_RUN_LIMITS, knowledge);
    log.push(...events);
    state = events.reduce(evolveRun, state);
  }
  expect(state.status).toBe('completed');
  return log;
}

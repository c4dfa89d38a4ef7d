import { EVENT_TYPES, EventData, RunEventType, StagecraftEvent, runEventSchemas, runEvents, streams } from '../events';
import { FEED_EVENT_TYPES, FeedEvent, feedV1EventSchemas } from './v1';
import { INTERNAL_RUN_EVENT_TYPES, toFeedEvent } from './to-feed-event';

const runId = 'run-1';
const contextId = 'wf-1/act/001/2026-11-01T00:00:00Z';
const policy = {
  userMode: 'agent',
  reasoningEnabled: true,
  stage: 'act',
  delegation: { depth: 0, chain: [] },
  tools: ['read_file'],
  prompts: ['act'],
  reasoning: { rule: 'micro', required: true },
  toolLoop: true,
  memory: ['recall'],
};
const outcome = { plan_delta: 'p', next_action: 'n', known_risks: 'r', delivery_state: 'DONE', notes: ['x'] };
const usage = { promptTokens: 1, completionTokens: 2, totalTokens: 3 };
const section = { items: ['a'], sources: [{ stream: streams.run(runId), from: 0, to: 1 }] };

/** One stored event of each run type with every optional field set, the internal ones included. */
const fullest: { [T in RunEventType]: unknown } = {
  RunStarted: {
    runId,
    conversationId: 'conv-1',
    userMode: 'agent',
    reasoningEnabled: true,
    userInput: 'Write notes',
    projectRoot: '/p',
    historyThrough: 3,
    compaction: { method: 'extractive', maxMessages: 40, maxTokens: 20_000, keepRecentTokens: 4_000 },
    limits: { maxToolIterations: 8, maxDeliveryChecks: 3, maxCorrectionsPerStage: 2, maxDelegationDepth: 2 },
    forkedFrom: { runId: 'run-0', revision: 4 },
    approve: 'writes',
    agent: {
      workflowId: 'wf-1',
      agentId: 'a-1',
      agentType: 'discovery-agent',
      role: 'agent',
      phase: 'discovery',
      contextId,
      attempt: 2,
      upstream: [{ kind: 'goal', workflowRunId: 'wf-1', goal: 'the secret upstream goal' }],
      previousAttempt: {
        previousContextId: contextId,
        attemptNumber: 1,
        previousAttemptAt: '2026-11-01T00:00:00Z',
        serializedOutput: 'the previous output',
      },
    },
  },
  StageEntered: { stage: 'act', iteration: 1, policy, contextId },
  ModelRequested: {
    requestId: 'run-1.m1',
    stage: 'act',
    model: 'scripted',
    toolNames: ['read_file'],
    messageCount: 3,
    tokenEstimate: 120,
    promptHash: 'a'.repeat(64),
    messageHashes: ['b'.repeat(64)],
    newBodies: { ['b'.repeat(64)]: 'a stored body' },
  },
  ModelResponded: {
    requestId: 'run-1.m1',
    content: 'Reading.',
    toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"README.md"}' }],
    usage,
    latencyMs: 3,
    finishReason: 'tool_calls',
  },
  ReasoningRecorded: { requestId: 'run-1.m1', format: 'micro', text: '<ide_reasoning>…</ide_reasoning>', outcome },
  InstructionIssued: { instruction: { kind: 'ReturnControl', result: 'done' }, accepted: false, reason: 'no delegation' },
  ToolCallRequested: { callId: 'run-1.m1.c1', tool: 'read_file', arguments: { path: 'README.md' }, stage: 'act', modelCallId: 'c1' },
  ToolCallCompleted: {
    callId: 'run-1.m1.c1',
    tool: 'write_file',
    ok: true,
    output: 'wrote 9 bytes to README.md (replaced)',
    truncated: false,
    durationMs: 2,
    interrupted: false,
    changes: [{ path: 'README.md', kind: 'modified', added: 1, removed: 1, diff: '--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-# Old\n+# Sample\n', diffTruncated: false }],
  },
  ToolCallRejected: { callId: 'run-1.m1.c2', tool: 'nope', stage: 'act', code: 'FORBIDDEN_TOOL', reason: 'not offered' },
  MessageAppended: {
    messageId: 'run-1.m1',
    role: 'assistant',
    content: 'Reading.',
    instructions: [{ kind: 'IntermediateReasoning' }],
    intermediate: true,
    kind: 'assistant',
    stage: 'act',
    toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{}' }],
    toolCallId: 'c0',
    outputOf: 'run-1.m1.c1',
  },
  HistoryCompacted: {
    compactionId: 'run-1.k1',
    method: 'model',
    trigger: { messageCount: 50, tokenEstimate: 30_000, maxMessages: 40, maxTokens: 20_000 },
    replaced: 10,
    covers: [{ stream: streams.run(runId), from: 0, to: 9 }],
    summary: { goals: section, decisions: section, currentPlan: section, openIssues: section, toolOutputs: section },
    tokensBefore: 30_000,
    tokensAfter: 5_000,
    modelCall: {
      requestId: 'run-1.k1.m',
      model: 'scripted',
      promptHash: 'c'.repeat(64),
      messageCount: 10,
      tokenEstimate: 25_000,
      latencyMs: 9,
      usage,
      finishReason: 'stop',
    },
  },
  DeliveryChecked: { state: 'NEEDS_WORK', iteration: 0, reason: 'notes missing' },
  QAReportIssued: {
    report: { verdict: 'pass', summary: 'Fine.', findings: [{ severity: 'info', message: 'ok', file: 'NOTES.md' }], reasoningOutcome: outcome },
    modelCalls: [{ requestId: 'q1', model: 'scripted', latencyMs: 4, usage, finishReason: 'stop' }],
  },
  ApprovalRequested: {
    approvalId: 'run-1.m2.c1.approval',
    kind: 'tool_call',
    summary: 'write_file NOTES.md',
    callId: 'run-1.m2.c1',
    tool: 'write_file',
    arguments: { path: 'NOTES.md' },
  },
  ApprovalGiven: { approvalId: 'run-1.m2.c1.approval', note: 'fine' },
  ApprovalDenied: { approvalId: 'run-1.m2.c1.approval', reason: 'not now' },
  LimitReached: { limit: 'maxToolIterations', value: 8, stage: 'act', iteration: 8 },
  RunCompleted: { deliveryState: 'DONE', answer: 'Done.', limit: 'maxDeliveryChecks' },
  RunFailed: { code: 'UNAVAILABLE', reason: 'model down', stage: 'act' },
  RunCancelled: { by: 'user', reason: 'Ctrl-C', stage: 'act' },
  RunContinued: { by: 'cli' },
};

/** Everything the log keeps for itself: bodies by hash, the model's own ids, settings, log ranges, upstream context, chain. */
const INTERNAL_KEYS = ['messageHashes', 'newBodies', 'promptHash', 'modelCallId', 'compaction', 'covers', 'upstream', 'previousAttempt'];
/** The log's own marks on every event (a delegation `chain` inside a policy is the policy's). */
const INTERNAL_METADATA = ['chain', 'commitStart', 'writer'];
const INTERNAL_VALUES = ['the secret upstream goal', 'the previous output', 'a stored body', 'b'.repeat(64), 'c'.repeat(64), 'feedbeef'];

const metadata = {
  correlationId: 'corr-1',
  causationId: 'cause-1',
  contextId,
  commitStart: 4,
  occurredAt: '2026-11-01T00:00:00.000Z',
  chain: { prev: 'feedbeef', hash: 'feedbeef' },
  /** The replica that held the run's lease when it wrote (what the log keeps of leases). */
  writer: 'replica-feedbeef',
};

function stored<T extends RunEventType>(type: T, id = `e-${type}`): StagecraftEvent & { id: string; position: bigint; streamId: string } {
  const data = runEventSchemas[type].parse(fullest[type]) as EventData<T>;
  return { id, position: 41n, streamId: streams.run(runId), type, data, metadata } as never;
}

const keysDeep = (value: unknown): string[] =>
  typeof value !== 'object' || value === null ? [] : Object.entries(value).flatMap(([k, v]) => [k, ...keysDeep(v)]);

describe('the public run feed (feed/v1)', () => {
  it('has a public event for every run event type a client saw, under the same name, or declares it internal', () => {
    expect([...FEED_EVENT_TYPES, ...INTERNAL_RUN_EVENT_TYPES].sort()).toEqual([...runEvents.types].sort());
    expect(INTERNAL_RUN_EVENT_TYPES).toEqual([]);
  });

  it('carries nothing of the other streams: tool service records, memories, prompt bodies, index, workflows, turns', () => {
    const others = EVENT_TYPES.filter((type) => !(runEvents.types as readonly string[]).includes(type));
    expect(others.length).toBeGreaterThan(10);
    for (const type of others) expect({ type, mapped: toFeedEvent({ type, data: {}, metadata } as never) }).toEqual({ type, mapped: null });
    // A run type on another stream (a conversation's turn) is not the run's either.
    const turn = { ...stored('MessageAppended'), streamId: streams.conversation('conv-1') };
    expect(toFeedEvent(turn)).toBeNull();
  });

  it.each(runEvents.types.map((type) => [type]))('maps %s to a valid public event that leaks nothing internal', (type) => {
    const event = toFeedEvent(stored(type));
    expect(event).not.toBeNull();
    // Parsing keeps only what the schema names, at every depth: equal means nothing else is there.
    expect(feedV1EventSchemas[type].parse(event)).toEqual(event);
    expect(FeedEvent.parse(event)).toEqual(event);
    const keys = keysDeep(event);
    for (const key of INTERNAL_KEYS) expect({ type, key, leaked: keys.includes(key) }).toEqual({ type, key, leaked: false });
    for (const key of INTERNAL_METADATA) expect({ type, key, leaked: key in (event?.metadata ?? {}) }).toEqual({ type, key, leaked: false });
    const text = JSON.stringify(event);
    for (const value of INTERNAL_VALUES) expect({ type, value, leaked: text.includes(value) }).toEqual({ type, value, leaked: false });
  });

  it('names the run from the stream, keeps the id, position and correlation, and is version 1', () => {
    expect(toFeedEvent(stored('RunContinued', 'e-7'))).toEqual({
      version: 1,
      id: 'e-7',
      position: '41',
      type: 'RunContinued',
      data: { by: 'cli' },
      metadata: { runId, correlationId: 'corr-1', causationId: 'cause-1', contextId, occurredAt: '2026-11-01T00:00:00.000Z' },
    });
  });

  it('keeps what clients read: the run, its policy, messages, tool calls, verdict and answer', () => {
    const pick = (type: RunEventType) => toFeedEvent(stored(type))?.data;
    expect(pick('RunStarted')).toMatchObject({ runId, conversationId: 'conv-1', historyThrough: 3, agent: { agentId: 'a-1', attempt: 2 } });
    expect(pick('StageEntered')).toEqual({ stage: 'act', iteration: 1, policy, contextId });
    expect(pick('ModelRequested')).toEqual({
      requestId: 'run-1.m1',
      stage: 'act',
      model: 'scripted',
      toolNames: ['read_file'],
      messageCount: 3,
      tokenEstimate: 120,
    });
    expect(pick('ToolCallRequested')).toEqual({ callId: 'run-1.m1.c1', tool: 'read_file', arguments: { path: 'README.md' }, stage: 'act' });
    expect(pick('ToolCallCompleted')).toEqual(fullest.ToolCallCompleted);
    expect(pick('QAReportIssued')).toEqual(fullest.QAReportIssued);
    expect(pick('RunCompleted')).toEqual(fullest.RunCompleted);
  });

  it('gives a message stored before its defaults were written the values the stored schema reads it with', () => {
    const old = { ...stored('MessageAppended'), data: { messageId: 'm-1', role: 'user', content: 'hi' } } as never;
    expect(toFeedEvent(old)?.data).toEqual({ messageId: 'm-1', role: 'user', content: 'hi', instructions: [], intermediate: false, kind: 'assistant' });
  });

  it('publishes a notice that is not in the log yet under the run its metadata names, without id or position', () => {
    const notice = { type: 'RunFailed', data: { code: 'INTERNAL', reason: 'disk full' }, metadata: { runId, occurredAt: metadata.occurredAt } };
    expect(toFeedEvent(notice as never)).toEqual({ version: 1, type: 'RunFailed', data: notice.data, metadata: notice.metadata });
    expect(toFeedEvent({ ...notice, metadata: { occurredAt: metadata.occurredAt } } as never)).toBeNull();
  });
});

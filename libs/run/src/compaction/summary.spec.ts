import { ChatMessage, HistorySummary, SourcedMessage } from '@stagecraft/contracts';
import { DEFAULT_COMPACTION, compactionTrigger, estimateTokens, recentWindowStart } from './settings';
import { EMPTY_SUMMARY, extractiveSummary, parseSummary, renderSummary, transcriptOf } from './summary';
import { restBudgetChars } from './summary-keep';

const V2 = { summaryVersion: 2 as const, maxTokens: 24_000 };
import { planCompaction } from './plan';
import { rangesOf } from './sources';

const user = (content: string): ChatMessage => ({ role: 'user', content });
const assistant = (content: string, call?: string): ChatMessage =>
  call
    ? { role: 'assistant', content, toolCalls: [{ id: call, name: 'read_file', arguments: '{"path":"a.ts"}' }] }
    : { role: 'assistant', content };
const tool = (content: string, id: string): ChatMessage => ({ role: 'tool', content, toolCallId: id });

describe('the compaction trigger', () => {
  it('fires on the message count or the token estimate, and says which numbers it saw', () => {
    const settings = { ...DEFAULT_COMPACTION, maxMessages: 4, maxTokens: 100 };
    expect(compactionTrigger([user('a'), user('b')], settings)).toBeNull();
    expect(
      compactionTrigger(
        Array.from({ length: 5 }, () => user('a')),
        settings,
      ),
    ).toEqual({
      messageCount: 5,
      tokenEstimate: 5,
      maxMessages: 4,
      maxTokens: 100,
    });
    expect(compactionTrigger([user('x'.repeat(404))], settings)).toMatchObject({ messageCount: 1, tokenEstimate: 101 });
  });

  it('counts about four characters a token, tool calls included', () => {
    expect(estimateTokens([user('abcd'), assistant('', 'c1')])).toBe(
      1 + Math.ceil(JSON.stringify([{ id: 'c1', name: 'read_file', arguments: '{"path":"a.ts"}' }]).length / 4),
    );
  });
});

describe('the recent window', () => {
  const loop = [
    user('go'),
    assistant('reading', 'c1'),
    tool('x'.repeat(400), 'c1'),
    assistant('reading', 'c2'),
    tool('y'.repeat(400), 'c2'),
  ];

  it('keeps the last exchange whole, never starting on a tool result', () => {
    expect(recentWindowStart(loop, 10)).toBe(3);
    expect(recentWindowStart(loop, 150)).toBe(3);
  });

  it('keeps more when the budget allows, and at most the message limit', () => {
    expect(recentWindowStart(loop, 10_000)).toBe(0);
    expect(recentWindowStart(loop, 10_000, 2)).toBe(3);
  });

  it('plans nothing when only the last exchange is left', () => {
    const settings = { ...DEFAULT_COMPACTION, maxMessages: 1, maxTokens: 10, keepRecentTokens: 0 };
    const messages = [assistant('reading', 'c1'), tool('x'.repeat(400), 'c1')].map((message, revision) => ({
      message,
      stream: 'run-r',
      revision,
    }));
    expect(planCompaction(null, messages, settings)).toBeNull();
  });
});

describe('the extractive summary', () => {
  const sourced = [
    user('Fix the build'),
    assistant('Looking <ide_reasoning>secret</ide_reasoning> now', 'c1'),
    tool('error TS2304', 'c1'),
    assistant('The build is fixed.'),
  ].map((message, i) => ({
    message,
    stream: 'run-r',
    revision: i + 1,
    kind: (['user_input', 'assistant', 'tool_result', 'assistant'] as const)[i],
  }));
  const outcomes = [
    {
      outcome: {
        plan_delta: 'pin TypeScript',
        next_action: 'run the build',
        known_risks: 'none',
        delivery_state: 'NEEDS_WORK' as const,
        notes: [],
      },
      stream: 'run-r',
      revision: 3,
    },
  ];

  it('takes goals, decisions, plan, issues and tool outputs from the messages and outcomes, citing their events', () => {
    const summary = extractiveSummary({ previous: null, messages: sourced, outcomes });
    expect(summary).toEqual({
      goals: { items: ['Fix the build'], sources: [{ stream: 'run-r', from: 1, to: 1 }] },
      decisions: { items: ['Answered: The build is fixed.', 'pin TypeScript'], sources: [{ stream: 'run-r', from: 3, to: 4 }] },
      currentPlan: { items: ['Next: run the build (delivery NEEDS_WORK)'], sources: [{ stream: 'run-r', from: 3, to: 3 }] },
      openIssues: { items: [], sources: [] },
      toolOutputs: { items: ['read_file {"path":"a.ts"} → error TS2304'], sources: [{ stream: 'run-r', from: 3, to: 3 }] },
    });
    expect(renderSummary(summary)).not.toContain('ide_reasoning');
  });

  it('folds an earlier summary in, keeping the first goals and the latest of the rest', () => {
    const previous = {
      ...EMPTY_SUMMARY,
      goals: { items: ['g1', 'g2', 'g3', 'g4', 'g5', 'g6'], sources: [{ stream: 'conversation-c', from: 0, to: 9 }] },
    };
    const summary = extractiveSummary({ previous, messages: sourced, outcomes: [] });
    expect(summary.goals.items).toEqual(['g1', 'g2', 'g4', 'g5', 'g6', 'Fix the build']);
    expect(summary.goals.sources).toEqual([
      { stream: 'conversation-c', from: 0, to: 9 },
      { stream: 'run-r', from: 1, to: 1 },
    ]);
  });

  it('is the same for the same input', () => {
    expect(extractiveSummary({ previous: null, messages: sourced, outcomes })).toEqual(
      extractiveSummary({ previous: null, messages: sourced, outcomes }),
    );
  });
});

describe('a summary the model wrote', () => {
  const covers = rangesOf([
    { stream: 'run-r', revision: 2 },
    { stream: 'run-r', revision: 9 },
  ]);

  it('is read leniently into the five sections, each citing everything summarised', () => {
    const text =
      'GOALS:\n* ship it\n## Decisions\n1. use zod\n## current plan\n- test\nOpen issues\n- none\n## Important tool outputs\n- npm test: 3 failed\n<ide_reasoning>\n- hidden\n</ide_reasoning>';
    const summary = parseSummary(text, covers);
    expect(Object.fromEntries(Object.entries(summary).map(([k, v]) => [k, v.items]))).toEqual({
      goals: ['ship it'],
      decisions: ['use zod'],
      currentPlan: ['test'],
      openIssues: [],
      toolOutputs: ['npm test: 3 failed'],
    });
    expect(summary.goals.sources).toEqual([{ stream: 'run-r', from: 2, to: 9 }]);
  });

  it('keeps text outside any heading as the plan', () => {
    expect(parseSummary('just keep going', covers).currentPlan.items).toEqual(['just keep going']);
  });
});

describe('the extractive summary, version 2 (every turn kept, the rest under a budget)', () => {
  const conversation = 'conversation-c';
  /** Turn `n` of a conversation as its stream holds it: the user's goal at 2n, the answer at 2n + 1. */
  const turn = (n: number) => [
    { message: user(`Goal ${n}: set LIMIT_${n} to ${n * 7}`), kind: 'user_input' as const, stream: conversation, revision: 2 * n },
    { message: assistant(`Done: LIMIT_${n} is ${n * 7}`), kind: 'assistant' as const, stream: conversation, revision: 2 * n + 1 },
  ];
  /** Fourteen turns compacted two or three at a time, each compaction folding in the one before. */
  function compactedInSteps(turns: number) {
    let summary: HistorySummary | null = null;
    for (let n = 0; n < turns; n += n % 2 === 0 ? 2 : 3) {
      const messages = Array.from({ length: Math.min(n % 2 === 0 ? 2 : 3, turns - n) }, (_, i) => turn(n + i)).flat();
      summary = extractiveSummary({ previous: summary, messages, outcomes: [], settings: V2 });
    }
    return summary!;
  }

  it('keeps every turn’s goal and answer across repeated compactions, each citing its own event', () => {
    const summary = compactedInSteps(14);
    expect(summary.goals.items).toEqual(Array.from({ length: 14 }, (_, n) => `Goal ${n}: set LIMIT_${n} to ${n * 7}`));
    expect(summary.goals.origins).toEqual(Array.from({ length: 14 }, (_, n) => ({ stream: conversation, from: 2 * n, to: 2 * n })));
    expect(summary.decisions.items).toEqual(Array.from({ length: 14 }, (_, n) => `Answered: Done: LIMIT_${n} is ${n * 7}`));
    expect(summary.decisions.origins?.[5]).toEqual({ stream: conversation, from: 11, to: 11 });
    expect(summary.goals.sources).toEqual([{ stream: conversation, from: 0, to: 26 }]);
    const text = renderSummary(summary);
    expect(text).toContain(`- Goal 4: set LIMIT_4 to 28 [${conversation}@8]`);
    expect(text).toContain(`- Answered: Done: LIMIT_13 is 91 [${conversation}@27]`);
  });

  it('keeps what version 1 lost: the goals of turns 3 to 6 of fourteen', () => {
    let v1: HistorySummary | null = null;
    for (let n = 0; n < 14; n += 2) v1 = extractiveSummary({ previous: v1, messages: [...turn(n), ...turn(n + 1)], outcomes: [] });
    expect(v1!.goals.items.some((g) => g.startsWith('Goal 4:'))).toBe(false);
    expect(compactedInSteps(14).goals.items.filter((g) => /^Goal [3-6]:/.test(g))).toHaveLength(4);
  });

  /** A run reading `reads` files, one command that failed, and a correction, compacted in one go. */
  function busyRun(reads: number) {
    const run = 'run-r';
    const messages: SourcedMessage[] = [{ message: user('Make the build green'), kind: 'user_input', stream: run, revision: 1 }];
    const call = (id: string, name: string, args: string): ChatMessage => ({
      role: 'assistant',
      content: '',
      toolCalls: [{ id, name, arguments: args }],
    });
    for (let i = 0; i < reads; i++)
      messages.push(
        { message: call(`r${i}`, 'read_file', `{"path":"src/f${i}.ts"}`), kind: 'assistant', stream: run, revision: 2 + 2 * i },
        { message: tool(`// src/f${i}.ts ${'x'.repeat(400)}`, `r${i}`), kind: 'tool_result', stream: run, revision: 3 + 2 * i },
      );
    const at = 2 + 2 * reads;
    messages.push(
      { message: call('cmd', 'run_command', '{"command":"npm test"}'), kind: 'assistant', stream: run, revision: at },
      { message: tool('3 tests failed: expected 8443, got 80', 'cmd'), kind: 'tool_result', stream: run, revision: at + 1 },
      { message: user('Keep the port at 8443.'), kind: 'correction', stream: run, revision: at + 2 },
    );
    return messages;
  }

  it('holds the items that may go under the budget: reads are cut short, then the oldest reads dropped; the rest stays', () => {
    const summary = extractiveSummary({ previous: null, messages: busyRun(200), outcomes: [], settings: V2 });
    const rest = [...summary.decisions.items, ...summary.openIssues.items, ...summary.toolOutputs.items];
    expect(rest.reduce((sum, item) => sum + item.length, 0)).toBeLessThanOrEqual(restBudgetChars(V2.maxTokens));
    expect(summary.goals.items).toEqual(['Make the build green']);
    expect(summary.openIssues.items).toEqual(['Correction: Keep the port at 8443.']);
    expect(summary.toolOutputs.items.at(-1)).toBe('run_command {"command":"npm test"} → 3 tests failed: expected 8443, got 80');
    const reads = summary.toolOutputs.items.filter((item) => item.startsWith('read_file'));
    expect(reads.length).toBeLessThan(200);
    expect(reads.every((item) => item.length <= 120)).toBe(true);
    // The newest reads are the ones kept.
    expect(reads.at(-1)).toMatch(/^read_file \{"path":"src\/f199\.ts"\}/);
    expect(summary.toolOutputs.origins).toHaveLength(summary.toolOutputs.items.length);
  });

  it('sizes the budget by the settings’ token bound', () => {
    const small = extractiveSummary({ previous: null, messages: busyRun(200), outcomes: [], settings: { ...V2, maxTokens: 4_000 } });
    const rest = [...small.decisions.items, ...small.openIssues.items, ...small.toolOutputs.items];
    expect(rest.reduce((sum, item) => sum + item.length, 0)).toBeLessThanOrEqual(4_000);
    expect(small.toolOutputs.items.length).toBeLessThan(
      extractiveSummary({ previous: null, messages: busyRun(200), outcomes: [], settings: V2 }).toolOutputs.items.length,
    );
    expect(small.openIssues.items).toEqual(['Correction: Keep the port at 8443.']);
  });

  it('keeps everything, uncut, while it fits', () => {
    const summary = extractiveSummary({ previous: null, messages: busyRun(10), outcomes: [], settings: V2 });
    expect(summary.toolOutputs.items).toHaveLength(11);
    expect(summary.toolOutputs.items[0].length).toBe(240);
  });

  it('is the same for the same input, and re-summarising it with nothing new changes nothing', () => {
    const once = extractiveSummary({ previous: null, messages: busyRun(200), outcomes: [], settings: V2 });
    expect(extractiveSummary({ previous: null, messages: busyRun(200), outcomes: [], settings: V2 })).toEqual(once);
    expect(extractiveSummary({ previous: once, messages: [], outcomes: [], settings: V2 })).toEqual(once);
  });

  it('folds in a version 1 summary, its items citing nothing of their own', () => {
    const previous = { ...EMPTY_SUMMARY, goals: { items: ['g1'], sources: [{ stream: conversation, from: 0, to: 1 }] } };
    const summary = extractiveSummary({ previous, messages: turn(1), outcomes: [], settings: V2 });
    expect(summary.goals).toEqual({
      items: ['g1', 'Goal 1: set LIMIT_1 to 7'],
      sources: [{ stream: conversation, from: 0, to: 2 }],
      origins: [null, { stream: conversation, from: 2, to: 2 }],
    });
    expect(renderSummary(summary)).toContain('- g1\n- Goal 1');
  });

  it('is a HistorySummary older events still parse as, and one whose origins do not match its items is refused', () => {
    expect(HistorySummary.safeParse(compactedInSteps(4)).success).toBe(true);
    expect(HistorySummary.safeParse(EMPTY_SUMMARY).success).toBe(true);
    const bad = { ...EMPTY_SUMMARY, goals: { items: ['a', 'b'], sources: [], origins: [null] } };
    expect(HistorySummary.safeParse(bad).success).toBe(false);
  });
});

describe('the model method, version 2', () => {
  it('takes a made-up source for text, never a range the log could not hold', () => {
    const summary = parseSummary('## Decisions\n- use zod [run-r@99999999999999999999]', [{ stream: 'run-r', from: 0, to: 1 }]);
    expect(summary.decisions.items).toEqual(['use zod [run-r@99999999999999999999]']);
    expect(summary.decisions.origins).toEqual([null]);
    expect(HistorySummary.safeParse(summary).success).toBe(true);
  });

  it('sends each message after the event it is stored as', () => {
    const text = transcriptOf(null, [{ message: user('Fix it'), kind: 'user_input', stream: 'run-r', revision: 4 }]);
    expect(text).toBe('[run-r@4] user: Fix it');
  });

  it('reads the events each bullet cites, and keeps every goal', () => {
    const goals = Array.from({ length: 12 }, (_, n) => `- goal ${n} → answered [conversation-c@${2 * n}-${2 * n + 1}]`).join('\n');
    const summary = parseSummary(`## Goals\n${goals}\n## Important tool outputs\n- port 8443 [run-r@7]\n- no source given`, [
      { stream: 'run-r', from: 0, to: 9 },
    ]);
    expect(summary.goals.items).toHaveLength(12);
    expect(summary.goals.items[3]).toBe('goal 3 → answered');
    expect(summary.goals.origins?.[3]).toEqual({ stream: 'conversation-c', from: 6, to: 7 });
    expect(summary.toolOutputs).toEqual({
      items: ['port 8443', 'no source given'],
      sources: [{ stream: 'run-r', from: 0, to: 9 }],
      origins: [{ stream: 'run-r', from: 7, to: 7 }, null],
    });
  });
});

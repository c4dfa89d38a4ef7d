import { ChatMessage } from '@stagecraft/contracts';
import { DEFAULT_COMPACTION, compactionTrigger, estimateTokens, recentWindowStart } from './settings';
import { EMPTY_SUMMARY, extractiveSummary, parseSummary, renderSummary } from './summary';
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

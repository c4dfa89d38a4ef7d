import { EventData, HistorySummary, RunDigest, streams } from '@stagecraft/contracts';
import { renderDigest, withSummary } from '@stagecraft/run';
import { emptyHistory, evolveHistory, sourcedMessages } from './history';

const STREAM = streams.conversation('c1');
const RUN = streams.run('r0');

type Event = Parameters<typeof evolveHistory>[1];
const message = (revision: number, data: Partial<EventData<'MessageAppended'>>): Event => ({
  type: 'MessageAppended',
  data: { messageId: `m${revision}`, role: 'user', content: '', instructions: [], intermediate: false, kind: 'user_input', ...data },
  revision: BigInt(revision),
  position: BigInt(revision + 1),
});
const turn = (n: number, digest?: RunDigest, at = 2 * n): Event[] => [
  message(at, { role: 'user', content: `question ${n}`, kind: 'user_input' }),
  message(at + 1, { role: 'assistant', content: `answer ${n}`, kind: 'assistant', ...(digest ? { digest } : {}) }),
];
const section = (items: string[]) => ({
  items,
  sources: items.length ? [{ stream: RUN, from: 3, to: 3 }] : [],
  origins: items.map(() => ({ stream: RUN, from: 3, to: 3 })),
});
const DIGEST: RunDigest = {
  decisions: section(['keep the pool at 4']),
  openIssues: section([]),
  toolOutputs: section(['read_file a.ts → fact-1']),
};
const SUMMARY: HistorySummary = {
  goals: { items: ['question 0'], sources: [{ stream: STREAM, from: 0, to: 0 }] },
  decisions: { items: ['Answered: answer 0'], sources: [{ stream: STREAM, from: 1, to: 1 }] },
  currentPlan: { items: [], sources: [] },
  openIssues: { items: [], sources: [] },
  toolOutputs: { items: [], sources: [] },
};
const compacted = (revision: number, replaced: number): Event => ({
  type: 'HistoryCompacted',
  data: {
    compactionId: `k${revision}`,
    method: 'extractive',
    trigger: { messageCount: 4, tokenEstimate: 10, maxMessages: 4, maxTokens: 256 },
    replaced,
    covers: [{ stream: STREAM, from: 0, to: replaced - 1 }],
    summary: SUMMARY,
    tokensBefore: 10,
    tokensAfter: 5,
  },
  revision: BigInt(revision),
  position: BigInt(revision + 1),
});
const fold = (events: readonly Event[]) => events.reduce(evolveHistory, emptyHistory('c1'));

describe('a conversation’s history', () => {
  it('written without digests, gives the same messages and requests as before, byte for byte', () => {
    const history = fold([...turn(0), ...turn(1), compacted(4, 2), ...turn(2, undefined, 5)]);
    const messages = sourcedMessages(history, STREAM);
    // What this read model gave before digests existed: one message per event, nothing added.
    expect(messages).toStrictEqual([
      { message: { role: 'user', content: 'question 1' }, kind: 'user_input', stream: STREAM, revision: 2 },
      { message: { role: 'assistant', content: 'answer 1' }, kind: 'assistant', stream: STREAM, revision: 3 },
      { message: { role: 'user', content: 'question 2' }, kind: 'user_input', stream: STREAM, revision: 5 },
      { message: { role: 'assistant', content: 'answer 2' }, kind: 'assistant', stream: STREAM, revision: 6 },
    ]);
    const request = JSON.stringify(withSummary(history.summary, messages));
    expect(request.slice(request.indexOf('"},{'))).toBe(
      '"},{"role":"user","content":"question 1"},{"role":"assistant","content":"answer 1"},' +
        '{"role":"user","content":"question 2"},{"role":"assistant","content":"answer 2"}]',
    );
  });

  it('shows a turn’s digest between its question and its answer, at the answer’s revision, with its items', () => {
    const messages = sourcedMessages(fold([...turn(0, DIGEST), ...turn(1)]), STREAM);
    expect(messages.map((m) => [m.message.role, m.revision])).toEqual([
      ['user', 0],
      ['user', 1],
      ['assistant', 1],
      ['user', 2],
      ['assistant', 3],
    ]);
    expect(messages[1]).toStrictEqual({
      message: { role: 'user', content: renderDigest(DIGEST) },
      kind: 'assistant',
      stream: STREAM,
      revision: 1,
      digest: DIGEST,
    });
    expect(messages[1].message.content).toContain(`- read_file a.ts → fact-1 [${RUN}@3]`);
    expect(messages.filter((m) => m.digest)).toHaveLength(1);
  });

  it('counts the digest as a message a compaction replaces, so the same log always folds to the same turns', () => {
    const history = fold([...turn(0, DIGEST), ...turn(1), compacted(4, 3), ...turn(2, undefined, 5)]);
    expect(history.messages.map((m) => m.content)).toEqual(['question 1', 'answer 1', 'question 2', 'answer 2']);
  });
});

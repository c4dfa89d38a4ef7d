import { ReasoningOutcome, RunDigest, SourcedMessage, SourcedOutcome, eventDataSchemas, streams } from '@stagecraft/contracts';
import { DIGEST_CHARS, renderDigest, runDigest } from './summary-digest';
import { extractiveSummary } from './summary';

const RUN = streams.run('r1');
const CONVERSATION = streams.conversation('c1');

const at = (revision: number, message: SourcedMessage['message'], kind?: SourcedMessage['kind']): SourcedMessage => ({
  message,
  ...(kind ? { kind } : {}),
  stream: RUN,
  revision,
});
const outcome = (revision: number, o: Partial<ReasoningOutcome>): SourcedOutcome => ({
  outcome: { plan_delta: 'none', next_action: 'go on', known_risks: 'none', delivery_state: 'NEEDS_WORK', ...o } as ReasoningOutcome,
  stream: RUN,
  revision,
});

/** A run that read `rounds` files (each output `outputChars` long), decided something in each round, then answered. */
function run(rounds: number, outputChars = 60) {
  const history: SourcedMessage[] = [at(1, { role: 'user', content: 'Check group 1.' }, 'user_input')];
  const outcomes: SourcedOutcome[] = [];
  let revision = 2;
  for (let i = 1; i <= rounds; i++) {
    outcomes.push(outcome(revision++, { plan_delta: `keep pool size ${i}` }));
    const call = { id: `c${i}`, name: 'read_file', arguments: JSON.stringify({ path: `f${i}.ts` }) };
    history.push(at(revision++, { role: 'assistant', content: '', toolCalls: [call] }, 'assistant'));
    history.push(
      at(revision++, { role: 'tool', content: `// f${i} owner code-${i} ${'x'.repeat(outputChars)}`, toolCallId: `c${i}` }, 'tool_result'),
    );
  }
  outcomes.push(outcome(revision++, { known_risks: 'the cache may be stale' }));
  history.push(at(revision++, { role: 'assistant', content: 'Group 1 is consistent.' }, 'assistant'));
  return { history, outcomes };
}

describe('a run’s digest', () => {
  it('holds the run’s decisions, open issues and tool outputs, each citing its run event, and neither goal nor answer', () => {
    const digest = runDigest(run(2))!;
    expect(digest.decisions.items).toEqual(['keep pool size 1', 'keep pool size 2']);
    expect(digest.decisions.origins).toEqual([
      { stream: RUN, from: 2, to: 2 },
      { stream: RUN, from: 5, to: 5 },
    ]);
    expect(digest.openIssues.items).toEqual(['Risk: the cache may be stale']);
    expect(digest.toolOutputs.items[0]).toMatch(/^read_file \{"path":"f1.ts"\} → \/\/ f1 owner code-1 x+$/);
    expect(digest.toolOutputs.origins).toEqual([
      { stream: RUN, from: 4, to: 4 },
      { stream: RUN, from: 7, to: 7 },
    ]);
    expect(digest.toolOutputs.sources).toEqual([{ stream: RUN, from: 4, to: 7 }]);
    const text = renderDigest(digest);
    expect(text).not.toContain('Check group 1.');
    expect(text).not.toContain('Group 1 is consistent.');
    expect(text).toContain(`- keep pool size 2 [${RUN}@5]`);
  });

  it('is the same for the same run, whatever else ran before', () => {
    const first = JSON.stringify(runDigest(run(5)));
    runDigest(run(30, 500));
    expect(JSON.stringify(runDigest(run(5)))).toBe(first);
  });

  it('stays within its character budget however long the run, open issues before what can be read again', () => {
    const digest = runDigest(run(60, 2_000))!;
    expect(renderDigest(digest).length).toBeLessThanOrEqual(DIGEST_CHARS);
    expect(renderDigest(digest).length).toBeGreaterThan(DIGEST_CHARS / 2);
    expect(digest.openIssues.items).toEqual(['Risk: the cache may be stale']);
    // Re-readable outputs go first, the oldest first: the latest read survives.
    expect(digest.toolOutputs.items.every((item) => !item.includes('code-1 '))).toBe(true);
    expect(digest.decisions.items.length + digest.toolOutputs.items.length).toBeGreaterThan(0);
  });

  it('is what the contract accepts, which refuses a stored digest far past the budget', () => {
    const digest = runDigest(run(60, 2_000))!;
    expect(RunDigest.safeParse(digest).success).toBe(true);
    const bloated = { ...digest, toolOutputs: { items: ['x'.repeat(5_000)], sources: [], origins: [null] } };
    expect(RunDigest.safeParse(bloated).success).toBe(false);
    const answer = { messageId: 'r1.answer', role: 'assistant', content: 'done', kind: 'assistant' };
    expect(eventDataSchemas.MessageAppended.safeParse({ ...answer, digest }).success).toBe(true);
    expect(eventDataSchemas.MessageAppended.safeParse({ ...answer, digest: bloated }).success).toBe(false);
  });

  it('leaves what the run said without a tool to the turn’s answer: its decisions are its plan deltas', () => {
    const r = run(1);
    r.history.splice(1, 0, at(1, { role: 'assistant', content: 'I will read f1.ts first.' }, 'assistant'));
    expect(runDigest(r)!.decisions.items).toEqual(['keep pool size 1']);
  });

  it('is null for a run that left nothing but its goal and answer', () => {
    expect(runDigest({ history: run(0).history.filter((m) => m.kind !== 'tool_result'), outcomes: [] })).toBeNull();
  });
});

describe('a summary of turns that carry a digest', () => {
  const digest = runDigest(run(2))!;
  const turn: SourcedMessage[] = [
    { message: { role: 'user', content: 'Check group 1.' }, kind: 'user_input', stream: CONVERSATION, revision: 0 },
    { message: { role: 'user', content: renderDigest(digest) }, kind: 'assistant', digest, stream: CONVERSATION, revision: 1 },
    { message: { role: 'assistant', content: 'Group 1 is consistent.' }, kind: 'assistant', stream: CONVERSATION, revision: 1 },
  ];

  it('files the digest’s items by section with the run events they cite (version 2)', () => {
    const summary = extractiveSummary({ previous: null, messages: turn, outcomes: [], settings: { summaryVersion: 2, maxTokens: 8_000 } });
    expect(summary.goals.items).toEqual(['Check group 1.']);
    expect(summary.decisions.items).toEqual(['keep pool size 1', 'keep pool size 2', 'Answered: Group 1 is consistent.']);
    expect(summary.decisions.origins).toEqual([
      { stream: RUN, from: 2, to: 2 },
      { stream: RUN, from: 5, to: 5 },
      { stream: CONVERSATION, from: 1, to: 1 },
    ]);
    expect(summary.openIssues.items).toEqual(['Risk: the cache may be stale']);
    expect(summary.toolOutputs.items).toEqual(digest.toolOutputs.items);
    expect(summary.toolOutputs.origins).toEqual(digest.toolOutputs.origins);
    expect(summary.decisions.sources).toEqual([
      { stream: RUN, from: 2, to: 5 },
      { stream: CONVERSATION, from: 1, to: 1 },
    ]);
  });

  it('files them by section under version 1 too, never the digest’s text as a goal', () => {
    const summary = extractiveSummary({ previous: null, messages: turn, outcomes: [] });
    expect(summary.goals.items).toEqual(['Check group 1.']);
    expect(summary.toolOutputs.items).toEqual(digest.toolOutputs.items);
  });
});

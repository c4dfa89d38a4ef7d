import { CompactionSettings, EventData, streams } from '@stagecraft/contracts';
import { MACRO, RUN_ID, ShellKnowledge, When, call, decideAsShell, micro, reply, requested, toolAnswers } from '../given.testing';
import { evolveRun, foldRun } from '../evolve';
import { DEFAULT_RUN_LIMITS } from '../limits';
import { PendingEvent } from '../pending-event';
import { replayRun } from '../replay';
import { RunInput } from '../inputs';
import { PriorTurns, withPrior } from '../state';
import { DEFAULT_COMPACTION } from './settings';

const SETTINGS: CompactionSettings = { method: 'extractive', maxMessages: 8, maxTokens: 1_000_000, keepRecentTokens: 40 };
const conversation = streams.conversation('c1');
/** Six earlier turns, each a goal and its answer. */
const prior: PriorTurns = {
  summary: null,
  messages: Array.from({ length: 12 }, (_, i) => ({
    message: {
      role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content: i % 2 === 0 ? `goal ${i / 2}` : `answer ${(i - 1) / 2}`,
    },
    kind: i % 2 === 0 ? ('user_input' as const) : ('assistant' as const),
    stream: conversation,
    revision: i,
  })),
};

/** The run's log after a tool loop of `rounds`, decided as the shell decides it: with the earlier turns loaded. */
function toolLoop(rounds: number, compaction: CompactionSettings): PendingEvent[] {
  const limits = { ...DEFAULT_RUN_LIMITS, maxToolIterations: 40 };
  const inputs: When[] = [{ ...requested(), compaction, prior, limits } as RunInput, reply(`${MACRO}\nReading.`)];
  for (let i = 1; i <= rounds; i++)
    inputs.push(
      reply(`${micro({ next: `read f${i}.ts` })}\nReading f${i}.ts.`, [call('read_file', { path: `f${i}.ts` }, `c${i}`)]),
      toolAnswers(`export const f${i} = ${i};`),
    );
  const knowledge = new ShellKnowledge();
  const log: PendingEvent[] = [];
  let state = withPrior(foldRun([]), prior);
  for (const when of inputs) {
    const events = decideAsShell(typeof when === 'function' ? when(state) : when, state, limits, knowledge);
    log.push(...events);
    state = withPrior(events.reduce(evolveRun, state), prior);
  }
  return log;
}

const compactions = (events: readonly PendingEvent[]) =>
  events.flatMap((e) => (e.type === 'HistoryCompacted' ? [e.data as EventData<'HistoryCompacted'>] : []));

describe('the summary rule a run recorded', () => {
  it('is version 2 for runs this build starts', () => {
    expect(DEFAULT_COMPACTION.summaryVersion).toBe(2);
  });

  it('with version 2, keeps every earlier turn and cites each item’s event, and replays to the same events', () => {
    const run = toolLoop(12, { ...SETTINGS, summaryVersion: 2 });
    const all = compactions(run);
    expect(all.length).toBeGreaterThan(2);
    const last = all.at(-1)!.summary;
    expect(last.goals.items).toEqual(['goal 0', 'goal 1', 'goal 2', 'goal 3', 'goal 4', 'goal 5', 'Fix the failing test.']);
    expect(last.goals.origins?.[6]).toEqual({ stream: streams.run(RUN_ID), from: 1, to: 1 });
    expect(last.decisions.items.filter((d) => d.startsWith('Answered: answer'))).toHaveLength(6);
    expect(last.toolOutputs.origins).toHaveLength(last.toolOutputs.items.length);
    expect(replayRun(run, DEFAULT_RUN_LIMITS, prior)).toMatchObject({ identical: true });
  });

  it('without one (every log from before it), keeps the first goals and the latest of the rest as that build did, and replays the same', () => {
    const run = toolLoop(12, SETTINGS);
    const last = compactions(run).at(-1)!.summary;
    expect(last.goals.items).toEqual(['goal 0', 'goal 1', 'goal 3', 'goal 4', 'goal 5', 'Fix the failing test.']);
    expect(last.goals.origins).toBeUndefined();
    expect(replayRun(run, DEFAULT_RUN_LIMITS, prior)).toMatchObject({ identical: true });
  });
});

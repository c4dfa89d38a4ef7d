import { evolveRun, foldRun } from './evolve';
import { MACRO, ShellKnowledge, When, call, decideAsShell, micro, reply, requested, reviewed, toolAnswers } from './given.testing';
import { DEFAULT_RUN_LIMITS } from './limits';
import { PendingEvent } from './pending-event';
import { replayRun } from './replay';
import { RunState } from './state';

const STEPS: When[] = [
  requested('agent', true),
  reply(`${MACRO}\nI will read the file first.`),
  reply(`${micro()}\nReading.`, [call('read_file')]),
  toolAnswers('export const a = 1;'),
  reply(`${micro({ delivery: 'DONE' })}\nThe file exports a.`),
  reply(micro({ delivery: 'DONE' })),
  reviewed(),
];

/** Decides `steps` from `state` as the shell would; each decision is one commit. */
function drive(state: RunState, steps: readonly When[]): PendingEvent[][] {
  const knowledge = new ShellKnowledge();
  const commits: PendingEvent[][] = [];
  for (const when of steps) {
    const events = decideAsShell(typeof when === 'function' ? when(state) : when, state, DEFAULT_RUN_LIMITS, knowledge);
    commits.push(events);
    state = events.reduce(evolveRun, state);
  }
  return commits;
}

/** A fork of `original` after its first `kept` commits, decided on to its end under the run id `r2`. */
function forkOf(original: PendingEvent[][], kept: number): PendingEvent[] {
  const head = original.slice(0, kept).flat();
  const revision = head.length - 1;
  const copied = head.map((e) =>
    e.type === 'RunStarted' ? { ...e, data: { ...e.data, runId: 'r2', forkedFrom: { runId: 'r1', revision } } } : e,
  );
  return [...copied, ...drive(foldRun(copied), STEPS.slice(kept)).flat()];
}

describe('replayRun on a forked run', () => {
  const original = drive(foldRun([]), STEPS);

  it('takes the copied head as recorded and decides the rest again, with ids from the new run', () => {
    const forked = forkOf(original, 3);
    const head = original.slice(0, 3).flat().length;
    expect(forked.slice(head).some((e) => e.type === 'ModelRequested' && e.data.requestId.startsWith('r2.'))).toBe(true);
    expect(replayRun(forked, DEFAULT_RUN_LIMITS)).toEqual({
      identical: true,
      events: forked.length,
      decisions: STEPS.length - 3,
      copied: head,
    });
  });

  it('finds a changed event after the fork point; the head it copied is taken as recorded', () => {
    const forked = forkOf(original, 3);
    const head = original.slice(0, 3).flat().length;
    const answer = forked.findIndex((e, i) => i >= head && e.type === 'RunCompleted');
    const tampered = forked.map((e, i) =>
      i === answer && e.type === 'RunCompleted' ? { ...e, data: { ...e.data, answer: 'edited' } } : e,
    );
    expect(replayRun(tampered, DEFAULT_RUN_LIMITS)).toMatchObject({ identical: false, index: answer, why: 'events differ' });
    const timed = forked.map((e, i) => (i < head && e.type === 'ModelResponded' ? { ...e, data: { ...e.data, latencyMs: 999 } } : e));
    expect(replayRun(timed, DEFAULT_RUN_LIMITS)).toMatchObject({ identical: true, copied: head });
    // Decided from the first event, the same log differs where the copied head says `r2` and the decider says `r1`.
    const unforked = forked.map((e) => (e.type === 'RunStarted' ? { ...e, data: { ...e.data, forkedFrom: undefined } } : e));
    expect(replayRun(unforked, DEFAULT_RUN_LIMITS)).toMatchObject({ identical: false });
  });

  it('a run that is not a fork is decided again from its first event, as before', () => {
    const log = original.flat();
    expect(replayRun(log, DEFAULT_RUN_LIMITS)).toEqual({ identical: true, events: log.length, decisions: STEPS.length });
  });
});

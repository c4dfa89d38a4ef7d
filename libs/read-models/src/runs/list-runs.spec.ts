import { Log, at, fold, runStarted } from '../log.testing';
import { isStuck, listRuns, runOf, stuckRuns } from './list-runs';
import { rootOfConversation, rootOfRun, runsModel } from './runs';

const MINUTE = 60_000;

/** r1 (c1) completed, r2 (c2) idle since 0:10, r3 (c1) failed, r4 (c1) busy at 0:50: started in that order. */
function fourRuns() {
  const log = new Log();
  const [r1, r2, r3, r4] = [log.run('r1', 'c1'), log.run('r2', 'c2'), log.run('r3', 'c1'), log.run('r4', 'c1')];
  r1('RunStarted', runStarted('r1', 'c1'), at(0));
  r2('RunStarted', runStarted('r2', 'c2'), at(10));
  r3('RunStarted', runStarted('r3', 'c1'), at(20));
  r4('RunStarted', runStarted('r4', 'c1'), at(30));
  r1('RunCompleted', { deliveryState: 'DONE', answer: 'a' }, at(40));
  r3('RunFailed', { code: 'TIMEOUT', reason: 'slow' }, at(45));
  r4('DeliveryChecked', { state: 'NEEDS_WORK', iteration: 0 }, at(50));
  return fold(runsModel, log.events);
}
const ids = (runs: { runId: string }[]) => runs.map((r) => r.runId);

describe('listing runs', () => {
  const view = fourRuns();

  it('lists newest first, up to the limit', () => {
    expect(ids(listRuns(view, { limit: 50 }))).toEqual(['r4', 'r3', 'r2', 'r1']);
    expect(ids(listRuns(view, { limit: 2 }))).toEqual(['r4', 'r3']);
  });

  it('filters by status and by conversation, together', () => {
    expect(ids(listRuns(view, { status: 'running', limit: 50 }))).toEqual(['r4', 'r2']);
    expect(ids(listRuns(view, { conversationId: 'c1', limit: 50 }))).toEqual(['r4', 'r3', 'r1']);
    expect(ids(listRuns(view, { conversationId: 'c1', status: 'running', limit: 50 }))).toEqual(['r4']);
    expect(listRuns(view, { conversationId: 'nobody', limit: 50 })).toEqual([]);
  });

  it('calls a run stuck when it is running and idle for longer than the threshold at the caller’s clock', () => {
    const now = new Date(Date.parse(at(10)) + 5 * MINUTE);
    expect(ids(stuckRuns(view, { now, idleMs: 5 * MINUTE }))).toEqual([]);
    expect(ids(stuckRuns(view, { now, idleMs: 5 * MINUTE - 1 }))).toEqual(['r2']);
    const later = new Date(Date.parse(at(50)) + 10 * MINUTE + 1);
    expect(ids(stuckRuns(view, { now: later, idleMs: 10 * MINUTE }))).toEqual(['r4', 'r2']);
    expect(ids(listRuns(view, { stuck: { now, idleMs: 5 * MINUTE - 1, only: false }, limit: 50 }))).toEqual(['r4', 'r3', 'r1']);
    expect(isStuck(listRuns(view, { status: 'completed', limit: 1 })[0], { now: later, idleMs: 0 })).toBe(false);
  });
});

describe('who may see a run', () => {
  const log = new Log();
  log.run('r-ours')('RunStarted', { ...runStarted('r-ours', 'c-ours'), projectRoot: '/srv/ours/app' });
  log.run('r-theirs')('RunStarted', { ...runStarted('r-theirs', 'c-theirs'), projectRoot: '/srv/theirs' }, at(1));
  // A later run of the same conversation from elsewhere does not take the conversation over.
  log.run('r-later')('RunStarted', { ...runStarted('r-later', 'c-ours'), projectRoot: '/srv/theirs' }, at(2));
  const view = fold(runsModel, log.events);

  it('given runs in two projects, then each run and conversation keeps its project, which the record does not show', () => {
    expect(rootOfRun(view, 'r-theirs')).toBe('/srv/theirs');
    expect(rootOfRun(view, 'r-nobody')).toBeNull();
    expect(rootOfConversation(view, 'c-ours')).toBe('/srv/ours/app');
    expect(rootOfConversation(view, 'c-nobody')).toBeNull();
    expect(runOf(view, 'r-ours')).not.toHaveProperty('projectRoot');
  });

  it('when listing with a visibility test, then only the runs it lets through are listed, within the limit', () => {
    const ours = (root: string | null) => root !== null && root.startsWith('/srv/ours/');
    expect(listRuns(view, { limit: 1, visible: ours }).map((r) => r.runId)).toEqual(['r-ours']);
    expect(listRuns(view, { limit: 50 }).map((r) => r.runId)).toEqual(['r-later', 'r-theirs', 'r-ours']);
  });
});

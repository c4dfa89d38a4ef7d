import { recordedRun } from './given.testing';
import { DEFAULT_RUN_LIMITS } from './limits';
import { replayRun } from './replay';

describe('replayRun', () => {
  it('decides a recorded run again from its own log: the same events, with no model, tool or reviewer', () => {
    const log = recordedRun();
    expect(log.filter((e) => e.type === 'MessageAppended' && e.data.kind === 'correction')).toHaveLength(1);
    expect(replayRun(log, DEFAULT_RUN_LIMITS)).toEqual({ identical: true, events: log.length, decisions: 8 });
  });

  it('names the first event that a changed log no longer gives', () => {
    const log = recordedRun();
    const index = log.findIndex((e) => e.type === 'DeliveryChecked');
    const tampered = log.map((e, i) =>
      i === index && e.type === 'DeliveryChecked' ? { ...e, data: { ...e.data, state: 'NEEDS_WORK' as const } } : e,
    );
    expect(replayRun(tampered, DEFAULT_RUN_LIMITS)).toMatchObject({
      identical: false,
      index,
      why: 'events differ',
      actual: { data: { state: 'DONE' } },
    });
  });

  it('says so when the log goes on after the run ended, or stops before it did', () => {
    const log = recordedRun();
    expect(replayRun([...log, log[1]], DEFAULT_RUN_LIMITS)).toMatchObject({ identical: false, index: log.length, actual: null });
    expect(replayRun(log.slice(0, -1), DEFAULT_RUN_LIMITS)).toMatchObject({ identical: false, index: log.length - 1, expected: null });
  });

  it('decides a run again under the limits it recorded, whatever the defaults given', () => {
    // The run was recorded without a window (its tool results repeat their outputs): only the bounds are added.
    const bounds = { ...DEFAULT_RUN_LIMITS, contextWindow: undefined };
    const log = recordedRun().map((e) => (e.type === 'RunStarted' ? { ...e, data: { ...e.data, limits: bounds } } : e));
    expect(replayRun(log, { ...DEFAULT_RUN_LIMITS, maxToolIterations: 0 })).toMatchObject({ identical: true });
  });

  it('cannot decide what the log does not hold: a run that recorded no limits, under limits it was not run with', () => {
    const log = recordedRun();
    expect(replayRun(log, DEFAULT_RUN_LIMITS)).toMatchObject({ identical: true });
    expect(replayRun(log, { ...DEFAULT_RUN_LIMITS, maxToolIterations: 0 })).toMatchObject({ identical: false });
  });
});

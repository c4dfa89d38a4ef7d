import { call, given, like, reply, requested, toolAnswers } from './given.testing';
import { DEFAULT_RUN_LIMITS } from './limits';

describe('the bounds a run starts with', () => {
  const askedForOneRound = { ...requested('agent', false), limits: { ...DEFAULT_RUN_LIMITS, maxToolIterations: 1 } };

  it('are recorded in RunStarted, whatever bounds the deciding replica has', () => {
    given()
      .withLimits({ maxToolIterations: 12 })
      .when(askedForOneRound)
      .then(
        like('RunStarted', { limits: { ...DEFAULT_RUN_LIMITS, maxToolIterations: 1 } }),
        like('MessageAppended'),
        like('StageEntered', { stage: 'act' }),
      );
  });

  it('bound the run after a take-over by a replica with other settings', () => {
    const started = given().after(askedForOneRound, reply('Reading.', [call('read_file')]), toolAnswers());
    // Another replica, set to 12 rounds, drives the run on: the run's own bound of 1 still holds.
    started
      .withLimits({ maxToolIterations: 12 })
      .after(reply('Reading more.', [call('read_file')]))
      .when(toolAnswers())
      .then(
        like('ToolCallCompleted'),
        like('MessageAppended'),
        like('LimitReached', { limit: 'maxToolIterations', value: 1, stage: 'tool_followup', iteration: 1 }),
        like('StageEntered', { stage: 'delivery_check', iteration: 0 }),
      );
  });
});

import { RunEvent } from '@stagecraft/contracts';
import { foldRunView } from './run-view';

const metadata = { runId: 'r1', conversationId: 'c1', correlationId: 'k1', occurredAt: '2026-01-01T00:00:00.000Z' };
const started: RunEvent = {
  type: 'RunStarted',
  data: { runId: 'r1', conversationId: 'c1', userMode: 'agent', reasoningEnabled: true, userInput: 'fix it', projectRoot: '/p' },
  metadata,
};
const delivery = (state: 'DONE' | 'NEEDS_WORK', iteration: number): RunEvent => ({
  type: 'DeliveryChecked',
  data: { state, iteration },
  metadata,
});

describe('run view', () => {
  it('is null for a stream that does not start with RunStarted', () => {
    expect(foldRunView([delivery('DONE', 0)])).toBeNull();
  });

  it('tracks status, revision and the answer', () => {
    const view = foldRunView([
      started,
      delivery('DONE', 0),
      { type: 'RunCompleted', data: { deliveryState: 'DONE', answer: 'done' }, metadata },
    ]);
    expect(view).toMatchObject({
      status: 'completed',
      answer: 'done',
      deliveryState: 'DONE',
      eventCount: 3,
      revision: 2,
      userMode: 'agent',
    });
  });

  it('never lets a later NEEDS_WORK erase a DONE delivery', () => {
    expect(foldRunView([started, delivery('DONE', 0), delivery('NEEDS_WORK', 1)])?.deliveryState).toBe('DONE');
  });
});

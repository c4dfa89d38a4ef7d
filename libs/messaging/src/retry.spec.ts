import { HealthReply, StagecraftError } from '@stagecraft/contracts';
import { createInprocBus } from './inproc-bus';
import { createRequester, serveRequests } from './requests';
import { requestRetrying } from './retry';

const prefix = 'test';
const newId = () => 'id-1';
const health: HealthReply = {
  service: 'policy',
  status: 'ok',
  version: '0',
  pid: 1,
  uptimeMs: 0,
  transport: 'inproc',
  store: null,
  dependencies: [],
} as HealthReply;
const policy = { attemptTimeoutMs: 1_000, delaysMs: [1, 2] };

describe('requestRetrying (asking again while a service restarts)', () => {
  it('asks again while nobody answers, and gets the answer of the service that came back', async () => {
    const bus = createInprocBus();
    const requester = createRequester(bus, { prefix, newId });
    const retries: [number, string][] = [];
    const reply = await requestRetrying(
      requester,
      'policy.health',
      {},
      {
        policy,
        giveUpAt: Infinity,
        now: () => 0,
        onRetry: (attempt, code) => {
          retries.push([attempt, code]);
          // The service is back after the third failed attempt.
          if (attempt === 3) serveRequests(bus, { 'policy.health': async () => health }, { prefix, newId });
        },
      },
    );
    expect(reply).toMatchObject({ service: 'policy', status: 'ok' });
    expect(retries).toEqual([
      [1, 'UNAVAILABLE'],
      [2, 'UNAVAILABLE'],
      [3, 'UNAVAILABLE'],
    ]);
    await bus.close();
  });

  it('gives up once past its deadline with the last failure, and never repeats an answer that is an error', async () => {
    const bus = createInprocBus();
    const requester = createRequester(bus, { prefix, newId });
    let clock = 0;
    const attempts: number[] = [];
    const failed = requestRetrying(
      requester,
      'policy.health',
      {},
      { policy, giveUpAt: 2, now: () => clock++, onRetry: (n) => attempts.push(n) },
    );
    await expect(failed).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(attempts).toEqual([1, 2, 3]);

    let served = 0;
    serveRequests(
      bus,
      {
        'policy.health': async () => {
          served += 1;
          throw new StagecraftError('INTERNAL', 'broken');
        },
      },
      { prefix, newId },
    );
    await expect(requestRetrying(requester, 'policy.health', {}, { policy, giveUpAt: Infinity, now: () => 0 })).rejects.toMatchObject({
      code: 'INTERNAL',
    });
    expect(served).toBe(1);
    await bus.close();
  });
});

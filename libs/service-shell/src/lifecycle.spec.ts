import { exitCodeOfStartFailure, notServingChecks, within } from './lifecycle';

describe('a process that is not serving', () => {
  it('is not ready while it looks for NATS, and says where and why', () => {
    expect(notServingChecks({ kind: 'connecting', address: 'nats://nats:4222' })).toEqual([
      { name: 'nats', ok: false, required: true, address: 'nats://nats:4222', detail: 'connecting (first attempt)' },
    ]);
    const lastAttempt = { attempt: 3, servers: 'nats://nats:4222', error: 'connection refused', nextDelayMs: 900, elapsedMs: 700 };
    expect(notServingChecks({ kind: 'connecting', address: 'nats://nats:4222', lastAttempt })).toEqual([
      {
        name: 'nats',
        ok: false,
        required: true,
        address: 'nats://nats:4222',
        detail: 'not reached yet: attempt 3 failed (connection refused); next in 900 ms',
      },
    ]);
  });

  it('is not ready while it stops', () => {
    expect(notServingChecks({ kind: 'stopping' })).toEqual([{ name: 'process', ok: false, required: true, detail: 'stopping' }]);
  });
});

describe('exitCodeOfStartFailure', () => {
  it('is 3 for a dependency that could not be reached (docs/decisions/0028), 1 otherwise', () => {
    expect(['UNAVAILABLE', 'TIMEOUT', 'INTERNAL', 'VALIDATION'].map(exitCodeOfStartFailure)).toEqual([3, 3, 1, 1]);
  });
});

describe('within', () => {
  it('is true for work that ends in time, rejections included, and false for work that does not', async () => {
    expect(await within(60_000, Promise.resolve('done'))).toBe(true);
    expect(await within(60_000, Promise.reject(new Error('dead connection')))).toBe(true);
    expect(await within(10, new Promise(() => undefined))).toBe(false);
  });
});

import { ConnectAttemptFailed, ConnectGaveUp, connectBackoffMs, connectRetrying } from './nats-connect-retry';

const refused = () => Object.assign(new Error('connection refused'), { name: 'ConnectionError' });

/** A clock that only moves when an attempt takes time: each attempt "takes" `attemptMs`. */
function scripted(outcomes: (Error | 'ok')[], attemptMs = 100) {
  let t = 0;
  const calls: (number | undefined)[] = [];
  return {
    now: () => t,
    calls,
    connectOnce: async (attemptTimeoutMs: number | undefined) => {
      calls.push(attemptTimeoutMs);
      t += attemptMs;
      const outcome = outcomes[Math.min(calls.length - 1, outcomes.length - 1)];
      if (outcome === 'ok') return 'connection';
      throw outcome;
    },
  };
}

// Pauses of a few milliseconds: the tests wait for real, but never for long.
const fast = { initialDelayMs: 2, maxDelayMs: 8 };

describe('connectBackoffMs', () => {
  it('doubles from the first pause up to the ceiling, between half and all of it', () => {
    const ceilings = [1, 2, 3, 4, 5, 6, 7, 20].map((attempt) => connectBackoffMs(attempt, () => 1));
    expect(ceilings).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000, 5000]);
    expect([1, 2, 6].map((attempt) => connectBackoffMs(attempt, () => 0))).toEqual([125, 250, 2500]);
    expect(connectBackoffMs(3, () => 0.5)).toBe(750);
  });
});

describe('connectRetrying', () => {
  it('tries again after each refusal, telling each failure, until the server answers', async () => {
    const server = scripted([refused(), refused(), 'ok']);
    const told: ConnectAttemptFailed[] = [];
    const connection = await connectRetrying('nats://a:4222', server.connectOnce, {
      budgetMs: 10_000,
      now: server.now,
      random: () => 1,
      onRetry: (f) => told.push(f),
      ...fast,
    });
    expect(connection).toBe('connection');
    expect(told).toEqual([
      { attempt: 1, servers: 'nats://a:4222', error: 'connection refused', nextDelayMs: 2, elapsedMs: 100 },
      { attempt: 2, servers: 'nats://a:4222', error: 'connection refused', nextDelayMs: 4, elapsedMs: 200 },
    ]);
    // Each attempt may take the rest of the budget at most.
    expect(server.calls).toEqual([10_000, 9_900, 9_800]);
  });

  it('gives one attempt 20 s at most, however long the budget', async () => {
    const server = scripted([refused(), 'ok']);
    await connectRetrying('nats://a:4222', server.connectOnce, { budgetMs: 600_000, now: server.now, ...fast });
    expect(server.calls).toEqual([20_000, 20_000]);
  });

  it('gives up once the budget is spent, with the last error and how many attempts it made', async () => {
    const server = scripted([refused()]);
    const told: number[] = [];
    const outcome = await connectRetrying('nats://a:4222', server.connectOnce, {
      budgetMs: 350,
      now: server.now,
      random: () => 1,
      onRetry: (f) => told.push(f.attempt),
      ...fast,
    }).catch((error: unknown) => error);
    expect(outcome).toBeInstanceOf(ConnectGaveUp);
    expect(outcome).toMatchObject({ attempts: 4, elapsedMs: 400, message: 'connection refused' });
    expect(told).toEqual([1, 2, 3]);
  });

  it('makes one attempt when the budget is 0, with the client default attempt timeout', async () => {
    const server = scripted([refused()]);
    const told: number[] = [];
    await expect(
      connectRetrying('nats://a:4222', server.connectOnce, { budgetMs: 0, now: server.now, onRetry: (f) => told.push(f.attempt) }),
    ).rejects.toMatchObject({ attempts: 1 });
    expect({ calls: server.calls, told }).toEqual({ calls: [undefined], told: [] });
  });

  it('does not retry what no retry can cure: refused credentials', async () => {
    const denied = Object.assign(new Error('Authorization Violation'), { name: 'AuthorizationError' });
    const server = scripted([denied, 'ok']);
    await expect(
      connectRetrying('nats://a:4222', server.connectOnce, { budgetMs: 60_000, now: server.now, ...fast }),
    ).rejects.toMatchObject({
      attempts: 1,
      message: 'Authorization Violation',
    });
  });

  it('stops waiting at once when aborted (a SIGTERM before the server came)', async () => {
    const server = scripted([refused()]);
    const abort = new AbortController();
    const waiting = connectRetrying('nats://a:4222', server.connectOnce, {
      budgetMs: 60_000,
      now: server.now,
      signal: abort.signal,
      onRetry: () => abort.abort(),
      initialDelayMs: 60_000,
      maxDelayMs: 60_000,
    });
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    expect(server.calls).toHaveLength(1);
  });
});

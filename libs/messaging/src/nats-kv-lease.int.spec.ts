import { setTimeout as sleep } from 'node:timers/promises';
import { NatsServerHandle, startNatsServer } from '@stagecraft/testing';
import { MessageBus } from './bus';
import { LeaseStore, leaseKey, leasesFor } from './leases';
import { connectNatsBus } from './nats-bus';
import { createInprocBus } from './inproc-bus';

const TTL_MS = 1_000;

describe('run leases in NATS KV (real nats-server)', () => {
  let server: NatsServerHandle;
  let buses: MessageBus[];
  let a: LeaseStore;
  let b: LeaseStore;

  beforeAll(async () => {
    server = await startNatsServer();
    buses = [await connectNatsBus(server.url, 'replica-a'), await connectNatsBus(server.url, 'replica-b')];
    a = await leasesFor(buses[0], 'leasetest', TTL_MS);
    b = await leasesFor(buses[1], 'leasetest', TTL_MS);
  });

  afterAll(async () => {
    await Promise.all((buses ?? []).map((bus) => bus.close()));
    await server?.stop();
  });

  it('is a KV lease on NATS and an always-owned one in process', async () => {
    expect(a.kind).toBe('nats-kv');
    expect(a.ttlMs).toBe(TTL_MS);
    const local = await leasesFor(createInprocBus(), 'leasetest', TTL_MS);
    expect(local.kind).toBe('in-process');
    expect(await local.take('run.x', 'one')).not.toBeNull();
    expect(await local.take('run.x', 'two')).not.toBeNull();
  });

  it('one replica takes a key; the other cannot while it is renewed', async () => {
    const key = leaseKey('run', 'r-1');
    const taken = await a.take(key, 'a');
    expect(taken).toEqual(expect.any(Number));
    expect(await b.take(key, 'b')).toBeNull();
    const renewed = await a.renew(key, 'a', taken!);
    expect(renewed).toBeGreaterThan(taken!);
    // A renewal at a revision the store no longer has is refused: someone wrote after it.
    expect(await b.renew(key, 'b', taken!)).toBeNull();
    expect(await b.take(key, 'b')).toBeNull();
  });

  it('a released key can be taken at once by another replica', async () => {
    const key = leaseKey('run', 'r-2');
    const taken = await a.take(key, 'a');
    await a.release(key, taken!);
    expect(await b.take(key, 'b')).toEqual(expect.any(Number));
    // A release at a stale revision leaves the new owner's lease alone.
    await a.release(key, taken!);
    expect(await a.take(key, 'a')).toBeNull();
  });

  it('a lease nobody renews expires after its TTL and is taken by the next replica; the old holder cannot renew it', async () => {
    const key = leaseKey('run', 'r-3');
    const taken = await a.take(key, 'a');
    expect(await b.take(key, 'b')).toBeNull();
    let next: number | null = null;
    for (let i = 0; i < 60 && next === null; i++) {
      await sleep(100);
      next = await b.take(key, 'b');
    }
    expect(next).toEqual(expect.any(Number));
    expect(await a.renew(key, 'a', taken!)).toBeNull();
  });

  it('keys are made of the tokens a KV key allows', () => {
    expect(leaseKey('run', 'a b/c:d')).toBe('run.a_b_c_d');
  });
});

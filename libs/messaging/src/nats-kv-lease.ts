import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { LeaseStore } from './lease-store';
import { whileConnected } from './nats-connection';

const lostRace = (error: unknown) =>
  error instanceof JetStreamApiError &&
  (error.code === JetStreamApiCodes.StreamWrongLastSequence || error.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown);

/**
 * Leases in a NATS KV bucket. nats-server 2.9 has no per-message TTL, so expiry is the bucket's max
 * age: a lease nobody renews disappears `ttlMs` after its last write, and `create` then succeeds for
 * the next owner. Take is `create` (no value yet), renew is `update` at the revision last written,
 * release a delete at that revision: the server refuses each when another owner wrote in between.
 * The bucket is made by whichever replica comes first; later ones use it as it is (its TTL included).
 * With the connection down each fails at once (UNAVAILABLE), as a timeout would, only sooner.
 */
export async function openNatsKvLeases(nc: NatsConnection, options: { bucket: string; ttlMs: number }): Promise<LeaseStore> {
  const kv = await new Kvm(nc).create(options.bucket, { ttl: options.ttlMs, history: 1 });
  const ttlMs = (await kv.status()).ttl || options.ttlMs;
  return {
    kind: 'nats-kv',
    ttlMs,
    async take(key, owner) {
      try {
        return await whileConnected(nc, () => kv.create(key, owner));
      } catch (error) {
        if (lostRace(error)) return null;
        throw error;
      }
    },
    async renew(key, owner, revision) {
      try {
        return await whileConnected(nc, () => kv.update(key, owner, revision));
      } catch (error) {
        if (lostRace(error)) return null;
        throw error;
      }
    },
    async release(key, revision) {
      try {
        await whileConnected(nc, () => kv.delete(key, { previousSeq: revision }));
      } catch (error) {
        if (!lostRace(error)) throw error;
      }
    },
  };
}

import type { MessageBus } from './bus';
import { natsConnectionOf } from './nats-connection';
import { openNatsKvLeases } from './nats-kv-lease';

/**
 * Exclusive, expiring ownership of a key among the replicas of a service. The store expires a lease
 * `ttlMs` after it was last written; every write is checked against the revision its writer last saw,
 * so two replicas can never both believe they took or renewed the same lease.
 */
export interface LeaseStore {
  readonly kind: 'in-process' | 'nats-kv';
  readonly ttlMs: number;
  /** Takes a key nobody holds: the revision to renew with, or null when another owner holds it. */
  take(key: string, owner: string): Promise<number | null>;
  /** Writes the lease again at the revision last written: the new revision, or null when it expired or another owner took it. */
  renew(key: string, owner: string, revision: number): Promise<number | null>;
  /** Gives the key up, unless another owner has taken it since. */
  release(key: string, revision: number): Promise<void>;
}

/**
 * One process is the whole replica set: every key is always this process's. Exclusion within the
 * process is the caller's (one driver per run in the registry).
 */
export function inProcessLeases(ttlMs: number): LeaseStore {
  return {
    kind: 'in-process',
    ttlMs,
    take: async () => 1,
    renew: async (_key, _owner, revision) => revision + 1,
    release: async () => {},
  };
}

/** A lease key: tokens of letters, digits, `-` and `_` joined by dots (what a KV key allows). */
export function leaseKey(...parts: string[]): string {
  return parts.map((p) => p.replace(/[^A-Za-z0-9_-]/g, '_')).join('.');
}

/** The leases of the replicas on this bus: a NATS KV bucket per subject prefix, or in-process ones. */
export async function leasesFor(bus: MessageBus, prefix: string, ttlMs: number): Promise<LeaseStore> {
  const nc = natsConnectionOf(bus);
  if (!nc) return inProcessLeases(ttlMs);
  return openNatsKvLeases(nc, { bucket: `${(prefix || 'stagecraft').replace(/\./g, '_')}_leases`, ttlMs });
}

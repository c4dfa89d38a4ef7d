import type { MessageBus } from './bus';
import { natsConnectionOf } from './nats-connection';
import type { LeaseStore } from './lease-store';
import { openNatsKvLeases } from './nats-kv-lease';

export type { LeaseStore } from './lease-store';

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

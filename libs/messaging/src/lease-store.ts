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

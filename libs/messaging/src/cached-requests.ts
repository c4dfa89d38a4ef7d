import { performance } from 'node:perf_hooks';
import { ReplyOf, RequestSubject, requestContracts } from '@stagecraft/contracts';
import { Requester } from './requests';

export interface CachedRequestsOptions {
  /** The most distinct requests remembered; the least recently used goes first. Default 128. */
  maxEntries?: number;
  /** How long an answer is reused, from when it arrived, so a redeployed owner is heard again. Default 60 s. */
  ttlMs?: number;
  /** A monotonic clock in milliseconds; `performance.now` unless a test brings its own. */
  now?: () => number;
  /**
   * Hand every caller the one remembered reply instead of a copy (default false). Only for callers
   * that never change a reply, such as the run decider: the copy costs more than the cached request.
   */
  shareReplies?: boolean;
}

interface Entry {
  reply: Promise<unknown>;
  /** Set when the reply arrives; until then the entry is a request in flight that others may share. */
  expiresAt: number;
}

/**
 * A requester that remembers the answers to one subject whose reply is a pure function of its request
 * (`policy.decide`, `policy.table`): the owner still decides, it is just not asked the same question
 * twice within `ttlMs`. Requests to other subjects, and requests the subject's schema refuses (whose
 * error must come from the owner), pass through untouched. A failed request is never remembered.
 *
 * The key is the request as its schema parses it (defaults filled, keys in schema order), so
 * `{ stage, userMode }` and `{ userMode, stage, delegation: <the default> }` are one entry. Each
 * caller gets its own copy of the reply, as over the wire, unless `shareReplies` says it never changes one.
 */
export function cachedRequests(requester: Requester, subject: RequestSubject, options: CachedRequestsOptions = {}): Requester {
  const { maxEntries = 128, ttlMs = 60_000, now = () => performance.now(), shareReplies = false } = options;
  const entries = new Map<string, Entry>();

  const keyOf = (data: unknown): string | null => {
    const parsed = requestContracts[subject].request.safeParse(data);
    return parsed.success ? JSON.stringify(parsed.data) : null;
  };

  const remember = (key: string, ask: () => Promise<unknown>): Promise<unknown> => {
    const entry: Entry = { reply: ask(), expiresAt: Infinity };
    entries.delete(key);
    entries.set(key, entry);
    if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
    entry.reply.then(
      () => {
        entry.expiresAt = now() + ttlMs;
      },
      () => {
        if (entries.get(key) === entry) entries.delete(key);
      },
    );
    return entry.reply;
  };

  return {
    async request(s, data, requestOptions) {
      const key = s === subject ? keyOf(data) : null;
      if (key === null) return requester.request(s, data, requestOptions);
      const found = entries.get(key);
      let reply: Promise<unknown>;
      if (found && found.expiresAt > now()) {
        // Least recently used first out: a hit moves to the back of the map's order.
        entries.delete(key);
        entries.set(key, found);
        reply = found.reply;
      } else {
        reply = remember(key, () => requester.request(s, data, requestOptions));
      }
      const answer = (await reply) as ReplyOf<typeof s>;
      return shareReplies ? answer : structuredClone(answer);
    },
  };
}

import { RecordedRequest } from '@stagecraft/scripted-model';

/** What a provider's prompt cache sees of a chat request: the tool list, then every message, in order. */
export function renderedRequest(body: { tools?: unknown; messages?: unknown[] }): string[] {
  return [JSON.stringify(body.tools ?? []), ...(body.messages ?? []).map((m) => JSON.stringify(m))];
}

/** Characters of `current` that repeat the beginning of `previous` (rendered parts joined). */
export function sharedPrefix(previous: readonly string[], current: readonly string[]): number {
  let shared = 0;
  for (let i = 0; i < current.length; i++) {
    const a = previous[i];
    const b = current[i];
    if (a === b) {
      shared += b.length;
      continue;
    }
    if (a !== undefined) {
      let k = 0;
      while (k < a.length && k < b.length && a.charCodeAt(k) === b.charCodeAt(k)) k++;
      shared += k;
    }
    break;
  }
  return shared;
}

/** One request of the chain: its stage, size, the characters it repeats and how long its last message is. */
export interface RequestReuse {
  stage: string;
  chars: number;
  shared: number;
  lastMessageChars: number;
}

export interface PrefixReport {
  requests: number;
  perRequest: RequestReuse[];
  /** Per request after the first of its caller: the share of its characters a cache could reuse. */
  shares: number[];
  totalChars: number;
  reusableChars: number;
}

/**
 * How a provider's cache is modelled: `chain`, each request against the previous request of the same caller
 * (the run's own stages form one chain; the QA reviewer, with its own prompt, another); `shared`, against
 * the longest prefix of any earlier request (automatic prefix caches keep every recent prefix).
 */
export interface ReuseOptions {
  cache?: 'chain' | 'shared';
  /** Requests before this index only fill the cache; they are not counted. */
  countFrom?: number;
}

/** Prefix reuse over the chat requests of a session. */
export function prefixReuse(requests: readonly RecordedRequest[], { cache = 'chain', countFrom = 0 }: ReuseOptions = {}): PrefixReport {
  const previous = new Map<string, string[]>();
  const earlier: string[][] = [];
  const report: PrefixReport = { requests: 0, perRequest: [], shares: [], totalChars: 0, reusableChars: 0 };
  let index = -1;
  for (const request of requests) {
    if (request.path !== '/chat/completions') continue;
    index += 1;
    const caller = request.stage === 'qa_review' ? 'qa' : 'run';
    const rendered = renderedRequest(request.body as { tools?: unknown; messages?: unknown[] });
    const total = rendered.reduce((n, part) => n + part.length, 0);
    const before = previous.get(caller);
    const shared =
      cache === 'chain'
        ? before
          ? sharedPrefix(before, rendered)
          : 0
        : earlier.reduce((best, e) => Math.max(best, sharedPrefix(e, rendered)), 0);
    previous.set(caller, rendered);
    earlier.push(rendered);
    if (index < countFrom) continue;
    report.requests += 1;
    report.perRequest.push({ stage: request.stage ?? '?', chars: total, shared, lastMessageChars: rendered.at(-1)?.length ?? 0 });
    report.totalChars += total;
    report.reusableChars += shared;
    if (before || cache === 'shared') report.shares.push(shared / total);
  }
  return report;
}

/** Input cost with the reusable share at `cachedPrice` (a fraction of the fresh price), against all fresh. */
export const cachedCostRatio = (r: PrefixReport, cachedPrice: number) =>
  (r.totalChars - r.reusableChars + cachedPrice * r.reusableChars) / r.totalChars;

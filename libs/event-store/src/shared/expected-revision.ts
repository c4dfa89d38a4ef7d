import { StagecraftError, type ErrorIssue } from '@stagecraft/contracts';
import { ConcurrencyError } from '../errors';
import type { ExpectedRevision, NewEvent } from '../port';

/** `current` is the revision of the stream's last event, -1n when the stream does not exist. */
export function assertExpectedRevision(stream: string, expected: ExpectedRevision, current: bigint): void {
  if (!satisfies(expected, current)) throw new ConcurrencyError(stream, expected, current < 0n ? 'no_stream' : current);
}

function satisfies(expected: ExpectedRevision, current: bigint): boolean {
  if (typeof expected === 'bigint') return expected === current;
  switch (expected) {
    case 'any':
      return true;
    case 'no_stream':
      return current < 0n;
    case 'stream_exists':
      return current >= 0n;
    default: {
      const unknown: never = expected;
      throw new StagecraftError('VALIDATION', `unknown expected revision ${String(unknown)}`);
    }
  }
}

/** Rejects what no adapter could store faithfully, before any adapter-specific work. */
export function validateAppend(stream: string, events: readonly NewEvent[], expected: ExpectedRevision): void {
  const issues: ErrorIssue[] = [];
  if (stream.length === 0) issues.push({ path: ['stream'], message: 'stream name must not be empty' });
  if (typeof expected === 'bigint' && expected < 0n) issues.push({ path: ['expectedRevision'], message: 'an exact revision is 0 or more' });
  const seen = new Set<string>();
  events.forEach((event, index) => {
    if (typeof event.id !== 'string' || event.id.length === 0)
      issues.push({ path: ['events', index, 'id'], message: 'event id is required' });
    else if (seen.has(event.id))
      issues.push({ path: ['events', index, 'id'], message: `event id ${event.id} appears twice in one append` });
    seen.add(event.id);
    if (typeof event.type !== 'string' || event.type.length === 0)
      issues.push({ path: ['events', index, 'type'], message: 'event type is required' });
    // The hash chain's link goes into the metadata (docs/decisions/0037), so it must be an object to hold one.
    const metadata: unknown = event.metadata;
    if (metadata !== undefined && metadata !== null && (typeof metadata !== 'object' || Array.isArray(metadata)))
      issues.push({ path: ['events', index, 'metadata'], message: 'event metadata must be a JSON object (or null)' });
  });
  if (issues.length > 0) throw new StagecraftError('VALIDATION', `invalid append to stream '${stream}'`, issues);
}

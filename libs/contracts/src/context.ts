import { z } from 'zod';

// Self-contained (zod only), so that common.ts can take its ContextId from here without an import cycle.
const SEGMENT = '[A-Za-z0-9][A-Za-z0-9._:-]{0,127}';
const UTC_TIMESTAMP = '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d{1,9})?Z';

/** Seed 001: `{workflowRunId}/{agentType}/{sequence}/{timestamp}`, e.g. `wf-abc123/discovery-collector/001/2026-01-19T10:30:00Z`. */
export const CONTEXT_ID_PATTERN = new RegExp(`^(${SEGMENT})/(${SEGMENT})/(\\d{3,})/(${UTC_TIMESTAMP})$`);

const ContextSegment = z.string().regex(new RegExp(`^${SEGMENT}$`), 'letters, digits, ".", "_", ":" or "-" (max 128)');
/** An agent type names a segment of every context id its agent writes. */
export const AgentType = ContextSegment;
/** ISO-8601 in UTC (`Z`), so that ids sort by time within one sequence and read the same everywhere. */
export const ContextTimestamp = z.iso.datetime();

export const ContextIdParts = z.object({
  workflowRunId: ContextSegment,
  agentType: ContextSegment,
  sequence: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  timestamp: ContextTimestamp,
});
export type ContextIdParts = z.infer<typeof ContextIdParts>;

/** Zero-padded to three digits as in the seed's example; longer without padding, so each number has one spelling. */
export const formatSequence = (sequence: number): string => String(sequence).padStart(3, '0');

/** A context id in its string form: the pattern, a canonical sequence from 1, and a real UTC date. */
export const ContextIdString = z
  .string()
  .regex(CONTEXT_ID_PATTERN, { error: 'context ids are {workflowRunId}/{agentType}/{sequence}/{timestamp}', abort: true })
  .refine((id) => {
    const [, , , sequence = '', timestamp] = CONTEXT_ID_PATTERN.exec(id) ?? [];
    const n = Number(sequence);
    return n >= 1 && n <= Number.MAX_SAFE_INTEGER && formatSequence(n) === sequence;
  }, 'the sequence must be a number from 1, zero-padded to three digits (001, 042, 1234)')
  .refine((id) => ContextTimestamp.safeParse(CONTEXT_ID_PATTERN.exec(id)?.[4]).success, 'the timestamp is not a real ISO-8601 UTC date');
export type ContextIdString = z.infer<typeof ContextIdString>;

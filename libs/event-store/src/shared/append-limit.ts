import { StagecraftError } from '@stagecraft/contracts';

/**
 * KurrentDB's default `MaxAppendSize`: the data and metadata of one append, all its events together.
 * The memory store refuses what KurrentDB would, so a test here fails where production would.
 */
export const MAX_APPEND_BYTES = 1024 * 1024;

const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/** The bytes KurrentDB counts for events stored as JSON text. */
export function appendBytes(events: readonly { data: string; metadata: string }[]): number {
  let bytes = 0;
  for (const e of events) bytes += utf8Bytes(e.data) + utf8Bytes(e.metadata);
  return bytes;
}

/** Refuses an append over the limit with the error KurrentDB's refusal is mapped to (`VALIDATION`, see kurrentdb/mapping.ts). */
export function assertAppendFits(stream: string, bytes: number): void {
  if (bytes <= MAX_APPEND_BYTES) return;
  const reason = `${bytes} bytes, over the ${MAX_APPEND_BYTES} bytes one append may carry`;
  throw new StagecraftError('VALIDATION', `append to '${stream}' too large for KurrentDB: ${reason}`, [
    { path: ['events'], message: reason },
  ]);
}

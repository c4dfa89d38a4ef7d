import { createHash } from 'node:crypto';

/**
 * The most one piece of a checkpoint takes as stored: half of KurrentDB's 1 MiB append, so a piece
 * with its record's envelope always fits (docs/decisions/0041).
 */
export const PIECE_BYTES = 512 * 1024;
/** The state's UTF-8 bytes in one piece: as base64 (a JSON string with nothing to escape) exactly `PIECE_BYTES`. */
export const RAW_PIECE_BYTES = (PIECE_BYTES / 4) * 3;

/** What a large checkpoint's pieces must add up to. */
export interface PiecesSum {
  count: number;
  /** UTF-8 bytes of the state's JSON text. */
  bytes: number;
  /** sha256 of those bytes, base64url. */
  sha256: string;
}

/** Where a large checkpoint's pieces are, in a store shaped like KurrentDB streams, and what they add up to. */
export interface PiecesRef extends PiecesSum {
  /** One of two: a save writes the slot the current head does not point to, so a failed save leaves that one whole. */
  slot: 0 | 1;
  /** The first piece's place in its slot (a stream revision), as a decimal string. */
  from: string;
}

const digestOf = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('base64url');

/** True when `text` (a state's JSON) is small enough to be kept whole, as one record. */
export const fitsWhole = (text: string): boolean => Buffer.byteLength(text) <= PIECE_BYTES;

/** `text`'s UTF-8 cut into pieces of `RAW_PIECE_BYTES`, and what they add up to. */
export function piecesOf(text: string): { pieces: Buffer[]; sum: PiecesSum } {
  const bytes = Buffer.from(text, 'utf8');
  const pieces: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += RAW_PIECE_BYTES) pieces.push(bytes.subarray(at, at + RAW_PIECE_BYTES));
  return { pieces, sum: { count: pieces.length, bytes: bytes.length, sha256: digestOf(bytes) } };
}

/** The state's text again, or null when the pieces are not the ones the head was written with (a torn or lost save). */
export function joinPieces(sum: PiecesSum, pieces: readonly Uint8Array[]): string | null {
  if (pieces.length !== sum.count) return null;
  const bytes = Buffer.concat(pieces);
  return bytes.length === sum.bytes && digestOf(bytes) === sum.sha256 ? bytes.toString('utf8') : null;
}

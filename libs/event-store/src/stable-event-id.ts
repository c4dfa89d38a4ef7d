import { createHash } from 'node:crypto';

/**
 * A uuid-shaped id that is the same every time for the same name (RFC 9562 version 8, whose bits are
 * the writer's own: here the head of a sha256). A retried write appends events with the ids it had,
 * which stores recognise as a retry; KurrentDB takes only uuids as event ids.
 */
export function stableEventId(name: string): string {
  const hex = createHash('sha256').update(name).digest('hex').slice(0, 32).split('');
  hex[12] = '8';
  hex[16] = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  const at = (from: number, to: number) => hex.slice(from, to).join('');
  return `${at(0, 8)}-${at(8, 12)}-${at(12, 16)}-${at(16, 20)}-${at(20, 32)}`;
}

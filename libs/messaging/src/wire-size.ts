import { Headers } from './bus';
import { PayloadTooLargeError } from './errors';

/**
 * Bytes a message takes on the wire as NATS counts them against `max_payload`: the UTF-8 body plus
 * the headers as nats.js encodes them (`NATS/1.0`, then `\r\nkey: value` each, then `\r\n\r\n`;
 * nothing at all when there are none). The in-process bus uses the same count, so a message is
 * refused in process exactly when NATS would refuse it.
 */
export function wireBytes(body: string, headers: Headers = {}): number {
  return Buffer.byteLength(body, 'utf8') + headerBytes(headers);
}

export function headerBytes(headers: Headers): number {
  const entries = Object.entries(headers);
  if (entries.length === 0) return 0;
  return entries.reduce((total, [key, value]) => total + Buffer.byteLength(`\r\n${key}: ${value}`, 'utf8'), 'NATS/1.0'.length + 4);
}

/** The same refusal on both transports, before anything is sent. */
export function refuseOversized(subject: string, body: string, headers: Headers | undefined, maxPayload: number): void {
  const bytes = wireBytes(body, headers);
  if (bytes > maxPayload) throw new PayloadTooLargeError(subject, 'request', bytes, maxPayload);
}

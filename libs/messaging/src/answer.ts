import { ReplyEnvelope, toErrorReply } from '@stagecraft/contracts';
import { BusFault, BusListener, BusMessage, BusResponder, Headers } from './bus';
import { PayloadTooLargeError } from './errors';
import { wireBytes } from './wire-size';

export type ReportFault = (fault: BusFault) => void;

/** The bus's side of `onError`: a hook that throws must not become the crash it was told about. */
export function faultReporter(onError: ((fault: BusFault) => void) | undefined): ReportFault {
  return (fault) => {
    try {
      onError?.(fault);
    } catch {
      // Nowhere left to report to.
    }
  };
}

/** The body a failed request gets when its responder could not give one: the envelope `serveRequests` sends. */
export const failureBody = (error: unknown): string =>
  JSON.stringify({ ok: false, error: toErrorReply(error) } satisfies ReplyEnvelope<never>);

/**
 * Runs a responder to a reply this transport can carry. Never rejects: a responder that fails answers
 * `INTERNAL`, a reply over `maxPayload` becomes a small `LIMIT_EXCEEDED` one, and both are reported.
 */
export async function answer(
  responder: BusResponder,
  message: BusMessage,
  maxPayload: number,
  report: ReportFault,
): Promise<{ body: string; headers?: Headers }> {
  try {
    const reply = await responder(message);
    const bytes = wireBytes(reply.body, reply.headers);
    if (bytes <= maxPayload) return reply;
    const error = new PayloadTooLargeError(message.subject, 'reply', bytes, maxPayload);
    report({ during: 'reply', subject: message.subject, error });
    const body = failureBody(error);
    // The correlation header travels with the refusal, unless the headers were what made it too large.
    return wireBytes(body, reply.headers) <= maxPayload ? { body, headers: reply.headers } : { body };
  } catch (error) {
    report({ during: 'reply', subject: message.subject, error });
    return { body: failureBody(error) };
  }
}

/** A listener that throws is reported, and the next message still arrives. */
export const guarded =
  (listener: BusListener, report: ReportFault): BusListener =>
  (message) => {
    try {
      listener(message);
    } catch (error) {
      report({ during: 'deliver', subject: message.subject, error });
    }
  };

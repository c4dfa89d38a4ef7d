import {
  connect,
  headers as natsHeaders,
  Msg,
  MsgHdrs,
  NatsConnection,
  NoRespondersError as NatsNoResponders,
  RequestError,
  TimeoutError,
} from '@nats-io/transport-node';
import { BusMessage, Headers, MessageBus } from './bus';
import { NoRespondersError, RequestTimeoutError } from './errors';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function toNatsHeaders(headers: Headers | undefined): MsgHdrs | undefined {
  if (!headers) return undefined;
  const entries = Object.entries(headers);
  if (entries.length === 0) return undefined;
  const h = natsHeaders();
  for (const [key, value] of entries) h.set(key, value);
  return h;
}

function fromNatsHeaders(h: MsgHdrs | undefined): Headers {
  if (!h) return {};
  const out: Record<string, string> = {};
  for (const key of h.keys()) out[key.toLowerCase()] = h.get(key);
  return out;
}

const toBusMessage = (msg: Msg): BusMessage => ({
  subject: msg.subject,
  body: decoder.decode(msg.data),
  headers: fromNatsHeaders(msg.headers),
});

function mapRequestError(subject: string, timeoutMs: number, error: unknown): unknown {
  const cause = error instanceof RequestError ? error.cause : error;
  if (cause instanceof NatsNoResponders || (error instanceof RequestError && error.isNoResponders())) {
    return new NoRespondersError(subject, { cause: error });
  }
  if (cause instanceof TimeoutError || error instanceof TimeoutError) return new RequestTimeoutError(subject, timeoutMs, { cause: error });
  return error;
}

/** Wraps an open connection; the caller that opened it decides when it closes (see `connectNatsBus`). */
export function createNatsBus(nc: NatsConnection, options: { ownsConnection?: boolean } = {}): MessageBus {
  return {
    kind: 'nats',
    async request(subject, body, { headers, timeoutMs }) {
      try {
        const msg = await nc.request(subject, encoder.encode(body), { timeout: timeoutMs, headers: toNatsHeaders(headers) });
        return toBusMessage(msg);
      } catch (error) {
        throw mapRequestError(subject, timeoutMs, error);
      }
    },
    respond(subject, queue, responder) {
      const sub = nc.subscribe(subject, {
        queue,
        callback: (err, msg) => {
          if (err) return;
          responder(toBusMessage(msg)).then(
            (reply) => msg.respond(encoder.encode(reply.body), { headers: toNatsHeaders(reply.headers) }),
            () => undefined,
          );
        },
      });
      return { unsubscribe: () => sub.unsubscribe() };
    },
    publish(subject, body, headers) {
      nc.publish(subject, encoder.encode(body), { headers: toNatsHeaders(headers) });
    },
    subscribe(subject, listener) {
      const sub = nc.subscribe(subject, { callback: (err, msg) => {
          if (!err) listener(toBusMessage(msg));
        }, });
      return { unsubscribe: () => sub.unsubscribe() };
    },
    flush: () => nc.flush(),
    async close() {
      if (options.ownsConnection !== false) await nc.drain();
    },
  };
}

export async function connectNatsBus(servers: string, name?: string): Promise<MessageBus> {
  // No async traces: the client would build an Error (and its stack) for every request just in case
  // it times out; ours are mapped to RequestTimeoutError / NoRespondersError with the subject anyway.
  const nc = await connect({ servers: servers.split(','), name, maxReconnectAttempts: -1, reconnectTimeWait: 250, noAsyncTraces: true });
  return createNatsBus(nc, { ownsConnection: true });
}

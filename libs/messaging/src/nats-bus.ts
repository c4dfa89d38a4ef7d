import {
  connect,
  headers as natsHeaders,
  Msg,
  MsgHdrs,
  NatsConnection,
  NoRespondersError as NatsNoResponders,
  PermissionViolationError,
  RequestError,
  TimeoutError,
} from '@nats-io/transport-node';
import { StagecraftError } from '@stagecraft/contracts';
import { answer, faultReporter } from './answer';
import { BusMessage, BusOptions, ConnectionEvent, DEFAULT_MAX_PAYLOAD, Headers, MessageBus } from './bus';
import { NoRespondersError, NotPermittedError, PayloadTooLargeError, RequestTimeoutError } from './errors';
import { NatsTarget, natsConnectOptions, natsTargetFromEnv } from './nats-connect-options';
import { ConnectGaveUp, ConnectRetry, connectRetrying } from './nats-connect-retry';
import { rememberConnection } from './nats-connection';
import { refuseOversized, wireBytes } from './wire-size';

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

/** Reads the client's status feed until the connection closes; only what an operator needs to see. */
async function followStatus(nc: NatsConnection, listener: (event: ConnectionEvent) => void): Promise<void> {
  for await (const status of nc.status()) {
    try {
      if (status.type === 'disconnect' || status.type === 'reconnect') listener({ type: status.type, server: status.server });
      else if (status.type === 'error') listener({ type: 'error', detail: status.error.message });
    } catch {
      // A listener that throws must not end the feed.
    }
  }
}

function mapRequestError(subject: string, timeoutMs: number, error: unknown): unknown {
  const cause = error instanceof RequestError ? error.cause : error;
  if (cause instanceof NatsNoResponders || (error instanceof RequestError && error.isNoResponders())) {
    return new NoRespondersError(subject, { cause: error });
  }
  if (cause instanceof PermissionViolationError || error instanceof PermissionViolationError)
    return new NotPermittedError(subject, { cause: error });
  if (cause instanceof TimeoutError || error instanceof TimeoutError) return new RequestTimeoutError(subject, timeoutMs, { cause: error });
  return error;
}

/**
 * Wraps an open connection; the caller that opened it decides when it closes (see `connectNatsBus`).
 * Every callback the client runs for us catches its own errors: the client calls them from its socket
 * reader, where a throw (such as `msg.respond` refusing a reply over `max_payload`) ends the process.
 */
export function createNatsBus(
  nc: NatsConnection,
  options: Omit<BusOptions, 'maxPayload'> & { ownsConnection?: boolean; drainTimeoutMs?: number } = {},
): MessageBus {
  const report = faultReporter(options.onError);
  // The server says what it accepts, and may say something else after a reconnect.
  const maxPayload = () => nc.info?.max_payload ?? DEFAULT_MAX_PAYLOAD;

  const bus: MessageBus = {
    kind: 'nats',
    get maxPayload() {
      return maxPayload();
    },
    reportFault: report,
    async request(subject, body, { headers, timeoutMs }) {
      refuseOversized(subject, body, headers, maxPayload());
      try {
        const msg = await nc.request(subject, encoder.encode(body), { timeout: timeoutMs, headers: toNatsHeaders(headers) });
        return toBusMessage(msg);
      } catch (error) {
        throw mapRequestError(subject, timeoutMs, error);
      }
    },
    respond(subject, queue, responder) {
      const serve = async (msg: Msg) => {
        try {
          const reply = await answer(responder, toBusMessage(msg), maxPayload(), report);
          msg.respond(encoder.encode(reply.body), { headers: toNatsHeaders(reply.headers) });
        } catch (error) {
          report({ during: 'reply', subject, error });
        }
      };
      const sub = nc.subscribe(subject, {
        queue,
        callback: (err, msg) => (err ? report({ during: 'deliver', subject, error: err }) : void serve(msg)),
      });
      return { unsubscribe: () => sub.unsubscribe() };
    },
    publish(subject, body, headers) {
      try {
        const bytes = wireBytes(body, headers);
        if (bytes > maxPayload()) throw new PayloadTooLargeError(subject, 'message', bytes, maxPayload());
        nc.publish(subject, encoder.encode(body), { headers: toNatsHeaders(headers) });
      } catch (error) {
        report({ during: 'publish', subject, error });
      }
    },
    subscribe(subject, listener) {
      const deliver = (msg: Msg) => {
        try {
          listener(toBusMessage(msg));
        } catch (error) {
          report({ during: 'deliver', subject: msg.subject, error });
        }
      };
      const sub = nc.subscribe(subject, {
        callback: (err, msg) => (err ? report({ during: 'deliver', subject, error: err }) : deliver(msg)),
      });
      return { unsubscribe: () => sub.unsubscribe() };
    },
    flush: () => nc.flush(),
    watchConnection(listener) {
      void followStatus(nc, listener).catch(() => undefined);
    },
    async close() {
      if (options.ownsConnection !== false) await closeConnection(nc, options.drainTimeoutMs ?? DRAIN_TIMEOUT_MS);
    },
  };
  rememberConnection(bus, nc);
  return bus;
}

/** How long `close` waits for a drain (subscriptions answered, published messages flushed) before it just closes. */
export const DRAIN_TIMEOUT_MS = 2_000;

/**
 * Drains when the server is there to drain to; otherwise (a dead connection, a drain that hangs or
 * fails) closes. Never rejects: a process stopping has nothing better to do with the error, and an
 * unhandled one would turn a clean stop into exit 1.
 */
async function closeConnection(nc: NatsConnection, drainTimeoutMs: number): Promise<void> {
  if (nc.isClosed()) return;
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, drainTimeoutMs)));
  // A drain with the server gone rejects (the client gives up its flush at the next reconnect attempt).
  const drained = (nc.isDraining() ? nc.closed() : nc.drain()).catch(() => undefined);
  await Promise.race([drained, gaveUp]);
  clearTimeout(timer);
  if (!nc.isClosed()) await nc.close().catch(() => undefined);
}

export interface ConnectNatsOptions extends Omit<BusOptions, 'maxPayload'> {
  /** Keep trying while the server is not there yet (see `ConnectRetry`); absent: one attempt. */
  retry?: ConnectRetry;
  drainTimeoutMs?: number;
}

/**
 * Connects to `target`: addresses and the identity to use there, or a URL (whose credentials, if any,
 * are used, since the client itself ignores them). Errors name the address without credentials; once
 * connected, the client reconnects for as long as the process lives.
 */
export async function connectNatsBus(target: string | NatsTarget, name?: string, options: ConnectNatsOptions = {}): Promise<MessageBus> {
  const resolved = typeof target === 'string' ? natsTargetFromEnv(target, {}) : target;
  const { retry, ...busOptions } = options;
  // No async traces: the client would build an Error (and its stack) for every request just in case
  // it times out; ours are mapped to RequestTimeoutError / NoRespondersError with the subject anyway.
  const connectOnce = (timeout: number | undefined) =>
    connect({
      ...natsConnectOptions(resolved),
      name,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      noAsyncTraces: true,
      ...(timeout !== undefined ? { timeout } : {}),
    });
  let nc: NatsConnection;
  try {
    nc = await connectRetrying(resolved.servers, connectOnce, retry ?? { budgetMs: 0 });
  } catch (error) {
    if (!(error instanceof ConnectGaveUp)) throw error;
    // The client says only "connection refused": name the address it was refused at, and how long it tried.
    const tried = error.attempts > 1 ? ` (${error.attempts} attempts in ${(error.elapsedMs / 1000).toFixed(1)} s)` : '';
    throw new StagecraftError('UNAVAILABLE', `NATS at ${resolved.servers}: ${error.message}${tried}`, [], { cause: error.last });
  }
  return createNatsBus(nc, { ...busOptions, ownsConnection: true });
}

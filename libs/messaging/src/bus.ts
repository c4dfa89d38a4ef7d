/**
 * The transport port: subjects in, JSON text out. Both adapters (in-process and NATS) carry
 * exactly the same subjects, headers and bytes, so a handler cannot tell which one it is on.
 */
export type Headers = Readonly<Record<string, string>>;

export interface BusMessage {
  subject: string;
  body: string;
  headers: Headers;
}

export type BusResponder = (message: BusMessage) => Promise<{ body: string; headers?: Headers }>;
export type BusListener = (message: BusMessage) => void;

export interface BusSubscription {
  unsubscribe(): void;
}

/** A request handled in the caller's own process: the value itself, no text in between. */
export type LocalResponder = (value: unknown, headers: Headers) => Promise<unknown>;

/**
 * Only an in-process bus has one: requests between services in one process skip JSON both ways.
 * The handler side still validates the request and the reply, and zod's parse builds new objects and
 * arrays, so caller and handler share no container (values typed `unknown` in a contract aside).
 */
export interface LocalDispatch {
  respond(subject: string, responder: LocalResponder): BusSubscription;
  /** The next responder for `subject` (round robin, like a queue group), if any serves it here. */
  find(subject: string): LocalResponder | undefined;
}

/** NATS's default `max_payload`; the in-process bus uses it unless told otherwise. */
export const DEFAULT_MAX_PAYLOAD = 1024 * 1024;

/** Something the bus could not deliver or answer; it kept serving. */
export interface BusFault {
  during: 'request' | 'reply' | 'publish' | 'deliver';
  subject: string;
  error: unknown;
}

export interface BusOptions {
  /** In-process only: the largest message, in bytes (body plus encoded headers, as NATS counts). NATS uses the server's. */
  maxPayload?: number;
  /** Told about every fault the bus absorbed, so the shell can log it; a throwing hook is ignored. */
  onError?: (fault: BusFault) => void;
}

/** The connection's own news: lost, got back, or an error the server sent. NATS only. */
export interface ConnectionEvent {
  type: 'disconnect' | 'reconnect' | 'error';
  /** The server address the event concerns, when the client names one. */
  server?: string;
  detail?: string;
}

/**
 * Nothing a message does reaches the process: a responder that rejects, a reply too large to send,
 * a listener that throws, a publish that fails all end here, as a fault reported to `onError`.
 * A request gets a structured error reply instead of silence wherever one can still be sent.
 */
export interface MessageBus {
  readonly kind: 'inproc' | 'nats';
  /** The largest message this transport carries, in bytes (body plus encoded headers). */
  readonly maxPayload: number;
  readonly local?: LocalDispatch;
  /** Hands a fault met outside the bus (e.g. while preparing a publish) to the same `onError` hook. */
  reportFault(fault: BusFault): void;
  /** Rejects with `LIMIT_EXCEEDED` (nothing sent) when the body is over `maxPayload`. */
  request(subject: string, body: string, options: { headers?: Headers; timeoutMs: number }): Promise<BusMessage>;
  /**
   * Serves requests; several responders with the same queue share the load, one answers each request.
   * A responder that rejects, or whose reply is over `maxPayload`, answers with a failure envelope
   * (`INTERNAL` or `LIMIT_EXCEEDED`) instead.
   */
  respond(subject: string, queue: string, responder: BusResponder): BusSubscription;
  /** Never throws: a message over `maxPayload`, or one the connection refuses, is a fault and is dropped. */
  publish(subject: string, body: string, headers?: Headers): void;
  subscribe(subject: string, listener: BusListener): BusSubscription;
  /** Resolves once everything published so far has reached the server (no-op in process). */
  flush(): Promise<void>;
  close(): Promise<void>;
  /** Tells `listener` when the connection drops or comes back (a transport that has no connection has no method). */
  watchConnection?(listener: (event: ConnectionEvent) => void): void;
}

export const HEADER = {
  correlationId: 'stagecraft-correlation-id',
  causationId: 'stagecraft-causation-id',
} as const;

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

export interface MessageBus {
  readonly kind: 'inproc' | 'nats';
  readonly local?: LocalDispatch;
  request(subject: string, body: string, options: { headers?: Headers; timeoutMs: number }): Promise<BusMessage>;
  /** Serves requests; several responders with the same queue share the load, one answers each request. */
  respond(subject: string, queue: string, responder: BusResponder): BusSubscription;
  publish(subject: string, body: string, headers?: Headers): void;
  subscribe(subject: string, listener: BusListener): BusSubscription;
  /** Resolves once everything published so far has reached the server (no-op in process). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export const HEADER = {
  correlationId: 'stagecraft-correlation-id',
  causationId: 'stagecraft-causation-id',
} as const;

import {
  ErrorReply,
  ParsedRequestOf,
  ReplyEnvelope,
  ReplyOf,
  RequestOf,
  RequestSubject,
  StagecraftError,
  issuesFromZod,
  requestContracts,
  toErrorReply,
  withPrefix,
} from '@stagecraft/contracts';
import { BusSubscription, HEADER, MessageBus } from './bus';

export interface RequestContext {
  subject: RequestSubject;
  correlationId: string;
  causationId?: string;
}

export type RequestHandler<S extends RequestSubject> = (
  request: ParsedRequestOf<S>,
  context: RequestContext,
) => Promise<ReplyOf<S>> | ReplyOf<S>;

export type RequestHandlers = { [S in RequestSubject]?: RequestHandler<S> };

export interface ServeOptions {
  prefix: string;
  newId: () => string;
  /** Defaults to the subject's owner, so every replica of a service shares one queue group. */
  queue?: string;
}

/** A failed request, as the caller sees it: the remote code, message and issues, unchanged. */
export class RemoteError extends StagecraftError {
  constructor(readonly subject: string, reply: ErrorReply) {
    super(reply.code, reply.message, reply.issues);
    this.name = 'RemoteError';
  }
}

const fail = (error: unknown): ReplyEnvelope<never> => ({ ok: false, error: toErrorReply(error) });

function parseBody(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch (error) {
    throw new StagecraftError('VALIDATION', 'request body is not JSON', [{ path: [], message: String((error as Error).message) }]);
  }
}

/**
 * The validation edge: a request reaches its handler only after its schema accepted it, and a
 * reply leaves only after its own schema did. Anything else becomes `{ code, message, issues }`.
 */
export async function handleRequest<S extends RequestSubject>(
  subject: S,
  handler: RequestHandler<S>,
  body: string,
  context: RequestContext,
): Promise<ReplyEnvelope<ReplyOf<S>>> {
  const contract = requestContracts[subject];
  try {
    const parsed = contract.request.safeParse(parseBody(body));
    if (!parsed.success) throw new StagecraftError('VALIDATION', `invalid ${subject} request`, issuesFromZod(parsed.error));
    const reply = await handler(parsed.data as ParsedRequestOf<S>, context);
    const checked = contract.reply.safeParse(reply);
    if (!checked.success) throw new StagecraftError('INTERNAL', `${subject} produced a reply outside its contract`, issuesFromZod(checked.error));
    return { ok: true, data: checked.data as ReplyOf<S> };
  } catch (error) {
    return fail(error);
  }
}

export function serveRequests(bus: MessageBus, handlers: RequestHandlers, options: ServeOptions): BusSubscription {
  const subscriptions = (Object.keys(handlers) as RequestSubject[]).map((subject) => {
    const handler = handlers[subject] as RequestHandler<typeof subject>;
    return bus.respond(withPrefix(options.prefix, subject), options.queue ?? requestContracts[subject].owner, async (message) => {
      const correlationId = message.headers[HEADER.correlationId] || options.newId();
      const causationId = message.headers[HEADER.causationId];
      const envelope = await handleRequest(subject, handler, message.body, { subject, correlationId, causationId });
      return { body: JSON.stringify(envelope), headers: { [HEADER.correlationId]: correlationId } };
    });
  });
  return { unsubscribe: () => subscriptions.forEach((s) => s.unsubscribe()) };
}

export interface RequestOptions {
  correlationId?: string;
  causationId?: string;
  timeoutMs?: number;
}

export interface Requester {
  request<S extends RequestSubject>(subject: S, data: RequestOf<S>, options?: RequestOptions): Promise<ReplyOf<S>>;
}

export function createRequester(bus: MessageBus, options: { prefix: string; newId: () => string; timeoutMs?: number }): Requester {
  return {
    async request(subject, data, { correlationId, causationId, timeoutMs } = {}) {
      const headers: Record<string, string> = { [HEADER.correlationId]: correlationId ?? options.newId() };
      if (causationId) headers[HEADER.causationId] = causationId;
      const reply = await bus.request(withPrefix(options.prefix, subject), JSON.stringify(data), {
        headers,
        timeoutMs: timeoutMs ?? options.timeoutMs ?? 10_000,
      });
      const envelope = JSON.parse(reply.body) as ReplyEnvelope<ReplyOf<typeof subject>>;
      if (!envelope.ok) throw new RemoteError(subject, envelope.error);
      return envelope.data;
    },
  };
}

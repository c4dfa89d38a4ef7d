import { z } from 'zod';
import {
  ERROR_REPLY_LIMITS,
  ErrorReply,
  StructureLimits,
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
import {
  SpanKind,
  recordFailure,
  recordRequest,
  secondsSince,
  traceContextOf,
  withRunContext,
  withSpan,
  withTraceHeaders,
} from '@stagecraft/telemetry';
import { DEFAULT_STRUCTURE_LIMITS, checkJsonText, checkValue } from './bounds';
import { BusSubscription, HEADER, Headers, MessageBus } from './bus';
import { PayloadTooLargeError } from './errors';
import { jsonSizeIfOver } from './json-size';
import { withinTimeout } from './timeout';
import { headerBytes } from './wire-size';

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
  /** How much structure a request may have before it is parsed and validated; `DEFAULT_STRUCTURE_LIMITS` unless told. */
  limits?: StructureLimits;
}

/** A failed request, as the caller sees it: the remote code, message and issues, unchanged. */
export class RemoteError extends StagecraftError {
  constructor(
    readonly subject: string,
    reply: ErrorReply,
  ) {
    super(reply.code, reply.message, reply.issues, { omittedIssues: reply.omittedIssues });
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

/** Zod gives one issue per bad element; a reply shows 20 (`ERROR_REPLY_LIMITS`), so only those are copied. */
function validationFailure(subject: string, error: z.ZodError): StagecraftError {
  const shown = issuesFromZod(new z.ZodError(error.issues.slice(0, ERROR_REPLY_LIMITS.issues)));
  const omittedIssues = error.issues.length - shown.length;
  return new StagecraftError('VALIDATION', `invalid ${subject} request`, shown, { omittedIssues });
}

/**
 * The validation edge: a request reaches its handler only after its structure passed `limits`
 * (before `JSON.parse`, so a refusal builds nothing) and its schema accepted it, and a reply leaves only
 * after its own schema did. Anything else becomes `{ code, message, issues }`.
 */
export async function handleRequest<S extends RequestSubject>(
  subject: S,
  handler: RequestHandler<S>,
  body: string,
  context: RequestContext,
  limits: StructureLimits = DEFAULT_STRUCTURE_LIMITS,
): Promise<ReplyEnvelope<ReplyOf<S>>> {
  let value: unknown;
  try {
    checkJsonText(body, limits, `${subject} request`);
    value = parseBody(body);
  } catch (error) {
    return fail(error);
  }
  return validated(subject, handler, value, context);
}

/** The same edge for a request that arrives as a value (in-process): the same limits, walked; the schema's parse is the copy. */
export async function handleValue<S extends RequestSubject>(
  subject: S,
  handler: RequestHandler<S>,
  value: unknown,
  context: RequestContext,
  limits: StructureLimits = DEFAULT_STRUCTURE_LIMITS,
): Promise<ReplyEnvelope<ReplyOf<S>>> {
  try {
    checkValue(value, limits, `${subject} request`);
  } catch (error) {
    return fail(error);
  }
  return validated(subject, handler, value, context);
}

async function validated<S extends RequestSubject>(
  subject: S,
  handler: RequestHandler<S>,
  value: unknown,
  context: RequestContext,
): Promise<ReplyEnvelope<ReplyOf<S>>> {
  const contract = requestContracts[subject];
  try {
    const parsed = contract.request.safeParse(value);
    if (!parsed.success) throw validationFailure(subject, parsed.error);
    const request = parsed.data as ParsedRequestOf<S>;
    const runId = (request as { runId?: unknown }).runId;
    // Log lines written while a request about a run is handled name that run.
    const reply = await (typeof runId === 'string' ? withRunContext(runId, () => handler(request, context)) : handler(request, context));
    const checked = contract.reply.safeParse(reply);
    if (!checked.success)
      throw new StagecraftError('INTERNAL', `${subject} produced a reply outside its contract`, issuesFromZod(checked.error));
    return { ok: true, data: checked.data as ReplyOf<S> };
  } catch (error) {
    return fail(error);
  }
}

function contextOf(subject: RequestSubject, headers: Headers, newId: () => string): RequestContext {
  return { subject, correlationId: headers[HEADER.correlationId] || newId(), causationId: headers[HEADER.causationId] };
}

const replyHeaders = (context: RequestContext): Headers => ({ [HEADER.correlationId]: context.correlationId });

/**
 * The local lane carries values, yet refuses what the text lane would: a value whose JSON (with the
 * headers the text lane would send) is over the bus's `maxPayload` (docs/decisions/0012-transport-limits.md).
 */
function oversizedValue(
  bus: MessageBus,
  subject: string,
  what: 'request' | 'reply',
  value: unknown,
  headers: Headers,
): PayloadTooLargeError | null {
  const extra = headerBytes(headers);
  const bytes = jsonSizeIfOver(value, bus.maxPayload - extra);
  return bytes === null ? null : new PayloadTooLargeError(subject, what, bytes + extra, bus.maxPayload);
}

/** What the text lane's bus would have answered: the reply, or `LIMIT_EXCEEDED` / `INTERNAL` when it could not carry it. */
function carriedReply<T>(bus: MessageBus, subject: string, envelope: ReplyEnvelope<T>, headers: Headers): ReplyEnvelope<T> {
  let problem: unknown;
  try {
    problem = oversizedValue(bus, subject, 'reply', envelope, headers);
  } catch (error) {
    // A reply that has no JSON at all (a BigInt, a cycle) fails the text lane's JSON.stringify the same way.
    problem = error;
  }
  if (!problem) return envelope;
  bus.reportFault({ during: 'reply', subject, error: problem });
  return fail(problem);
}

/** A request its handler answered with an error, as the serving side logs it. */
export interface FailedRequest {
  subject: string;
  code: string;
  message: string;
  durationMs: number;
  correlationId: string;
}

const failureWatchers = new WeakMap<MessageBus, (failure: FailedRequest) => void>();

/** Tells `watcher` about every request served on `bus` whose reply is an error (the shell logs them). */
export function watchFailedRequests(bus: MessageBus, watcher: (failure: FailedRequest) => void): void {
  failureWatchers.set(bus, watcher);
}

/**
 * One request as its responder serves it: a server span that continues the requester's trace (from the
 * message headers, on either lane), the latency by subject and outcome, and a failure reported once.
 */
async function served<T>(
  bus: MessageBus,
  subject: RequestSubject,
  context: RequestContext,
  headers: Headers,
  handle: () => Promise<ReplyEnvelope<T>>,
): Promise<ReplyEnvelope<T>> {
  const started = performance.now();
  const envelope = await withSpan(
    `serve ${subject}`,
    { 'stagecraft.subject': subject, 'messaging.system': bus.kind },
    async (span) => {
      const result = await handle();
      if (!result.ok) recordFailure(span, result.error);
      return result;
    },
    { kind: SpanKind.SERVER, parent: traceContextOf(headers) },
  );
  const seconds = secondsSince(started);
  recordRequest('server', subject, envelope.ok ? 'ok' : envelope.error.code, seconds);
  if (!envelope.ok) {
    const { code, message } = envelope.error;
    failureWatchers.get(bus)?.({ subject, code, message, durationMs: Math.round(seconds * 1000), correlationId: context.correlationId });
  }
  return envelope;
}

export function serveRequests(bus: MessageBus, handlers: RequestHandlers, options: ServeOptions): BusSubscription {
  const subscriptions = (Object.keys(handlers) as RequestSubject[]).flatMap((subject) => {
    const handler = handlers[subject] as RequestHandler<typeof subject>;
    const subjectName = withPrefix(options.prefix, subject);
    const remote = bus.respond(subjectName, options.queue ?? requestContracts[subject].owner, async (message) => {
      const context = contextOf(subject, message.headers, options.newId);
      const envelope = await served(bus, subject, context, message.headers, () =>
        handleRequest(subject, handler, message.body, context, options.limits),
      );
      return { body: JSON.stringify(envelope), headers: replyHeaders(context) };
    });
    const local = bus.local?.respond(subjectName, async (value, headers) => {
      const context = contextOf(subject, headers, options.newId);
      const envelope = await served(bus, subject, context, headers, () => handleValue(subject, handler, value, context, options.limits));
      return carriedReply(bus, subjectName, envelope, replyHeaders(context));
    });
    return local ? [remote, local] : [remote];
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
      const started = performance.now();
      let outcome = 'ok';
      try {
        return await withSpan(
          `request ${subject}`,
          { 'stagecraft.subject': subject, 'messaging.system': bus.kind },
          async () => {
            const headers: Record<string, string> = { [HEADER.correlationId]: correlationId ?? options.newId() };
            if (causationId) headers[HEADER.causationId] = causationId;
            return send(subject, data, withTraceHeaders(headers), timeoutMs ?? options.timeoutMs ?? 10_000);
          },
          { kind: SpanKind.CLIENT },
        );
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        outcome = typeof code === 'string' ? code : 'INTERNAL';
        throw error;
      } finally {
        recordRequest('client', subject, outcome, secondsSince(started));
      }
    },
  };

  async function send<S extends RequestSubject>(subject: S, data: RequestOf<S>, headers: Headers, limit: number): Promise<ReplyOf<S>> {
    const name = withPrefix(options.prefix, subject);
    const local = bus.local?.find(name);
    const tooLarge = local && oversizedValue(bus, name, 'request', data, headers);
    if (tooLarge) throw tooLarge;
    const envelope = (
      local
        ? await withinTimeout(name, limit, local(data, headers))
        : JSON.parse((await bus.request(name, JSON.stringify(data), { headers, timeoutMs: limit })).body)
    ) as ReplyEnvelope<ReplyOf<S>>;
    if (!envelope.ok) throw new RemoteError(subject, envelope.error);
    return envelope.data;
  }
}

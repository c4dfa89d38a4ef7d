import { IncomingMessage, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { completionChunks } from './chat-chunks';
import { completionJson, resolveCompletion } from './chat-completion';
import { embeddingsJson } from './embeddings';
import { isRetryable, openAiErrorBody } from './openai-error';
import { RecordedRequest, Script, ScriptedModelServer, ScriptedReply } from './script';
import { scriptCursor } from './script-cursor';

/** An OpenAI-compatible endpoint on loopback that answers from a script and records what it was sent. */
export async function startScriptedModelServer(
  options: {
    script?: Script;
    port?: number;
    /** The models this endpoint knows: a chat request for another is answered 404, as OpenAI does. Unset: any. */
    models?: readonly string[];
    /**
     * What the endpoint does with a request's `response_format`. Unset: ignores it (answers from the
     * script as is). `honour`: answers a reply's `json` as the content. `refuse`: a 400 naming it, as an
     * endpoint without structured output does, and the script's reply is kept for the next request.
     */
    structuredOutput?: 'honour' | 'refuse';
  } = {},
): Promise<ScriptedModelServer> {
  const requests: RecordedRequest[] = [];
  let nextReply = scriptCursor(options.script ?? []);
  let structuredOutput = options.structuredOutput;
  const closing = new AbortController();

  const server = createServer((req, res) => {
    readBody(req)
      .then(async (raw) => {
        const request = record(requests, req, raw);
        if (request.body === INVALID_JSON) return sendError(res, 400, 'request body is not valid JSON', false);
        await route(request, res, () => nextReply(request), closing.signal, { models: options.models, structuredOutput });
      })
      .catch((error: unknown) => sendError(res, 500, error instanceof Error ? error.message : String(error), false));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    setScript(script) {
      nextReply = scriptCursor(script);
    },
    setStructuredOutput(behaviour) {
      structuredOutput = behaviour;
    },
    close() {
      closing.abort();
      server.closeAllConnections();
      return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

const INVALID_JSON = Symbol('invalid JSON');

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function record(requests: RecordedRequest[], req: IncomingMessage, raw: string): RecordedRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  const path = new URL(req.url ?? '/', 'http://scripted').pathname.replace(/^\/v1(?=\/)/, '');
  const request: RecordedRequest = { index: requests.length, method: req.method ?? 'GET', path, headers, body: parseJson(raw) };
  if (headers['x-stagecraft-stage'] !== undefined) request.stage = headers['x-stagecraft-stage'];
  requests.push(request);
  return request;
}

function parseJson(raw: string): unknown {
  if (raw.trim() === '') return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return INVALID_JSON;
  }
}

async function route(
  request: RecordedRequest,
  res: ServerResponse,
  reply: () => Promise<ScriptedReply>,
  signal: AbortSignal,
  { models, structuredOutput }: { models?: readonly string[]; structuredOutput?: 'honour' | 'refuse' },
): Promise<void> {
  const where = `${request.method} ${request.path}`;
  if (where === 'POST /chat/completions') {
    const asked: unknown = request.body?.model;
    if (models && !models.includes(String(asked)))
      return sendError(res, 404, `The model \`${String(asked)}\` does not exist or you do not have access to it.`, false);
    const format: unknown = request.body?.response_format;
    if (format !== undefined && structuredOutput === 'refuse') {
      const type = (format as { type?: unknown }).type;
      return sendError(res, 400, `Invalid parameter: 'response_format' of type '${String(type)}' is not supported with this model.`, false);
    }
    return answerChat(request, res, await reply(), signal, format !== undefined && structuredOutput === 'honour');
  }
  if (where === 'POST /embeddings') return sendJson(res, 200, embeddingsJson(request.body ?? {}));
  if (where === 'GET /models') return sendJson(res, 200, modelList(models ?? ['scripted-model']));
  return sendError(res, 404, `scripted model: no route for ${where}`, false);
}

const modelList = (ids: readonly string[]) => ({
  object: 'list',
  data: ids.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'stagecraft' })),
});

async function answerChat(
  request: RecordedRequest,
  res: ServerResponse,
  scripted: ScriptedReply,
  signal: AbortSignal,
  structured: boolean,
): Promise<void> {
  const reply = structured && scripted.json !== undefined ? { ...scripted, content: JSON.stringify(scripted.json) } : scripted;
  if (reply.delayMs !== undefined && reply.delayMs > 0) {
    const slept = await sleep(reply.delayMs, true, { signal }).catch(() => false);
    if (!slept || res.destroyed) return;
  }
  if (reply.status !== undefined && reply.status >= 400) {
    return sendError(
      res,
      reply.status,
      reply.content ?? `scripted ${reply.status} for request ${request.index}`,
      isRetryable(reply.status),
    );
  }
  const completion = resolveCompletion(request, reply);
  if (request.body?.stream !== true) return sendJson(res, 200, completionJson(completion));
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
  for (const chunk of completionChunks(completion, request.body?.stream_options?.include_usage === true))
    res.write(`data: ${JSON.stringify(chunk)}\n\n`);
  res.end('data: [DONE]\n\n');
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** Retryable errors ask for a 1 ms wait; the others tell the client plainly not to retry. */
function sendError(res: ServerResponse, status: number, message: string, retryable: boolean): void {
  const headers: Record<string, string> = retryable ? { 'retry-after-ms': '1' } : { 'x-should-retry': 'false' };
  sendJson(res, status, openAiErrorBody(status, message), headers);
}

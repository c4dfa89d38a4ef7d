import { performance } from 'node:perf_hooks';
import { DependencyCheck, ServiceName } from '@stagecraft/contracts';
import type { EventStore } from '@stagecraft/event-store';
import type { MessageBus } from '@stagecraft/messaging';

/** Each check gives up after this long: a probe, or a health reply, must answer even when a dependency hangs. */
export const CHECK_TIMEOUT_MS = 1_000;
/** A model endpoint is asked at most this often per process: probes come every few seconds, and cost nothing to cache. */
export const MODEL_CHECK_TTL_MS = 5_000;
/** OpenAI's own endpoint, the model gateway's default when `OPENAI_BASE_URL` is unset. */
const DEFAULT_MODEL_BASE_URL = 'https://api.openai.com/v1';

/** The services that call a model: only their processes check the model endpoint. */
export const MODEL_CALLERS: readonly ServiceName[] = ['conversation', 'qa'];

export interface ModelEndpoint {
  baseURL: string;
  apiKey: string | null;
}

/** What one process depends on; an absent entry is not checked (an in-process bus, no store, no model caller). */
export interface DependencyTargets {
  store?: { store: EventStore; address: string };
  nats?: { bus: MessageBus; address: string };
  model?: ModelEndpoint;
}

/** The dependencies of a process hosting `services`, as its composition root knows them. */
export function dependencyTargets(options: {
  services: readonly { name: ServiceName; usesStore: boolean }[];
  store: EventStore | null;
  storeAddress: string;
  bus: MessageBus;
  natsAddress: string | undefined;
  env: Readonly<Record<string, string | undefined>>;
}): DependencyTargets {
  const { services, store, bus, env } = options;
  const targets: DependencyTargets = {};
  if (store && services.some((s) => s.usesStore)) targets.store = { store, address: redactAddress(options.storeAddress) };
  if (bus.kind === 'nats') targets.nats = { bus, address: redactAddress(options.natsAddress ?? 'nats') };
  if (services.some((s) => MODEL_CALLERS.includes(s.name))) targets.model = modelEndpointFromEnv(env);
  return targets;
}

/** Every check of `targets`, run at once, in the order store, nats, model. */
export async function checkDependencies(targets: DependencyTargets, timeoutMs = CHECK_TIMEOUT_MS): Promise<DependencyCheck[]> {
  const checks: Promise<DependencyCheck>[] = [];
  if (targets.store) checks.push(checkStore(targets.store.store, targets.store.address, timeoutMs));
  if (targets.nats) checks.push(checkNats(targets.nats.bus, targets.nats.address, timeoutMs));
  if (targets.model) checks.push(checkModelEndpoint(targets.model, timeoutMs));
  return Promise.all(checks);
}

/** A real read: a stream that does not exist costs the engine a lookup and proves it answers. */
export function checkStore(store: EventStore, address: string, timeoutMs = CHECK_TIMEOUT_MS): Promise<DependencyCheck> {
  return timed('store', true, address, timeoutMs, async () => {
    await store.readStream('$readiness', { maxCount: 1 });
    return `${store.kind} answered a read`;
  });
}

/** A round trip to the server: a flush resolves only once the server has seen everything sent so far. */
export function checkNats(bus: MessageBus, address: string, timeoutMs = CHECK_TIMEOUT_MS): Promise<DependencyCheck> {
  return timed('nats', true, address, timeoutMs, async () => {
    await bus.flush();
    return 'round trip';
  });
}

const modelChecks = new Map<string, { at: number; check: Promise<DependencyCheck> }>();

/**
 * `GET <base>/models`, only a warning when it fails (a run would fail at its model call, but the
 * service itself works), cached for `MODEL_CHECK_TTL_MS` per endpoint.
 */
export function checkModelEndpoint(endpoint: ModelEndpoint, timeoutMs = CHECK_TIMEOUT_MS): Promise<DependencyCheck> {
  const key = `${endpoint.baseURL}\n${endpoint.apiKey ?? ''}`;
  const cached = modelChecks.get(key);
  const now = performance.now();
  if (cached && now - cached.at < MODEL_CHECK_TTL_MS) return cached.check;
  const check = timed('model', false, redactAddress(endpoint.baseURL), timeoutMs, async (signal) => {
    if (endpoint.apiKey === null && endpoint.baseURL === DEFAULT_MODEL_BASE_URL) throw new Error('no OPENAI_API_KEY is set');
    const headers: Record<string, string> = endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {};
    const response = await fetch(`${endpoint.baseURL.replace(/\/+$/, '')}/models`, { headers, signal });
    await response.body?.cancel();
    if (!response.ok)
      throw new Error(`GET /models answered HTTP ${response.status}${response.status === 401 ? ' (check OPENAI_API_KEY)' : ''}`);
    return `GET /models answered HTTP ${response.status}`;
  });
  modelChecks.set(key, { at: now, check });
  return check;
}

/** The model gateway's endpoint settings, read the way the gateway reads them (blank means unset). */
export function modelEndpointFromEnv(env: Readonly<Record<string, string | undefined>>): ModelEndpoint {
  const baseURL = env['OPENAI_BASE_URL']?.trim() || DEFAULT_MODEL_BASE_URL;
  const apiKey = env['OPENAI_API_KEY']?.trim() || null;
  return { baseURL, apiKey };
}

/** An address as checks report it: user names and passwords in a URL are left out. */
export function redactAddress(address: string): string {
  return address
    .split(',')
    .map((one) => one.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/]*@/i, '$1'))
    .join(',');
}

async function timed(
  name: DependencyCheck['name'],
  required: boolean,
  address: string,
  timeoutMs: number,
  probe: (signal: AbortSignal) => Promise<string>,
): Promise<DependencyCheck> {
  const started = performance.now();
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abort.abort();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    const detail = await Promise.race([probe(abort.signal), deadline]);
    return { name, ok: true, required, address, detail, latencyMs: performance.now() - started };
  } catch (error) {
    const detail = causeChain(error);
    return { name, ok: false, required, address, detail, latencyMs: performance.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

/** `fetch failed` alone says nothing: the cause (ECONNREFUSED, a DNS failure) is what a person needs. */
function causeChain(error: unknown): string {
  const parts: string[] = [];
  // Not `instanceof Error`: fetch's errors may come from another realm.
  for (let at: unknown = error; parts.length < 3 && typeof at === 'object' && at !== null && 'message' in at;) {
    const { message, code, cause } = at as { message: unknown; code?: unknown; cause?: unknown };
    const text =
      typeof code === 'string' && !String(message).toLowerCase().includes(code.toLowerCase())
        ? `${String(message)} (${code})`
        : String(message);
    if (!parts.some((part) => part.includes(text))) parts.push(text);
    at = cause;
  }
  return parts.length > 0 ? parts.join(': ') : String(error);
}

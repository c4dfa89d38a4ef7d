/** A refused API call, with the structured error `{ code, message, issues }` the API answers. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface Api {
  get<T>(path: string): Promise<T>;
  post<T>(path: string, body: unknown): Promise<T>;
  readonly token: string;
}

export function api(token: string): Api {
  const call = async <T>(path: string, init: RequestInit): Promise<T> => {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${token}`);
    headers.set('accept', 'application/json');
    const reply = await fetch(`/api/v1${path}`, { ...init, headers, cache: 'no-store' });
    const text = await reply.text();
    let body: unknown = undefined;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    if (!reply.ok) {
      const error = (body ?? {}) as { code?: unknown; message?: unknown };
      throw new ApiError(
        reply.status,
        typeof error.code === 'string' ? error.code : `HTTP_${reply.status}`,
        typeof error.message === 'string' ? error.message : reply.statusText,
      );
    }
    return body as T;
  };
  return {
    token,
    get: (path) => call(path, { method: 'GET' }),
    post: (path, body) => call(path, { method: 'POST', body: JSON.stringify(body ?? {}), headers: { 'content-type': 'application/json' } }),
  };
}

/** A query string from the set values only. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

// The one door to the server. Every answer that is not 2xx becomes an ApiError carrying the
// server's message and requestId; a 401 outside the sign-in routes raises `sessionExpired`
// so the shell can ask for the password again without unmounting the screen (forms keep
// what was typed).
//
// Calls name a row of the server's route table: `api('GET /api/browse/*', { params: { path } })`.
// The table's types come from the server (src/contract.ts, imported as types only: nothing
// of the server is bundled), so the params, query and body a call sends and the answer it reads
// are the row's own, and a changed row fails to compile here. `api` reads a JSON answer;
// `apiFetch` answers the Response (downloads, NDJSON, answers whose headers matter);
// `apiUrl` writes the address (links, <img src>, uploads).
import { signal } from '@preact/signals';
import type { ApiAnswer, ApiInput, ApiInputOptional, ApiJsonKey, ApiKey } from '../../../src/contract.ts';

export class ApiError extends Error {
  readonly status: number;
  readonly requestId: string | undefined;
  readonly code: string | undefined;
  /** Seconds, from Retry-After when the server sent it. */
  readonly retryAfter: number | undefined;
  constructor(status: number, message: string, requestId?: string, code?: string, retryAfter?: number) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.requestId = requestId;
    this.code = code;
    this.retryAfter = retryAfter;
  }
}

export const sessionExpired = signal(false);
/**
 * An account without a password here was asked to confirm it is itself (403 AUTH_CONFIRM_REQUIRED):
 * true while the "sign in again" form is open over the page.
 */
export const confirmSignIn = signal(false);
/** Requests that have been waiting for more than a moment (drives the "server is slow" bar). */
export const slowRequests = signal(0);

const SLOW_AFTER_MS = 1500;

export interface RequestOptions {
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /** Do not treat 401 as an expired session (sign-in forms, password checks). */
  allow401?: boolean;
}

/** `a/b c/d` → `a/b%20c/d`: each segment encoded on its own, empty segments dropped. */
export function encodePath(path: string): string {
  return path.split('/').filter(Boolean).map(encodeURIComponent).join('/');
}

/**
 * `{ q: 'Morning Tune', path: 'Music/A+B' }` → `q=Morning%20Tune&path=Music%2FA%2BB`: every
 * value escaped with encodeURIComponent, so a space is `%20` and a plus `%2B`, never a bare `+`
 * (URLSearchParams writes a space as `+`, which a server may read as a plus). Undefined values
 * are left out.
 */
export function queryString(fields: Record<string, string | number | boolean | undefined>): string {
  return Object.entries(fields)
    .filter((e): e is [string, string | number | boolean] => e[1] !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('&');
}

export function joinPath(parent: string, name: string): string {
  return parent ? `${parent}/${name}` : name;
}

export function parentOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

function retryAfterOf(res: Response): number | undefined {
  const h = res.headers.get('retry-after');
  if (!h) return undefined;
  const n = Number(h);
  if (Number.isFinite(n)) return Math.max(0, Math.ceil(n));
  const at = Date.parse(h);
  return Number.isFinite(at) ? Math.max(0, Math.ceil((at - Date.now()) / 1000)) : undefined;
}

export async function errorFrom(res: Response): Promise<ApiError> {
  let message = `${res.status} ${res.statusText || 'error'}`;
  let requestId = res.headers.get('x-request-id') ?? undefined;
  let code: string | undefined;
  try {
    const body = await res.json();
    const e = body?.error;
    if (e && typeof e === 'object') {
      message = e.message ?? message;
      requestId = e.requestId ?? requestId;
      code = e.code;
    } else if (typeof e === 'string') message = e;
    else if (typeof body?.message === 'string') message = body.message;
  } catch {
    /* not JSON: keep the status line */
  }
  if (res.status === 413 && !/large|limit|many/i.test(message)) message = `Too large for the server: ${message}`;
  if (res.status === 507) message = `The volume is full: ${message}`;
  return new ApiError(res.status, message, requestId, code, retryAfterOf(res));
}

/** fetch with the shell's bookkeeping; answers the Response when it is 2xx/304, else throws. */
export async function request(
  method: string,
  path: string,
  body?: unknown,
  options: RequestOptions = {},
): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  let payload: BodyInit | undefined;
  if (body !== undefined) {
    if (body instanceof FormData || body instanceof Blob || typeof body === 'string') payload = body as BodyInit;
    else {
      payload = JSON.stringify(body);
      headers['content-type'] = 'application/json';
    }
  }
  let slow = false;
  const timer = setTimeout(() => {
    slow = true;
    slowRequests.value++;
  }, SLOW_AFTER_MS);
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: payload, signal: options.signal, credentials: 'same-origin' });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(
      0,
      'The server cannot be reached. Check that Burrow is running and your network is up, then try again.',
    );
  } finally {
    clearTimeout(timer);
    if (slow) slowRequests.value--;
  }
  if (res.ok || res.status === 304) return res;
  const error = await errorFrom(res);
  // AUTH_REQUIRED is the guard saying there is no session at all; other 401s on the sign-in
  // and credential routes mean a wrong password.
  if (res.status === 401 && (error.code === 'AUTH_REQUIRED' || (!options.allow401 && !path.startsWith('/api/auth/'))))
    sessionExpired.value = true;
  throw error;
}

/** A call's input and options; the input may be left out when the row needs none. */
type CallArgs<K extends ApiKey> =
  ApiInputOptional<K> extends true
    ? [input?: ApiInput<K>, options?: RequestOptions]
    : [input: ApiInput<K>, options?: RequestOptions];

interface AnyInput {
  params?: Record<string, string>;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
}

/**
 * The address of a row: `:name` segments filled in (each encoded), a trailing `*` filled with
 * `params.path` (each segment encoded, slashes kept), the query written by queryString.
 */
export function apiUrl<K extends ApiKey>(key: K, ...[input]: CallArgs<K>): string {
  const { params = {}, query } = (input ?? {}) as AnyInput;
  const pattern = key.slice(key.indexOf(' ') + 1);
  const path = pattern
    .replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ''))
    .replace(/\*$/, () => encodePath(params.path ?? ''));
  const q = query ? queryString(query) : '';
  return q ? `${path}?${q}` : path;
}

/** The path of a row as the table writes it, for a client that builds the address itself (the TUS client). */
export function apiPath<K extends ApiKey>(key: K): string {
  return key.slice(key.indexOf(' ') + 1);
}

/** A row's Response (2xx or 304), for answers read as bytes, a stream or with their headers. */
export function apiFetch<K extends ApiKey>(key: K, ...[input, options]: CallArgs<K>): Promise<Response> {
  const method = key.slice(0, key.indexOf(' '));
  const { body } = (input ?? {}) as AnyInput;
  // A write without a body sends `{}` (a DELETE sends none).
  const sent = body === undefined && (method === 'POST' || method === 'PUT' || method === 'PATCH') ? {} : body;
  return request(method, apiUrl(key, ...([input] as CallArgs<K>)), sent, options);
}

/** Reads an NDJSON answer (application/x-ndjson: one event per line) to its end, event by event. */
export async function readEvents<E>(res: Response, each: (event: E) => void): Promise<void> {
  if (!res.body) return;
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (line) each(JSON.parse(line) as E);
    }
  }
}

/** Calls a row and answers its JSON (undefined for 204 and 304), typed as the row declares it. */
export async function api<K extends ApiJsonKey>(key: K, ...args: CallArgs<K>): Promise<ApiAnswer<K>> {
  const res = await apiFetch(key, ...args);
  if (res.status === 204 || res.status === 304) return undefined as ApiAnswer<K>;
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as ApiAnswer<K>;
}

/** Human text for any error, with the requestId so a report can be matched to the log. */
export function describeError(err: unknown): { message: string; requestId?: string } {
  if (err instanceof ApiError) return { message: err.message, requestId: err.requestId };
  return { message: err instanceof Error ? err.message : String(err) };
}

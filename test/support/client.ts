// A small HTTP client with a cookie jar, for driving the API like a browser or a script.
import http from 'node:http';

export interface Answer<T = any> {
  status: number;
  headers: Headers;
  text: string;
  json: T;
}

export class Client {
  readonly base: string;
  cookies = new Map<string, string>();
  bearer: string | undefined;

  constructor(base: string, bearer?: string) {
    this.base = base;
    this.bearer = bearer;
  }

  get cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer<T>> {
    const h: Record<string, string> = { accept: 'application/json', ...headers };
    if (this.cookies.size) h.cookie = this.cookieHeader;
    if (this.bearer) h.authorization = `Bearer ${this.bearer}`;
    let payload: any;
    if (body !== undefined) {
      if (typeof body === 'string' || body instanceof Uint8Array || body instanceof FormData) payload = body;
      else {
        payload = JSON.stringify(body);
        h['content-type'] ??= 'application/json';
      }
    }
    let res: Response;
    try {
      res = await fetch(this.base + path, { method, headers: h, body: payload, redirect: 'manual' });
    } catch (err) {
      // fetch says only "fetch failed"; the reason (reset, refused, …) is in its cause.
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new Error(
        `${method} ${path}: ${(err as Error).message}${cause ? ` (${cause.code ?? ''} ${cause.message ?? ''})` : ''}`,
        { cause: err },
      );
    }
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await res.text();
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  }

  get<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>('GET', path, undefined, headers);
  }
  /**
   * A GET whose path goes out exactly as written, '..' and '%2e%2e' included, as curl
   * --path-as-is or a script's own HTTP code sends it (fetch, like a browser, resolves them first).
   */
  raw<T = any>(path: string): Promise<Answer<T>> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.cookies.size) headers.cookie = this.cookieHeader;
    if (this.bearer) headers.authorization = `Bearer ${this.bearer}`;
    return new Promise((resolve, reject) => {
      const req = http.request(this.base, { method: 'GET', path, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: any;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) {
            for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) h.append(k, one);
          }
          resolve({ status: res.statusCode!, headers: h, text, json });
        });
      });
      req.on('error', reject);
      req.end();
    });
  }
  post<T = any>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', path, body ?? {}, headers);
  }
  put<T = any>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('PUT', path, body ?? {}, headers);
  }
  patch<T = any>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('PATCH', path, body ?? {}, headers);
  }
  delete<T = any>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('DELETE', path, body, headers);
  }
}

/** Asserts the spec's error envelope and returns it. */
export function envelope(answer: Answer): { message: string; statusCode: number; requestId: string; code?: string } {
  const e = answer.json?.error;
  if (
    answer.json?.success !== false ||
    !e ||
    typeof e.message !== 'string' ||
    e.statusCode !== answer.status ||
    typeof e.requestId !== 'string' ||
    !e.requestId
  ) {
    throw new Error(`not an error envelope (status ${answer.status}): ${answer.text.slice(0, 300)}`);
  }
  if (answer.headers.get('x-request-id') !== e.requestId)
    throw new Error('X-Request-Id does not match the envelope requestId');
  return e;
}

// The live socket (/api/live) as a page opens it, for the live-folders suites: a real `ws`
// client that keeps every message it hears, and whose refused upgrade is the server's answer
// (status and error envelope) rather than a bare socket error.
import WebSocket from 'ws';

export interface LiveSocket {
  ws: WebSocket;
  /** Every message heard, parsed, in order. */
  messages: any[];
  /** Resolves when the upgrade is accepted; rejects with `{ status, body }` when it is refused. */
  opened: Promise<void>;
}

/** Opens `at` (the live socket by default) of the server at `url`, sent from `origin` (the server's own by default). */
export function liveSocket(
  url: string,
  opts: { at?: string; headers?: Record<string, string>; origin?: string } = {},
): LiveSocket {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}${opts.at ?? '/api/live'}`, {
    headers: opts.headers ?? {},
    origin: opts.origin ?? url,
  });
  const messages: any[] = [];
  ws.on('message', (data) => messages.push(JSON.parse(data.toString())));
  const opened = new Promise<void>((resolve, reject) => {
    ws.on('open', () => resolve());
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () =>
        reject(
          Object.assign(new Error(`refused ${res.statusCode}`), {
            status: res.statusCode,
            body: JSON.parse(body || 'null'),
          }),
        ),
      );
    });
    ws.on('error', reject);
  });
  return { ws, messages, opened };
}

/** The refusal of an upgrade that must be refused; an accepted one fails the test. */
export async function refusal(p: Promise<{ ws: WebSocket }>): Promise<{ status: number; body: any }> {
  try {
    (await p).ws.close();
  } catch (err) {
    return err as { status: number; body: any };
  }
  throw new Error('the upgrade was accepted');
}

// Programs that receive Burrow's notifications, on loopback: a webhook receiver that verifies
// each message with the Standard Webhooks reference library (`standardwebhooks`) and keeps the
// first copy of every webhook-id, and an ntfy stand-in that takes ntfy's JSON publish shape.
// Each can be told to answer something else (hang, refuse, ask to retry later) to drive the sender.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export type Behaviour =
  | { kind: 'ok' }
  /** Reads the body, never answers (the connection is held open). */
  | { kind: 'hang' }
  | { kind: 'status'; status: number; headers?: Record<string, string> };

export interface Received {
  headers: http.IncomingHttpHeaders;
  text: string;
  json: any;
  /** The signature checked out (webhook receivers only; ntfy: true). */
  verified: boolean;
  answered: number | null;
}

export interface Receiver {
  readonly url: string;
  /** Every request, in arrival order (attempts included). */
  readonly requests: Received[];
  /** The first verified copy of each message, by webhook-id (or X-Message-Id for ntfy). */
  readonly unique: Map<string, any>;
  behaviour: Behaviour;
  /** The signing secret the receiver verifies with (webhooks; set once the destination exists). */
  secret: string | null;
  close(): Promise<void>;
}

export async function startReceiver(kind: 'webhook' | 'ntfy'): Promise<Receiver> {
  const held: http.ServerResponse[] = [];
  const state: Receiver = {
    url: '',
    requests: [],
    unique: new Map(),
    behaviour: { kind: 'ok' },
    secret: null,
    close: async () => {},
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let json: any = null;
      try {
        json = JSON.parse(text);
      } catch {
        /* kept as text */
      }
      let verified = kind === 'ntfy';
      if (kind === 'webhook' && state.secret) {
        try {
          new Webhook(state.secret).verify(text, req.headers as Record<string, string>);
          verified = true;
        } catch {
          verified = false;
        }
      }
      const entry: Received = { headers: req.headers, text, json, verified, answered: null };
      state.requests.push(entry);
      const b = state.behaviour;
      if (b.kind === 'hang') {
        held.push(res);
        return;
      }
      const status = b.kind === 'ok' ? 200 : b.status;
      entry.answered = status;
      const id = String(req.headers['webhook-id'] ?? req.headers['x-message-id'] ?? '');
      if (status >= 200 && status < 300 && verified && id && !state.unique.has(id)) state.unique.set(id, json);
      res.writeHead(status, b.kind === 'status' ? (b.headers ?? {}) : {});
      res.end(kind === 'ntfy' ? JSON.stringify({ id: 'x', event: 'message' }) : '');
    });
  });
  // Never what keeps a test process alive (a journey's step may end before its close).
  server.on('connection', (socket) => socket.unref());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  const port = (server.address() as AddressInfo).port;
  Object.assign(state, {
    url: kind === 'webhook' ? `http://127.0.0.1:${port}/hooks/burrow` : `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of held) r.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
  return state;
}

// A network the test holds in its hands: a small HTTP proxy in front of the server, which the
// browser uses as the server's address (http://localhost:<its port>). Everything the browser
// sends passes it — a page's own requests, and those of its service worker, which DevTools'
// routes and throttling do not see when the page is under the worker's control (the page's
// requests go out past them, and the worker's are its own). A rule the test sets decides for
// each request as it arrives: passed on, held (nothing of it reaches the server until the rule
// changes; a held request the browser gave up on meanwhile is dropped), or cut (its connection
// closed unanswered: a network gone). The resumable upload routes (TUS) are recorded as the
// server answered them, by file name, so a step waits on what the server said, never on time.
//
//   const gate = await networkGate(s.server.url);
//   gate.rule((r) => (r.method === 'PATCH' && r.from > 0 ? 'hold' : 'pass'));
//   await s.eventually('a PATCH held', () => gate.held().length === 1);
//   gate.rule(() => 'pass');                       // the held ones go on
//   gate.tus().offsets.get('photo.jpg')            // the offset its last answered PATCH reached
//   await gate.close();
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { waitFor } from '../../support/wait.ts';

/** A request as it arrived (what a rule decides on). */
export interface Asked {
  method: string;
  /** The address's path, decoded not. */
  path: string;
  /** A TUS upload's id (its address's last segment), when the request is one's. */
  upload?: string;
  /** The file's name: a creation's metadata, or the name its upload was created with. */
  name?: string;
  /** A PATCH's Upload-Offset: where its bytes begin. */
  from: number;
}
export type Decision = 'pass' | 'hold' | 'cut';

/** One request of the upload routes and what became of it. */
export interface TusExchange extends Asked {
  /** Answered by the server (absent: held, cut, or given up on by the browser). */
  status?: number;
  /** The Upload-Offset answered (a PATCH's end, a HEAD's answer). */
  offset?: number;
  /** An error answer's envelope. */
  error?: { code: string; message: string };
  cut?: boolean;
}

const TUS = '/api/upload/tus';

/** A held request's body as read so far; `more` takes the rest once it is sent on. */
interface Body {
  parts: Buffer[];
  ended: boolean;
  more?: { data(b: Buffer): void; end(): void };
}

function filenameOf(req: IncomingMessage): string | undefined {
  const meta = String(req.headers['upload-metadata'] ?? '');
  const pair = meta
    .split(',')
    .map((p) => p.trim())
    .find((p) => p.startsWith('filename '));
  return pair ? Buffer.from(pair.split(' ')[1] ?? '', 'base64').toString('utf8') : undefined;
}

export async function networkGate(upstream: string) {
  const target = new URL(upstream);
  let decide: (r: Asked) => Decision = () => 'pass';
  /** Upload id → file name (from each creation the server answered). */
  const names = new Map<string, string>();
  const exchanges: TusExchange[] = [];
  const waiting = new Set<{ asked: Asked; gone: () => boolean; go: () => void; cut: () => void }>();

  /**
   * Sends the request on. `read` is what a held request's body already gave (a held request is
   * read as it comes, so the gate sees the browser give it up); the rest follows as it comes.
   */
  const forward = (req: IncomingMessage, res: ServerResponse, ex?: TusExchange, read?: Body) => {
    const headers = { ...req.headers };
    const up = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
      (answer) => {
        const out = { ...answer.headers };
        for (const h of ['connection', 'keep-alive', 'transfer-encoding']) delete out[h];
        if (ex) {
          ex.status = answer.statusCode;
          const offset = answer.headers['upload-offset'];
          if (offset !== undefined) ex.offset = Number(offset);
          const location = answer.headers.location;
          if (req.method === 'POST' && answer.statusCode === 201 && location) {
            ex.upload = new URL(location, upstream).pathname.split('/').pop();
            if (ex.upload && ex.name) names.set(ex.upload, ex.name);
          }
          if ((answer.statusCode ?? 0) >= 400) {
            const parts: Buffer[] = [];
            answer.on('data', (b: Buffer) => parts.push(b));
            answer.on('end', () => {
              try {
                ex.error = (JSON.parse(Buffer.concat(parts).toString('utf8')) as { error: TusExchange['error'] }).error;
              } catch {
                /* not the envelope */
              }
            });
          }
        }
        res.writeHead(answer.statusCode ?? 502, out);
        answer.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    res.on('close', () => {
      if (!res.writableFinished) up.destroy();
    });
    if (!read) {
      req.pipe(up);
      return;
    }
    for (const part of read.parts.splice(0)) up.write(part);
    if (read.ended) up.end();
    else read.more = { data: (b) => up.write(b), end: () => up.end() };
  };

  const server = http.createServer({ requestTimeout: 0 }, (req, res) => {
    const url = new URL(req.url ?? '/', 'http://gate');
    const tus = url.pathname.startsWith(TUS);
    const upload = tus ? url.pathname.slice(TUS.length).split('/')[1] || undefined : undefined;
    const asked: Asked = {
      method: req.method ?? 'GET',
      path: url.pathname,
      upload,
      name: upload ? names.get(upload) : filenameOf(req),
      from: Number(req.headers['upload-offset'] ?? NaN),
    };
    const ex: TusExchange | undefined = tus ? { ...asked } : undefined;
    if (ex) exchanges.push(ex);
    let gone = false;
    res.on('close', () => {
      if (!res.writableFinished) gone = true;
    });
    const cut = () => {
      if (ex) ex.cut = true;
      req.socket.destroy();
    };
    const first = decide(asked);
    if (first === 'cut') cut();
    else if (first === 'pass') forward(req, res, ex);
    else {
      const read: Body = { parts: [], ended: false };
      req.on('data', (b: Buffer) => (read.more ? read.more.data(b) : read.parts.push(b)));
      req.on('end', () => {
        read.ended = true;
        read.more?.end();
      });
      waiting.add({ asked, gone: () => gone, go: () => forward(req, res, ex, read), cut });
    }
  });
  // WebSockets (the live folder stream) pass through untouched.
  const streams = new Set<net.Socket>();
  server.on('upgrade', (req: IncomingMessage, socket: net.Socket, head: Buffer) => {
    streams.add(socket);
    socket.on('close', () => streams.delete(socket));
    const up = net.connect(Number(target.port), target.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      up.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length) up.write(head);
      up.pipe(socket);
      socket.pipe(up);
    });
    up.on('error', () => socket.destroy());
    socket.on('error', () => up.destroy());
    socket.on('close', () => up.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // A step that failed before closing its gate must not keep the test process alive after the
  // run (its browser's connections end with the browser).
  server.unref();
  const port = (server.address() as AddressInfo).port;

  const settle = () => {
    for (const w of [...waiting]) {
      if (w.gone()) {
        waiting.delete(w);
        continue;
      }
      const now = decide(w.asked);
      if (now === 'hold') continue;
      waiting.delete(w);
      if (now === 'cut') w.cut();
      else w.go();
    }
  };

  return {
    /** The address the browser uses for the server, through this gate. */
    address: `http://localhost:${port}`,
    /** From now on each request is decided so; those held are decided again at once. */
    rule(next: (r: Asked) => Decision) {
      decide = next;
      settle();
    },
    /** The requests held now (those the browser gave up on are not counted). */
    held(): Asked[] {
      settle();
      return [...waiting].map((w) => w.asked);
    },
    /** What the browser asked the upload routes, in order, and what the server answered. */
    tus() {
      const all = exchanges.map((e) => ({ ...e, name: e.name ?? (e.upload ? names.get(e.upload) : undefined) }));
      const named = (e: TusExchange) => e.name ?? '';
      return {
        all,
        /** The file of each upload the server made. */
        created: all.filter((e) => e.method === 'POST' && e.status === 201).map(named),
        /** Creations the server refused, with its error. */
        refused: all
          .filter((e) => e.method === 'POST' && (e.status ?? 0) >= 400)
          .map((e) => ({ name: named(e), status: e.status!, ...e.error! })),
        /** The offset each file's last answered PATCH reached. */
        offsets: new Map(all.filter((e) => e.method === 'PATCH' && e.status === 204).map((e) => [named(e), e.offset!])),
        /** Each HEAD the server answered: the offset it told. */
        heads: all
          .filter((e) => e.method === 'HEAD' && e.status === 200)
          .map((e) => ({ name: named(e), offset: e.offset! })),
        /** Every PATCH that arrived, with the offset it began at. */
        patches: all.filter((e) => e.method === 'PATCH').map((e) => ({ name: named(e), from: e.from })),
        /** The upload ids the server made (their part files are named after them). */
        ids: all.filter((e) => e.method === 'POST' && e.status === 201).map((e) => e.upload!),
      };
    },
    async close() {
      decide = () => 'cut';
      settle();
      server.closeAllConnections();
      for (const socket of streams) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type NetworkGate = Awaited<ReturnType<typeof networkGate>>;

/**
 * Waits until `page` is under its service worker's control — the worker installed (it keeps the
 * app shell: index.html, the scripts, the icons, fetched through the gate) and claimed the page.
 * On a loaded machine that install has taken over 15 s; a failure names the registration's state.
 */
export async function controlled(page: Page): Promise<void> {
  await waitFor(
    () =>
      page.evaluate(async () => {
        const r = await navigator.serviceWorker.getRegistration();
        return {
          controlled: navigator.serviceWorker.controller !== null,
          installing: r?.installing?.state ?? null,
          waiting: r?.waiting?.state ?? null,
          active: r?.active?.state ?? null,
        };
      }),
    { what: 'the page in its service worker’s hands', timeoutMs: 60_000, until: (w) => w.controlled },
  );
}

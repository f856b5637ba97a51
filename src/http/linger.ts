// Refusing a request whose body is still arriving. Node ends a `Connection: close` answer
// and then closes the socket; unread bytes in the kernel turn that close into a reset, and a
// client still sending (fetch, curl, a browser) sees EPIPE/ECONNRESET instead of the answer.
// So, like nginx's lingering close: the answer is written whole (with `Connection: close`)
// but ended only once the rest of the body has been read away — bounded in bytes and time,
// after which the connection is closed whatever the client still sends.
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface LingerLimits {
  /** Bytes read away after the refusal before the connection is closed anyway. */
  maxBytes: number;
  /** Total time the connection lingers. */
  maxMs: number;
  /** Time without a byte from the client after which the connection is closed. */
  idleMs: number;
}

export const LINGER: LingerLimits = { maxBytes: 64 * 1024 * 1024, maxMs: 30_000, idleMs: 5_000 };

/** A remaining body up to this size is read by Node itself and the connection kept alive. */
const SMALL_REST = 64 * 1024;

/** Requests being read away: resolves when the rest has arrived or a bound was reached. */
const lingering = new WeakMap<IncomingMessage, Promise<void>>();
const refused = new WeakSet<IncomingMessage>();

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && Number(length) !== 0);
}

/**
 * Call when a request is refused before its body was read (any status): discards the rest of
 * the body, and when that rest is large or of unknown length, marks the answer
 * `Connection: close` and starts the bounded lingering read that `endRefusal` waits for.
 * Safe to call more than once and after the body has ended.
 */
export function refuseBody(req: IncomingMessage, res: ServerResponse, limits: LingerLimits = LINGER): void {
  if (refused.has(req) || !hasBody(req) || req.readableEnded || req.destroyed) return;
  refused.add(req);
  req.unpipe();
  const declared = Number(req.headers['content-length']);
  if (req.complete || (Number.isFinite(declared) && declared <= SMALL_REST)) {
    req.resume();
    return;
  }
  if (res.headersSent) res.shouldKeepAlive = false;
  else res.setHeader('Connection', 'close');
  lingering.set(
    req,
    new Promise<void>((resolve) => {
      let read = 0;
      let idle: NodeJS.Timeout;
      const total = setTimeout(stop, limits.maxMs);
      const arm = () => {
        clearTimeout(idle);
        idle = setTimeout(stop, limits.idleMs);
      };
      function stop() {
        clearTimeout(total);
        clearTimeout(idle);
        req.off('data', count);
        resolve();
      }
      function count(chunk: Buffer) {
        read += chunk.length;
        if (read > limits.maxBytes) stop();
        else arm();
      }
      arm();
      req.on('data', count);
      req.once('end', stop);
      req.once('close', stop);
      req.on('error', () => {}); // an aborted client is the end of it, not a failure
      req.resume();
    }),
  );
}

/**
 * Ends a refusal's answer. For a request being read away, the whole answer is written now
 * (the client can read it while it still sends) and the response is ended — which closes the
 * connection — once the rest of the body has arrived or a bound was reached.
 */
export function endRefusal(req: IncomingMessage | undefined, res: ServerResponse, body?: string | Buffer): void {
  const pending = req ? lingering.get(req) : undefined;
  if (!pending) {
    res.end(body);
    return;
  }
  if (body !== undefined) res.write(body);
  void pending.then(() => {
    if (!res.writableEnded) res.end();
  });
}

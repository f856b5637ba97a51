// NDJSON event streams (application/x-ndjson): one JSON object per line, `type` first, in the
// order start, progress…, error… (per item, not fatal), done — or a final error when the whole
// operation failed. Used by deletion and archive extraction. Writes wait for the socket to
// drain, and once the client has gone every write is a no-op (the work decides whether to
// stop, through `signal`).
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { AppError, fromFsError } from '../core/errors.ts';

/** The fields of each event type (without `type`). */
export interface EventShapes {
  start: object;
  progress: object;
  error: object;
  done: object;
}

export interface EventStream<E extends EventShapes> {
  send<K extends keyof E & string>(type: K, fields: E[K]): Promise<void>;
  /** Writes the done event and ends the answer. */
  done(fields: E['done']): Promise<void>;
  /** Ends the answer with a final error event made from `err` (an AppError, a file-system error, or a generic 500). */
  fail(err: unknown): Promise<void>;
  /** Aborted when the client goes away before the answer ended. */
  readonly signal: AbortSignal;
  readonly closed: boolean;
}

/** The fields of an error event for an error (message, statusCode, code), never a stack or a path of the host. */
export function errorFields(err: unknown): { message: string; statusCode: number; code: string } {
  const e = err instanceof AppError ? err : (fromFsError(err) ?? new AppError('INTERNAL'));
  return { message: e.message, statusCode: e.status, code: e.code };
}

export function openEventStream<E extends EventShapes>(res: ServerResponse, status = 200): EventStream<E> {
  const aborter = new AbortController();
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/x-ndjson; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  // Some proxies hold small chunks back; the client wants each line as it happens.
  res.setHeader('X-Accel-Buffering', 'no');
  res.on('close', () => {
    if (!res.writableFinished) aborter.abort();
  });
  const gone = () => aborter.signal.aborted || res.destroyed || res.writableEnded;

  async function write(line: string): Promise<void> {
    if (gone()) return;
    if (res.write(line)) return;
    // Backpressure: wait for the socket to take it, or for the client to leave.
    await Promise.race([once(res, 'drain'), once(aborter.signal, 'abort')]).catch(() => {});
  }
  const frame = (type: string, fields: object) => JSON.stringify({ type, ...fields }) + '\n';

  return {
    send: (type, fields) => write(frame(type, fields as object)),
    async done(fields) {
      await write(frame('done', fields));
      if (!gone()) res.end();
    },
    async fail(err) {
      await write(frame('error', errorFields(err)));
      if (!gone()) res.end();
    },
    get signal() {
      return aborter.signal;
    },
    get closed() {
      return gone();
    },
  };
}

// One JSON object per log line; inside a request every line carries its requestId
// (AsyncLocalStorage), so a line can be matched to the answer the user saw.
import { AsyncLocalStorage } from 'node:async_hooks';

export type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface RequestContext {
  requestId: string;
  /** The HTTP request's place in the order requests reached this process (see `arrivals`). */
  arrival?: number;
}
export const requestContext = new AsyncLocalStorage<RequestContext>();

let arrived = 0;
/** Counts an HTTP request reaching this process: its `arrival`. */
export const nextArrival = (): number => ++arrived;
/** Requests that reached this process so far: what a read made now has seen arrive (cluster/config-cache.ts). */
export const arrivals = (): number => arrived;

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

export function createLogger(
  level: Level = 'info',
  base: Record<string, unknown> = {},
  write: (line: string) => void = (l) => process.stdout.write(l),
): Logger {
  const min = ORDER[level];
  const emit = (lvl: Level, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < min) return;
    const ctx = requestContext.getStore();
    const line: Record<string, unknown> = {
      time: new Date().toISOString(),
      level: lvl,
      msg,
      ...base,
      ...(ctx ? { requestId: ctx.requestId } : {}),
      ...fields,
    };
    if (line.err instanceof Error)
      line.err = { message: line.err.message, stack: line.err.stack, code: (line.err as NodeJS.ErrnoException).code };
    write(JSON.stringify(line) + '\n');
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger(level, { ...base, ...fields }, write),
  };
}

/** A logger that drops everything (tests that want quiet output). */
export const silentLogger: Logger = createLogger('error', {}, () => {});

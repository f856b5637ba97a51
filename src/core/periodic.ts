// One way to run background work every so often (the sweeps of sessions, links, locks, uploads,
// trash…): never two runs at once (a tick due while one runs waits for it), a failure logged and
// the next tick tried, the timer never keeping the process alive, and stop() waiting for the run
// in progress so nothing touches the database after it closes.
import type { Logger } from './log.ts';

export interface PeriodicJob {
  start(): void;
  stop(): Promise<void>;
}

export interface PeriodicOptions {
  /** Between two runs. */
  everyMs: number;
  /** The first run: at start() ('now'), just after it ('soon', once the current work is done), or after `everyMs`. */
  first: 'now' | 'soon' | 'later';
  log: Logger;
  /** The warning logged when a run fails. */
  failed: string;
  run: () => unknown;
}

export function periodicJob(options: PeriodicOptions): PeriodicJob {
  let timer: NodeJS.Timeout | undefined;
  let soon: NodeJS.Immediate | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = running
      .then(() => options.run())
      .then(
        () => undefined,
        (err) => options.log.warn(options.failed, { err }),
      );
  };
  return {
    start() {
      if (timer) return;
      if (options.first === 'now') tick();
      else if (options.first === 'soon') soon = setImmediate(tick);
      timer = setInterval(tick, options.everyMs);
      timer.unref();
    },
    async stop() {
      if (soon) clearImmediate(soon);
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}

// One way to run background work every so often (the sweeps of sessions, links, locks, uploads,
// trash…): never two runs at once (a tick due while one runs waits for it), a failure logged and
// the next tick tried, the timer never keeping the process alive, and stop() waiting for the run
// in progress so nothing touches the database after it closes. A job with a `name` asks the
// installation's job gate before each run (jobs/service.ts: on several instances over one
// PostgreSQL only the instance holding the job's lease runs it) and tells it how each run went
// (failures in a row are told to the administrators once).
import type { Logger } from './log.ts';

/** Who may run a named job now, and what became of each run (jobs/service.ts). */
export interface JobGate {
  /** Before each run: whether this instance runs `name` now (on a cluster: takes or renews its lease). */
  mayRun(name: string): boolean;
  /** After each run: null when it succeeded; `done` what it returned when that is a count of things done. */
  ran(name: string, err: unknown, done: number): void;
}

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
  /** The job's name, and the gate that decides where it runs and hears how it went. */
  job?: { name: string; gate: JobGate };
}

export function periodicJob(options: PeriodicOptions): PeriodicJob {
  let timer: NodeJS.Timeout | undefined;
  let soon: NodeJS.Immediate | undefined;
  let running: Promise<void> = Promise.resolve();
  const { job } = options;
  const once = async () => {
    if (job) {
      let may: boolean;
      try {
        may = job.gate.mayRun(job.name);
      } catch (err) {
        // The lease could not be asked (the database away): not this job's failure.
        options.log.warn('could not ask whether to run a background job', { job: job.name, err });
        return;
      }
      if (!may) return;
    }
    let result: unknown;
    try {
      result = await options.run();
    } catch (err) {
      options.log.warn(options.failed, { err });
      job?.gate.ran(job.name, err, 0);
      return;
    }
    job?.gate.ran(job.name, null, typeof result === 'number' ? result : 0);
  };
  const tick = () => {
    running = running.then(once).then(
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

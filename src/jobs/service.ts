// The installation's background jobs (the sweeps of sessions and links, the trash purge, the
// notification sender…): where each runs and how its runs went. Every job asks `mayRun` before a
// run (core/periodic.ts): on the embedded database always yes; over one PostgreSQL shared by
// several instances, yes only on the instance that holds the job's lease (cluster/leases.ts) —
// so a job runs on one instance at a time, stays there while that instance lives, and moves to
// another once its lease lapsed. A job that fails FAILURES_BEFORE_TELLING times in a row is told
// to the administrators once (a notification of kind `job.failed`), and once more when a run
// succeeds again; the told state is a row (the outbox's `state`), so an instance taking the
// job over, or several failing at once, tell it no second time.
import type { Logger } from '../core/log.ts';
import type { JobGate } from '../core/periodic.ts';
import type { Leases } from '../cluster/leases.ts';
import { JOB_PREFIX } from '../cluster/leases.ts';
import type { JobsAnswer } from './wire.ts';

/**
 * Three: one failed run is often a passing thing (a mount that blinked, PostgreSQL restarting,
 * a destination down for a minute) and the next tick retries it; three in a row is a job that
 * stays broken until someone looks — for the hourly sweeps, hours of it.
 */
export const FAILURES_BEFORE_TELLING = 3;

/** What each job does, in the words the administrators read. */
export const JOB_LABELS: Record<string, string> = {
  'accounts.sweep': 'Removing expired sessions, rate-limit windows and old activity rows',
  'directory.check': 'Looking up the directory accounts again',
  'trash.purge': 'Emptying trash entries older than the retention time',
  'shares.sweep': 'Removing expired links and their counters',
  'webdav.sweep': 'Removing expired WebDAV locks',
  'passkeys.sweep': 'Removing expired passkey challenges',
  'oidc.sweep': 'Removing expired sign-in states and app codes',
  'notify.send': 'Sending notifications',
  'index.rescan': 'Rescanning the folders for changes made outside Burrow',
  'uploads.sweep': 'Discarding resumable uploads left unfinished past their time, and stale upload parts',
  'volumes.check': 'Checking that each volume folder is there, readable and writable',
};

export interface JobsDeps {
  leases: Leases;
  log: Logger;
  /** Tells the administrators that job `name` keeps failing (`failing`), or recovered. */
  tell(name: string, label: string, failing: boolean, detail: { failures: number; error: string | null }): void;
}

interface Stats {
  runs: number;
  done: number;
  lastRunAt: string | null;
  failuresInRow: number;
  lastError: string | null;
  /** Whether this instance's runs may have left the failing state told (checked at the next success). */
  maybeTold: boolean;
}

export type Jobs = JobGate & { list(): JobsAnswer };

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 500);

export function createJobs(deps: JobsDeps): Jobs {
  const { leases, log } = deps;
  const stats = new Map<string, Stats>();
  const statsOf = (name: string): Stats => {
    let s = stats.get(name);
    if (!s) {
      // A state told by an earlier run or another instance is ended by this one's first success.
      s = { runs: 0, done: 0, lastRunAt: null, failuresInRow: 0, lastError: null, maybeTold: true };
      stats.set(name, s);
    }
    return s;
  };
  const labelOf = (name: string) => JOB_LABELS[name] ?? name;
  const tell = (name: string, failing: boolean, s: Stats) => {
    try {
      deps.tell(name, labelOf(name), failing, { failures: s.failuresInRow, error: s.lastError });
    } catch (err) {
      log.warn('could not tell the administrators about a background job', { job: name, err });
    }
  };
  return {
    mayRun(name) {
      statsOf(name);
      return leases.holdJob(name);
    },
    ran(name, err, done) {
      const s = statsOf(name);
      s.runs++;
      s.done += done;
      s.lastRunAt = new Date().toISOString();
      if (err) {
        s.failuresInRow++;
        s.lastError = messageOf(err);
        if (s.failuresInRow === FAILURES_BEFORE_TELLING) {
          s.maybeTold = true;
          tell(name, true, s);
        }
        return;
      }
      s.failuresInRow = 0;
      s.lastError = null;
      if (s.maybeTold) {
        tell(name, false, s);
        s.maybeTold = false;
      }
    },
    list() {
      const held = new Map(leases.jobs().map((l) => [l.name.slice(JOB_PREFIX.length), l]));
      return {
        instance: leases.instance,
        jobs: [...stats]
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([name, s]) => {
            const lease = held.get(name);
            return {
              name,
              label: labelOf(name),
              holder: leases.shared ? (lease?.owner ?? null) : leases.instance,
              leaseExpiresAt: lease?.expires_at ?? null,
              runsHere: s.runs,
              doneHere: s.done,
              lastRunAt: s.lastRunAt,
              failuresInRow: s.failuresInRow,
              lastError: s.lastError,
            };
          }),
      };
    },
  };
}

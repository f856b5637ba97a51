// Which instance of a cluster does what (DATABASE_URL=postgres://…). Each instance holds a lease
// of its own (`instance:<id>`, a random id per start) from before it writes anything, renewed a
// third of the lease time apart while it lives: the work journal's rows name their instance, and
// only rows whose instance's lease lapsed are another's to finish (files/transfer.ts). Each
// background job holds `job:<name>` while one instance runs it (core/periodic.ts asks before
// every run): kept by that instance while it lives, free for another once it lapses — so a job
// runs on one instance at a time and moves when its instance dies. Leases are rows rather than
// advisory locks: an advisory lock lives on one connection, and the stores' statements share a
// pool whose connections come and go (a reconnect after PostgreSQL restarts would drop every
// lock silently); a row with an expiry survives reconnects, names its holder for `GET
// /api/admin/jobs`, and lapses by itself when its instance is gone. Clocks are the instances'
// own: keep them in step (NTP) well within the lease time.
//
// On the embedded database there is one instance: every job is its own and no other instance
// exists, so nothing is written (rows a crash left belong to no live instance).
import { randomBytes } from 'node:crypto';
import type { Database } from '../db/database.ts';
import type { Logger } from '../core/log.ts';
import { createLeaseStore, type LeaseRow } from './lease-store.ts';

export const INSTANCE_PREFIX = 'instance:';
export const JOB_PREFIX = 'job:';

export interface Leases {
  /** This instance's id (random per start). */
  readonly instance: string;
  /** The lease time (CLUSTER_LEASE_MS). */
  readonly leaseMs: number;
  /** Whether several instances may share the database (PostgreSQL). */
  readonly shared: boolean;
  /** Takes or renews job `name`'s lease for this instance; true when this instance runs it now. */
  holdJob(name: string): boolean;
  /** Whether the instance `owner` is alive (its lease runs): its journal rows are not another's. */
  alive(owner: string): boolean;
  /** The jobs' leases (who holds each, until when). */
  jobs(): LeaseRow[];
  /** Renews this instance's lease and the jobs it holds, now and every third of the lease time. */
  start(): void;
  /** Stops renewing and gives the jobs up, so another instance takes them at once. */
  stop(): void;
}

export function createLeases(deps: { db: Database; leaseMs: number; log: Logger }): Leases {
  const { db, leaseMs, log } = deps;
  const instance = randomBytes(9).toString('base64url');
  if (db.dialect === 'sqlite') {
    return {
      instance,
      leaseMs,
      shared: false,
      holdJob: () => true,
      alive: (owner) => owner === instance,
      jobs: () => [],
      start() {},
      stop() {},
    };
  }
  const store = createLeaseStore(db);
  const held = new Set<string>();
  const iso = (ms: number) => new Date(ms).toISOString();
  const hold = (name: string): boolean => {
    const now = Date.now();
    return store.hold(name, instance, iso(now), iso(now + leaseMs));
  };
  const self = `${INSTANCE_PREFIX}${instance}`;
  // Before anything this instance writes names it.
  hold(self);
  let timer: NodeJS.Timeout | undefined;
  const renew = () => {
    try {
      hold(self);
      for (const name of held) if (!hold(name)) held.delete(name);
      // An instance gone for good leaves its row; forgotten once it lapsed long ago.
      store.sweep(INSTANCE_PREFIX, iso(Date.now() - 100 * leaseMs));
    } catch (err) {
      log.warn('could not renew the cluster leases', { err });
    }
  };
  return {
    instance,
    leaseMs,
    shared: true,
    holdJob(name) {
      const key = `${JOB_PREFIX}${name}`;
      if (hold(key)) {
        held.add(key);
        return true;
      }
      held.delete(key);
      return false;
    },
    alive(owner) {
      if (owner === instance) return true;
      if (!owner) return false;
      const row = store.get(`${INSTANCE_PREFIX}${owner}`);
      return !!row && row.expires_at >= iso(Date.now());
    },
    jobs: () => store.list(JOB_PREFIX),
    start() {
      if (timer) return;
      renew();
      timer = setInterval(renew, Math.max(50, Math.floor(leaseMs / 3)));
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      try {
        for (const name of held) store.release(name, instance);
        store.release(self, instance);
      } catch {
        /* the leases lapse by themselves */
      }
      held.clear();
    },
  };
}

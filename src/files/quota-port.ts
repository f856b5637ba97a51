// What a writer asks of the quotas (src/quotas/ implements it): whom a write into a space is
// charged to, and a hold of bytes taken before they are written. Here, below every writer
// (uploads, WebDAV, copies, extractions), so none of them imports the quotas capability.
import type { Caller } from '../core/caller.ts';
import type { Space } from './paths.ts';

/** Whom a write into a space is charged to: the personal folder's account, the volume. */
export interface Charge {
  account: { userId: string; username: string; root: string } | null;
  volume: { name: string; root: string } | null;
}

/** Bytes taken ahead of a write. */
export interface Hold {
  /** Takes `bytes` more, or throws QUOTA_EXCEEDED taking nothing. */
  add(bytes: number): void;
  /** The bytes are placed at `paths` (real): they stay counted until the index has counted those. */
  land(paths: readonly string[]): void;
  /** The write ended without placing anything (refused, cancelled, expired). */
  release(): void;
  readonly bytes: number;
}

export interface QuotaPort {
  /** Whom a write by `caller` into `space` is charged to, or null when no quota applies there. */
  chargeFor(caller: Caller, space: Space): Charge | null;
  /**
   * A hold of `bytes` (0: to grow as a body streams), or 507 QUOTA_EXCEEDED. `name` names a hold
   * that outlives its request (a resumable upload's, `tus:<id>`): taken again by that name — on
   * a cluster by whichever instance receives the next request — it replaces the one held, its
   * bytes counted once. On a cluster such a hold stays held when its object is let go without
   * land() or release(), until it is taken again, dropped or its instance's lease lapses.
   */
  hold(charge: Charge | null, bytes?: number, name?: string): Hold;
  /** Ends the named hold wherever it was taken (a terminated or expired resumable upload). */
  drop(name: string): void;
}

/** The hold where no quota applies. */
export const NO_HOLD: Hold = { add() {}, land() {}, release() {}, bytes: 0 };

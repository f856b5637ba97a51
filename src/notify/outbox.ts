// The outbox's writing side: the activity log hands each row here inside the transaction that
// writes the row, so an event exists exactly when its row does (a crash keeps both or neither).
// Built before the services that send (app.ts gives it to the activity log first); the sender
// subscribes to `written` to start at once instead of at its next tick.
import { randomBytes } from 'node:crypto';
import { onNextTurn } from '../core/next-turn.ts';
import type { QuotaReading } from '../quotas/service.ts';
import { kindOf, mayNotify, QUOTA_MARK } from './events.ts';
import type { NotifyStore } from './store.ts';

export interface OutboxEvent {
  action: string;
  outcome: string;
  userId: string | null;
  username: string | null;
  ip: string | null;
  /** The activity row's detail as written (JSON), or null. */
  detail: string | null;
}

export type Outbox = ReturnType<typeof createOutbox>;

export const newEventId = (): string => `evt_${randomBytes(15).toString('base64url')}`;

const rowOf = (event: OutboxEvent, activityId: number | null, at: string) => ({
  id: newEventId(),
  at,
  action: event.action,
  outcome: event.outcome,
  user_id: event.userId,
  username: event.username,
  ip: event.ip,
  detail: event.detail,
  activity_id: activityId,
});

export function createOutbox(store: NotifyStore) {
  const listeners = new Set<() => void>();
  // After the transaction that wrote the event has committed.
  const wake = onNextTurn(() => {
    for (const fn of listeners) fn();
  });
  /**
   * A state of the server's own (not an activity row: a quota past its mark, a volume gone)
   * starts or ends; `event` is raised only when that changes the kept state — once per start,
   * never again while it holds.
   */
  function state(key: string, on: boolean, event: OutboxEvent | null): void {
    const at = new Date().toISOString();
    if (store.setState(key, on, at, event ? rowOf(event, null, at) : null) && event) wake();
  }
  const serverEvent = (action: string, userId: string | null, username: string | null, detail: object) => ({
    action,
    outcome: 'success',
    userId,
    username,
    ip: null,
    detail: JSON.stringify(detail),
  });

  return {
    /** Before anything is written: may this action become a notification? */
    wants: (action: string): boolean => mayNotify(action),

    /** Inside the activity row's transaction. */
    record(event: OutboxEvent, activityId: number | null, at: string): void {
      let detail: Record<string, unknown> | null = null;
      try {
        detail = event.detail ? (JSON.parse(event.detail) as Record<string, unknown>) : null;
      } catch {
        detail = null;
      }
      const kind = kindOf({ action: event.action, outcome: event.outcome, userId: event.userId, detail });
      if (!kind) return;
      let row = rowOf(event, activityId, at);
      if (kind === 'signin.new-address' || kind === 'signin.new-device') {
        // The first address an account is seen from is not news; a later new one is. Every
        // sign-in's address becomes known, a new device's too.
        if (!event.userId) return;
        const known = event.ip ? store.hasKnownAddress(event.userId) : false;
        const newAddress = event.ip ? store.firstFromAddress(event.userId, event.ip, at) && known : false;
        if (kind === 'signin.new-address' && !newAddress) return;
        // A new device from a new address is one notification that says both (auth/ wrote 'new'
        // only when the account already had a device: the first one is not news).
        if (kind === 'signin.new-device' && newAddress)
          row = { ...row, detail: JSON.stringify({ ...detail, newAddress }) };
      }
      store.addEvent(row);
      wake();
    },

    state,

    /**
     * A placement's figures against a limit: past QUOTA_MARK, its account (or for a volume's
     * quota, the administrators) is told once — again only after a placement found it below.
     */
    placed(r: QuotaReading): void {
      const key = `quota:${r.scope}:${r.scope === 'account' ? r.userId : r.name.toLowerCase()}`;
      const mark = r.limitBytes * QUOTA_MARK;
      if (r.beforeBytes < mark) state(key, false, null);
      if (r.afterBytes >= mark)
        state(
          key,
          true,
          serverEvent('quota.nearly-full', r.userId, r.scope === 'account' ? r.name : null, {
            scope: r.scope,
            name: r.name,
            usedBytes: r.afterBytes,
            limitBytes: r.limitBytes,
          }),
        );
    },

    /**
     * A disk under Burrow's folders (readDisks): at or past QUOTA_MARK of its size, the
     * administrators are told once — again only after a check found it below.
     */
    disk(key: string, names: string, sizeBytes: number, freeBytes: number): boolean {
      const full = sizeBytes - freeBytes >= sizeBytes * QUOTA_MARK;
      state(
        `disk:${key}`,
        full,
        full ? serverEvent('disk.nearly-full', null, null, { scope: 'disk', name: names, sizeBytes, freeBytes }) : null,
      );
      return full;
    },

    /** What the volume check found of a configured volume's folder: gone (once), back (once). */
    volume(label: string, problem: string | null): void {
      const key = `volume:${label.toLowerCase()}`;
      if (problem) state(key, true, serverEvent('volume.missing', null, null, { label, reason: problem }));
      else state(key, false, serverEvent('volume.back', null, null, { label, back: true }));
    },

    /**
     * A background job failing again and again (jobs/service.ts): told to the administrators
     * once, and once when it works again — the state is a row, so never twice across instances.
     */
    job(name: string, label: string, failing: boolean, detail: { failures: number; error: string | null }): void {
      const key = `job:${name}`;
      if (failing) state(key, true, serverEvent('job.failed', null, null, { job: name, label, ...detail }));
      else state(key, false, serverEvent('job.recovered', null, null, { job: name, label, recovered: true }));
    },

    /** What the volume check found of a read-write volume's folder: read-only (once), writable again (once). */
    volumeWritable(label: string, readOnly: string | null): void {
      const key = `volume-read-only:${label.toLowerCase()}`;
      if (readOnly) state(key, true, serverEvent('volume.read-only', null, null, { label, reason: readOnly }));
      else state(key, false, serverEvent('volume.writable', null, null, { label, back: true }));
    },

    /** Test events and the like, written outside the activity log. */
    written: wake,

    subscribe(fn: () => void): () => void {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
  };
}

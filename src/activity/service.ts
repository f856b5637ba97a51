// The activity log: who did what, when, from where. Off until an administrator turns it on.
// Writing a row never fails the request it describes: errors are logged and swallowed.
import type { Caller } from '../core/caller.ts';
import type { Logger } from '../core/log.ts';
import type { ActivityDbRow, ActivityStore } from './store.ts';
import type { ActivityPage, ActivityQuery, ActivityRow } from './wire.ts';

export type { ActivityQuery, ActivityRow } from './wire.ts';

export type Outcome = 'success' | 'failure';

export interface ActivityEvent {
  action: string;
  outcome: Outcome;
  userId?: string | null;
  username?: string | null;
  ip?: string | null;
  detail?: Record<string, unknown> | string | null;
}

export interface ActivityConfig {
  enabled: boolean;
  retentionDays: number;
}

/** The kinds of event this build writes (others' capabilities may add theirs through `record`). */
export const ACTIONS = [
  'auth.setup',
  'auth.login',
  'auth.logout',
  'auth.lockout',
  'auth.password-change',
  'auth.password-add',
  'auth.totp-enable',
  'auth.totp-disable',
  'auth.totp-recovery-codes',
  'auth.passkey-add',
  'auth.passkey-remove',
  'auth.passkey-clone-suspected',
  'auth.oidc-create',
  'auth.oidc-link',
  'auth.oidc-role-change',
  'token.issue',
  'token.rename',
  'token.revoke',
  'token.refused',
  'admin.user-create',
  'admin.user-update',
  'admin.user-delete',
  'admin.password-reset',
  'admin.user-unlock',
  'admin.role-restore',
  'admin.settings-change',
  'admin.activity-clear',
  'admin.totp-remove',
  'admin.passkeys-remove',
  'admin.lock-break',
  'terminal.start',
  'terminal.end',
  'dav.put',
  'dav.delete',
  'dav.mkcol',
  'dav.copy',
  'dav.move',
  'files.upload',
  'files.create-folder',
  'files.create-file',
  'files.rename',
  'files.move',
  'files.copy',
  'files.delete',
  'trash.restore',
  'trash.purge',
  'trash.empty',
  'editor.save',
  'office.save',
  'archive.extract',
  'archive.compress',
  'share.create',
  'share.update',
  'share.delete',
  'share.file-request.received',
  'share.link.opened',
  'share.link.downloaded',
] as const;

export interface ActivityDeps {
  store: ActivityStore;
  log: Logger;
  config: () => ActivityConfig;
  /** Names of accounts, for rows that give only the id. */
  usernameOf?: (id: string) => string | null;
  /**
   * What follows from a row (the notification outbox): written in the row's transaction, and
   * whether or not the log itself is on.
   */
  follower?: ActivityFollower;
}

export interface ActivityFollower {
  wants(action: string): boolean;
  record(
    row: {
      action: string;
      outcome: string;
      userId: string | null;
      username: string | null;
      ip: string | null;
      detail: string | null;
    },
    activityId: number | null,
    at: string,
  ): void;
}

export type ActivityService = ReturnType<typeof createActivity>;

export function createActivity({ store, log, config, usernameOf = () => null, follower }: ActivityDeps) {
  const extraActions = new Set<string>();

  const isEnabled = (): boolean => {
    try {
      return config().enabled;
    } catch {
      return false;
    }
  };

  function record(event: ActivityEvent): void {
    try {
      const enabled = isEnabled();
      const follows = follower?.wants(event.action) ?? false;
      if (!enabled && !follows) return;
      if (!(ACTIONS as readonly string[]).includes(event.action)) extraActions.add(event.action);
      const username = event.username ?? (event.userId ? usernameOf(event.userId) : null);
      const detail = event.detail == null ? null : JSON.stringify(event.detail);
      const row = {
        at: new Date().toISOString(),
        action: event.action,
        outcome: event.outcome,
        user_id: event.userId ?? null,
        username,
        ip: event.ip ?? null,
        detail,
      };
      store.atomically(() => {
        const id = enabled ? store.insert(row) : null;
        if (follows)
          follower!.record(
            { action: row.action, outcome: row.outcome, userId: row.user_id, username, ip: row.ip, detail },
            id,
            row.at,
          );
      });
    } catch (err) {
      log.warn('could not write an activity row', { action: event.action, err });
    }
  }

  const actions = (): string[] => [...ACTIONS, ...[...extraActions].sort()];

  function query(q: ActivityQuery): { rows: ActivityRow[]; nextBefore: string | null } {
    if (!isEnabled()) return { rows: [], nextBefore: null };
    const rows = store.page(
      {
        action: q.action,
        outcome: q.outcome,
        user: q.user,
        from: q.from,
        to: q.to,
        needle: q.q ? q.q.toLowerCase() : undefined,
        before: q.before,
      },
      q.limit + 1,
    );
    const more = rows.length > q.limit;
    const page = rows.slice(0, q.limit).map(toWire);
    return { rows: page, nextBefore: more ? page[page.length - 1]!.id : null };
  }

  return {
    get enabled(): boolean {
      return isEnabled();
    },

    record,

    /** Records once per `windowMs` per key (refused token uses). */
    recordThrottled(key: string, windowMs: number, event: ActivityEvent): void {
      try {
        if (!isEnabled()) return;
        const now = Date.now();
        if (store.claim(key, now, now - windowMs)) record(event);
      } catch (err) {
        log.warn('could not write an activity row', { action: event.action, err });
      }
    },

    actions,
    query,

    /** One page of rows, with what the log screen needs beside them. */
    page(q: ActivityQuery): ActivityPage {
      const { rows, nextBefore } = query(q);
      return { rows, nextBefore, enabled: isEnabled(), actions: actions() };
    },

    clear: (): number => store.clear(),

    /** Empties the log, then records who did it and how many rows went. */
    clearBy(admin: Caller, ip: string): { removed: number } {
      const removed = store.clear();
      record({
        action: 'admin.activity-clear',
        outcome: 'success',
        userId: admin.userId,
        username: admin.username,
        ip,
        detail: { removed },
      });
      return { removed };
    },

    /** Drops rows older than the retention period. */
    sweep(): number {
      const { retentionDays } = config();
      return store.sweep(new Date(Date.now() - retentionDays * 86_400_000).toISOString(), Date.now() - 86_400_000);
    },
  };
}

function toWire(row: ActivityDbRow): ActivityRow {
  let detail: unknown = null;
  if (row.detail) {
    try {
      detail = JSON.parse(row.detail);
    } catch {
      detail = row.detail;
    }
  }
  return {
    id: String(row.id),
    time: row.at,
    action: row.action,
    outcome: row.outcome,
    userId: row.user_id,
    username: row.username,
    address: row.ip,
    detail,
  };
}

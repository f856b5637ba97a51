// Notifications' rows: destinations (secrets sealed by the service), each account's choices,
// the outbox of events, the deliveries with their retry state, and known sign-in addresses.
import type { Database } from '../db/database.ts';

export interface DestinationRow {
  id: string;
  kind: 'webhook' | 'ntfy' | 'email' | 'push';
  name: string;
  url: string;
  topic: string | null;
  /** E-mail only: the SMTP settings as JSON (the password is `secret_sealed`). */
  smtp: string | null;
  secret_sealed: string | null;
  enabled: number;
  created_at: string;
}

export interface EventRow {
  id: string;
  at: string;
  action: string;
  outcome: string;
  user_id: string | null;
  username: string | null;
  ip: string | null;
  detail: string | null;
  activity_id: number | null;
  state: string;
}

export interface DeliveryRow {
  id: string;
  event_id: string;
  destination_id: string;
  user_id: string;
  kind: string;
  payload: string;
  state: 'held' | 'pending' | 'sent' | 'dead' | 'digested';
  attempts: number;
  next_at: number;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  done_at: string | null;
  /** A 'digested' delivery: the digest it went out in. */
  digest_id: string | null;
}

export interface PushSubscriptionRow {
  id: string;
  user_id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  created_at: string;
}

export interface InboxRow {
  id: string;
  user_id: string;
  event_id: string;
  kind: string;
  title: string;
  text: string;
  paths: string;
  at: string;
  read_at: string | null;
}

export type NewDelivery = Pick<DeliveryRow, 'id' | 'event_id' | 'destination_id' | 'user_id' | 'kind' | 'payload'> & {
  /** Held until this instant (quiet hours, a digest); left out: due at once. */
  heldUntil?: number;
};

export interface NotifyStore {
  destinations(): DestinationRow[];
  destination(id: string): DestinationRow | undefined;
  addDestination(row: DestinationRow): void;
  updateDestination(
    id: string,
    change: { name: string; url: string; topic: string | null; smtp: string | null; enabled: boolean },
  ): boolean;
  setDestinationSecret(id: string, sealed: string | null): void;
  /** Removes the destination and what was still to be sent to it. */
  removeDestination(id: string): boolean;

  prefs(userId: string): string | undefined;
  allPrefs(): { user_id: string; prefs: string }[];
  putPrefs(userId: string, prefs: string): void;
  emailOff(userId: string): string[];
  /** Turns the account's e-mails of these kinds off (adds); `replace` sets exactly these. */
  setEmailOff(userId: string, kinds: readonly string[], at: string, replace: boolean): void;
  /** The account's unsubscribe token, sealed, or undefined before its first e-mail. */
  unsubscribeToken(userId: string): string | undefined;
  /** Keeps the account's token (the first one written wins); answers the sealed token kept. */
  addUnsubscribeToken(userId: string, mac: string, sealed: string, at: string): string;
  unsubscribeOwner(mac: string): string | undefined;

  /** The outbox row; called inside the activity row's transaction. */
  addEvent(row: Omit<EventRow, 'state'>): void;
  /**
   * A state of the server's own starts (`on`) or ends: its row written or removed, and when that
   * changed anything, `event` (if any) added in the same transaction. True when it changed.
   */
  setState(key: string, on: boolean, at: string, event: Omit<EventRow, 'state'> | null): boolean;
  newEvents(limit: number): EventRow[];
  /** Writes the deliveries and the bell's rows and marks the event fanned out, in one transaction. */
  fanOut(
    eventId: string,
    deliveries: readonly NewDelivery[],
    now: number,
    at: string,
    inbox?: readonly Omit<InboxRow, 'read_at'>[],
  ): void;

  vapid(): { public_key: string; private_sealed: string } | undefined;
  /** The first pair written is kept (two starts at once); answers the kept one. */
  addVapid(publicKey: string, privateSealed: string, at: string): { public_key: string; private_sealed: string };
  pushSubscriptions(userId: string): PushSubscriptionRow[];
  /** A browser's subscription (its endpoint again: its keys and owner replaced). */
  putPushSubscription(row: PushSubscriptionRow): void;
  removePushSubscription(userId: string, endpoint: string): boolean;
  removePushEndpoint(endpoint: string): void;

  inbox(userId: string, limit: number): InboxRow[];
  /** The items among `ids` that are `userId`'s (any other's are not answered), newest first. */
  inboxItems(userId: string, ids: readonly string[]): InboxRow[];
  unread(userId: string): number;
  markRead(userId: string, ids: readonly string[] | null, at: string): number;
  /** True (and remembered) when the account had not signed in from this address before. */
  firstFromAddress(userId: string, ip: string, at: string): boolean;
  hasKnownAddress(userId: string): boolean;

  /** Held deliveries whose time has come, by account and destination. */
  heldDue(now: number, limit: number): DeliveryRow[];
  /** A held delivery due at once, on its own (it was the only one held). */
  release(id: string, now: number): void;
  /** The digest delivery and its held deliveries marked 'digested', in one transaction. */
  digest(d: NewDelivery, held: readonly string[], now: number, at: string): void;
  due(now: number, limit: number): DeliveryRow[];
  nextDue(): number | undefined;
  delivery(id: string): DeliveryRow | undefined;
  markSent(id: string, attempts: number, status: number, at: string): void;
  markRetry(id: string, attempts: number, nextAt: number, status: number | null, error: string): void;
  markDead(id: string, attempts: number, status: number | null, error: string, at: string): void;
  /** A dead delivery back to pending now (its id, hence its webhook-id, unchanged). */
  revive(id: string, now: number): boolean;
  /** Newest first. */
  list(state: DeliveryRow['state'], limit: number): DeliveryRow[];
  /** Deliveries that ended more than `before` ago, and fanned events with no delivery left. */
  sweep(before: string): number;
}

export function createNotifyStore(db: Database): NotifyStore {
  const addEvent = (r: Omit<EventRow, 'state'>): void => {
    db.run(
      'INSERT INTO notify_events (id, at, action, outcome, user_id, username, ip, detail, activity_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [r.id, r.at, r.action, r.outcome, r.user_id, r.username, r.ip, r.detail, r.activity_id],
    );
  };
  return {
    destinations: () => db.all<DestinationRow>('SELECT * FROM notify_destinations ORDER BY created_at, id'),
    destination: (id) => db.get<DestinationRow>('SELECT * FROM notify_destinations WHERE id = ?', [id]),
    addDestination(r) {
      db.run(
        'INSERT INTO notify_destinations (id, kind, name, url, topic, smtp, secret_sealed, enabled, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [r.id, r.kind, r.name, r.url, r.topic, r.smtp, r.secret_sealed, r.enabled, r.created_at],
      );
    },
    updateDestination: (id, c) =>
      db.run('UPDATE notify_destinations SET name = ?, url = ?, topic = ?, smtp = ?, enabled = ? WHERE id = ?', [
        c.name,
        c.url,
        c.topic,
        c.smtp,
        c.enabled ? 1 : 0,
        id,
      ]).changes > 0,
    setDestinationSecret(id, sealed) {
      db.run('UPDATE notify_destinations SET secret_sealed = ? WHERE id = ?', [sealed, id]);
    },
    removeDestination: (id) =>
      db.transaction(() => {
        db.run("DELETE FROM notify_deliveries WHERE destination_id = ? AND state != 'sent'", [id]);
        return db.run('DELETE FROM notify_destinations WHERE id = ?', [id]).changes > 0;
      }),

    prefs: (userId) => db.get<{ prefs: string }>('SELECT prefs FROM notify_prefs WHERE user_id = ?', [userId])?.prefs,
    allPrefs: () => db.all<{ user_id: string; prefs: string }>('SELECT user_id, prefs FROM notify_prefs'),
    putPrefs(userId, prefs) {
      db.run(
        'INSERT INTO notify_prefs (user_id, prefs) VALUES (?1, ?2) ON CONFLICT (user_id) DO UPDATE SET prefs = ?2',
        [userId, prefs],
      );
    },
    emailOff: (userId) =>
      db
        .all<{ kind: string }>('SELECT kind FROM notify_email_off WHERE user_id = ? ORDER BY kind', [userId])
        .map((r) => r.kind),
    setEmailOff(userId, kinds, at, replace) {
      db.transaction(() => {
        if (replace) db.run('DELETE FROM notify_email_off WHERE user_id = ?', [userId]);
        for (const kind of kinds)
          db.run('INSERT INTO notify_email_off (user_id, kind, at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', [
            userId,
            kind,
            at,
          ]);
      });
    },
    unsubscribeToken: (userId) =>
      db.get<{ token_sealed: string }>('SELECT token_sealed FROM notify_unsubscribe WHERE user_id = ?', [userId])
        ?.token_sealed,
    addUnsubscribeToken(userId, mac, sealed, at) {
      db.run(
        'INSERT INTO notify_unsubscribe (user_id, token_mac, token_sealed, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
        [userId, mac, sealed, at],
      );
      return db.get<{ token_sealed: string }>('SELECT token_sealed FROM notify_unsubscribe WHERE user_id = ?', [
        userId,
      ])!.token_sealed;
    },
    unsubscribeOwner: (mac) =>
      db.get<{ user_id: string }>('SELECT user_id FROM notify_unsubscribe WHERE token_mac = ?', [mac])?.user_id,

    addEvent,
    setState: (key, on, at, event) =>
      db.transaction(() => {
        const changed = on
          ? db.run('INSERT INTO notify_states (key, since) VALUES (?, ?) ON CONFLICT DO NOTHING', [key, at]).changes > 0
          : db.run('DELETE FROM notify_states WHERE key = ?', [key]).changes > 0;
        if (changed && event) addEvent(event);
        return changed;
      }),
    newEvents: (limit) =>
      db.all<EventRow>("SELECT * FROM notify_events WHERE state = 'new' ORDER BY at, id LIMIT ?", [limit]),
    fanOut(eventId, deliveries, now, at, inbox = []) {
      db.transaction(() => {
        for (const r of inbox)
          db.run(
            'INSERT INTO notify_inbox (id, user_id, event_id, kind, title, text, paths, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
            [r.id, r.user_id, r.event_id, r.kind, r.title, r.text, r.paths, r.at],
          );
        for (const d of deliveries)
          db.run(
            'INSERT INTO notify_deliveries (id, event_id, destination_id, user_id, kind, payload, state, next_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
            [
              d.id,
              d.event_id,
              d.destination_id,
              d.user_id,
              d.kind,
              d.payload,
              d.heldUntil === undefined ? 'pending' : 'held',
              d.heldUntil ?? now,
              at,
            ],
          );
        db.run("UPDATE notify_events SET state = 'fanned' WHERE id = ?", [eventId]);
      });
    },
    vapid: () => db.get<{ public_key: string; private_sealed: string }>('SELECT * FROM notify_vapid WHERE id = 1'),
    addVapid(publicKey, privateSealed, at) {
      db.run(
        'INSERT INTO notify_vapid (id, public_key, private_sealed, created_at) VALUES (1, ?, ?, ?) ON CONFLICT DO NOTHING',
        [publicKey, privateSealed, at],
      );
      return db.get<{ public_key: string; private_sealed: string }>('SELECT * FROM notify_vapid WHERE id = 1')!;
    },
    pushSubscriptions: (userId) =>
      db.all<PushSubscriptionRow>('SELECT * FROM notify_push_subscriptions WHERE user_id = ? ORDER BY created_at', [
        userId,
      ]),
    putPushSubscription(r) {
      db.run(
        'INSERT INTO notify_push_subscriptions (id, user_id, endpoint, p256dh, auth, created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (endpoint) DO UPDATE SET user_id = excluded.user_id, p256dh = excluded.p256dh, auth = excluded.auth, created_at = excluded.created_at',
        [r.id, r.user_id, r.endpoint, r.p256dh, r.auth, r.created_at],
      );
    },
    removePushSubscription: (userId, endpoint) =>
      db.run('DELETE FROM notify_push_subscriptions WHERE user_id = ? AND endpoint = ?', [userId, endpoint]).changes >
      0,
    removePushEndpoint(endpoint) {
      db.run('DELETE FROM notify_push_subscriptions WHERE endpoint = ?', [endpoint]);
    },
    inbox: (userId, limit) =>
      db.all<InboxRow>('SELECT * FROM notify_inbox WHERE user_id = ? ORDER BY at DESC, id LIMIT ?', [userId, limit]),
    inboxItems: (userId, ids) =>
      ids.length === 0
        ? []
        : db.all<InboxRow>(
            `SELECT * FROM notify_inbox WHERE user_id = ? AND id IN (${ids.map(() => '?').join(', ')}) ORDER BY at DESC, id`,
            [userId, ...ids],
          ),
    unread: (userId) =>
      db.get<{ n: number }>('SELECT count(*) AS n FROM notify_inbox WHERE user_id = ? AND read_at IS NULL', [userId])
        ?.n ?? 0,
    markRead: (userId, ids, at) =>
      ids === null
        ? db.run('UPDATE notify_inbox SET read_at = ? WHERE user_id = ? AND read_at IS NULL', [at, userId]).changes
        : db.transaction(() => {
            let n = 0;
            for (const id of ids)
              n += db.run('UPDATE notify_inbox SET read_at = ? WHERE user_id = ? AND id = ? AND read_at IS NULL', [
                at,
                userId,
                id,
              ]).changes;
            return n;
          }),
    firstFromAddress: (userId, ip, at) =>
      db.run('INSERT INTO notify_known_addresses (user_id, ip, first_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', [
        userId,
        ip,
        at,
      ]).changes > 0,
    hasKnownAddress: (userId) =>
      db.get('SELECT 1 AS one FROM notify_known_addresses WHERE user_id = ? LIMIT 1', [userId]) !== undefined,

    heldDue: (now, limit) =>
      db.all<DeliveryRow>(
        "SELECT * FROM notify_deliveries WHERE state = 'held' AND next_at <= ? ORDER BY user_id, destination_id, created_at, id LIMIT ?",
        [now, limit],
      ),
    release(id, now) {
      db.run("UPDATE notify_deliveries SET state = 'pending', next_at = ? WHERE id = ? AND state = 'held'", [now, id]);
    },
    digest(d, held, now, at) {
      db.transaction(() => {
        db.run(
          'INSERT INTO notify_deliveries (id, event_id, destination_id, user_id, kind, payload, next_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
          [d.id, d.event_id, d.destination_id, d.user_id, d.kind, d.payload, now, at],
        );
        for (const id of held)
          db.run(
            "UPDATE notify_deliveries SET state = 'digested', digest_id = ?, done_at = ? WHERE id = ? AND state = 'held'",
            [d.id, at, id],
          );
      });
    },
    due: (now, limit) =>
      db.all<DeliveryRow>(
        "SELECT * FROM notify_deliveries WHERE state = 'pending' AND next_at <= ? ORDER BY next_at, id LIMIT ?",
        [now, limit],
      ),
    nextDue: () =>
      db.get<{ next: number | null }>("SELECT min(next_at) AS next FROM notify_deliveries WHERE state = 'pending'")
        ?.next ?? undefined,
    delivery: (id) => db.get<DeliveryRow>('SELECT * FROM notify_deliveries WHERE id = ?', [id]),
    markSent(id, attempts, status, at) {
      db.run(
        "UPDATE notify_deliveries SET state = 'sent', attempts = ?, last_status = ?, last_error = NULL, done_at = ? WHERE id = ?",
        [attempts, status, at, id],
      );
    },
    markRetry(id, attempts, nextAt, status, error) {
      db.run('UPDATE notify_deliveries SET attempts = ?, next_at = ?, last_status = ?, last_error = ? WHERE id = ?', [
        attempts,
        nextAt,
        status,
        error,
        id,
      ]);
    },
    markDead(id, attempts, status, error, at) {
      db.run(
        "UPDATE notify_deliveries SET state = 'dead', attempts = ?, last_status = ?, last_error = ?, done_at = ? WHERE id = ?",
        [attempts, status, error, at, id],
      );
    },
    revive: (id, now) =>
      db.run(
        "UPDATE notify_deliveries SET state = 'pending', next_at = ?, done_at = NULL WHERE id = ? AND state = 'dead'",
        [now, id],
      ).changes > 0,
    list: (state, limit) =>
      db.all<DeliveryRow>('SELECT * FROM notify_deliveries WHERE state = ? ORDER BY created_at DESC, id LIMIT ?', [
        state,
        limit,
      ]),
    sweep: (before) =>
      db.transaction(() => {
        const gone = db.run("DELETE FROM notify_deliveries WHERE state IN ('sent', 'digested') AND done_at < ?", [
          before,
        ]).changes;
        db.run('DELETE FROM notify_inbox WHERE at < ?', [before]);
        db.run(
          "DELETE FROM notify_events WHERE state = 'fanned' AND at < ? AND NOT EXISTS (SELECT 1 FROM notify_deliveries d WHERE d.event_id = notify_events.id)",
          [before],
        );
        return gone;
      }),
  };
}

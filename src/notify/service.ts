// Notifications: the administrator's destinations, each account's choices, and the sender that
// turns outbox events into deliveries and delivers them — off the request path, at least once,
// with the message id the receiver de-duplicates by, retried with backoff (and Retry-After),
// dead-lettered for the administrator to send again. A slow or dead destination holds only its
// own deliveries: each attempt has a deadline and each destination a few attempts in flight.
// Who receives an event is decided when it is fanned out, by the access check of the day: a
// folder event reaches an account only when that account can see the path itself.
import type { JobGate } from '../core/periodic.ts';
import { createHash, randomBytes } from 'node:crypto';
import type { Caller } from '../core/caller.ts';
import { AppError } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import type { PathResolver } from '../files/paths.ts';
import type { SecretBox } from '../db/secret-box.ts';
import { createRequire } from 'node:module';
import { parseSmtp, type MailTarget, type SmtpSettings } from './email.ts';
import { pushEndpointAllowed, type PushTarget } from './push.ts';
import { isFolderKind, KIND_LABELS, kindOf, pathsOf, recipientsOf as sharedWith, takenAs, wordsFor } from './events.ts';
import { newEventId, type Outbox } from './outbox.ts';
import { listed, readDisks, type DiskFolder } from './disks.ts';
import { attempt, newWebhookSecret, type Attempt, type Target } from './send.ts';
import { releaseAt, type Clock, type DeliveryMode } from './schedule.ts';
import type { DeliveryRow, DestinationRow, EventRow, InboxRow, NewDelivery, NotifyStore } from './store.ts';
import { DEFAULT_SCHEDULE } from './wire.ts';
import type {
  DigestItem,
  EventBody,
  EventKind,
  InboxChange,
  InboxItem,
  Prefs,
  WireDelivery,
  WireDestination,
} from './wire.ts';
import type { z } from 'zod';
import type {
  addDestinationBody,
  markReadBody,
  prefsBody,
  pushSubscriptionBody,
  updateDestinationBody,
} from './wire.ts';

export interface NotifyAccount {
  id: string;
  username: string;
  isAdmin: boolean;
  /** Where e-mail destinations send this account's messages (none: no e-mail). */
  email: string | null;
}

export interface NotifyDeps {
  /** Where the sender runs (the one instance of a cluster holding its lease) and how its passes went. */
  jobs?: JobGate;
  store: NotifyStore;
  outbox: Outbox;
  box: SecretBox;
  resolver: PathResolver;
  log: Logger;
  /** The account as a caller (for the access check), or null when it is gone. */
  callerFor: (userId: string) => Caller | null;
  accounts: () => NotifyAccount[];
  /** Origins of push services besides the known ones (PUSH_SERVICES). */
  pushServices?: readonly string[];
  /** Tests and the environment: how long one attempt may take. */
  attemptTimeoutMs?: number;
  /** What quiet hours and digests take as now (NOTIFY_CLOCK_FILE for tests); the system clock by default. */
  clock?: Clock;
  /**
   * The volume check: each configured volume's trouble (its folder gone, unreadable), or null;
   * and for one mounted read-write, why nothing can be written there, or null.
   */
  volumes?: () => Promise<{ label: string; problem: string | null; readOnly?: string | null; path?: string }[]>;
  /** Burrow's own folders whose disks the volume check watches (the data folder, the volumes, the personal folders); each volume's folder is added. */
  disks?: () => DiskFolder[];
}

/** After the nth failed attempt, wait this long (then the last one again), up to MAX_ATTEMPTS. */
const BACKOFF_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 3_600_000, 3_600_000];
export const MAX_ATTEMPTS = 10;
/** A Retry-After beyond this is capped (a receiver cannot park a message for days). */
const MAX_RETRY_AFTER_MS = 6 * 3_600_000;
const PER_DESTINATION = 2;
const IN_FLIGHT = 16;
const TICK_MS = 1_000;
/** The sender's name among the background jobs. */
const SEND_JOB = 'notify.send';
const KEEP_SENT_MS = 7 * 86_400_000;
/** How often the configured volumes' folders are looked at (by the notifications' clock). */
const VOLUME_CHECK_MS = 60_000;
/** The volume check's name among the background jobs. */
const VOLUME_JOB = 'volumes.check';

const EMPTY_PREFS: Omit<Prefs, 'emailOff'> = { kinds: [], destinations: [], folders: [], ...DEFAULT_SCHEDULE };
/** Most events one digest lists (the rest are counted). */
const DIGEST_LISTS = 50;

export type NotifyService = ReturnType<typeof createNotify>;
/** An account's inbox changed: `items` are new (none when some were only marked read). */
export type InboxListener = (userId: string, change: InboxChange) => void;

export function createNotify(deps: NotifyDeps) {
  const { store, box, resolver, log } = deps;
  const timeoutMs = deps.attemptTimeoutMs ?? 15_000;
  const clock = deps.clock ?? Date.now;
  const secretContext = (id: string) => `notify-destination:${id}`;

  // ── destinations (administrator) ───────────────────────────────────────────────────────────
  const toWireDestination = (r: DestinationRow): WireDestination => ({
    id: r.id,
    kind: r.kind,
    name: r.name,
    url: r.url,
    topic: r.topic,
    smtp: smtpOf(r),
    enabled: r.enabled === 1,
    hasSecret: r.secret_sealed !== null,
    createdAt: r.created_at,
  });
  function smtpOf(r: DestinationRow): WireDestination['smtp'] {
    const smtp = r.kind === 'email' ? parseSmtp(r.smtp) : null;
    if (!smtp) return null;
    return {
      host: smtp.host,
      port: smtp.port,
      security: smtp.security,
      username: smtp.username,
      from: smtp.from,
      hasCa: smtp.tlsCa !== null,
    };
  }
  const credentialsInClear = (smtp: SmtpSettings) =>
    smtp.security === 'none' && smtp.username !== null
      ? new AppError('BAD_REQUEST', 'A user name and password are sent only over TLS: choose STARTTLS or TLS.')
      : null;
  const mustDestination = (id: string): DestinationRow => {
    const row = store.destination(id);
    if (!row) throw new AppError('NOT_FOUND', 'No such destination.');
    return row;
  };

  function addDestination(body: z.infer<typeof addDestinationBody>) {
    const id = `dst_${randomBytes(12).toString('base64url')}`;
    const secret =
      body.kind === 'webhook'
        ? newWebhookSecret()
        : body.kind === 'ntfy'
          ? (body.token ?? null)
          : body.kind === 'email'
            ? (body.password ?? null)
            : null;
    let smtp: SmtpSettings | null = null;
    if (body.kind === 'email') {
      smtp = {
        host: body.host,
        port: body.port,
        security: body.security,
        username: body.username ?? null,
        from: body.from,
        tlsCa: body.tlsCa ?? null,
      };
      const refused = credentialsInClear(smtp);
      if (refused) throw refused;
    }
    store.addDestination({
      id,
      kind: body.kind,
      name: body.name,
      url: body.kind === 'email' ? body.url.replace(/\/+$/, '') : body.kind === 'push' ? '' : body.url,
      topic: body.kind === 'ntfy' ? body.topic : null,
      smtp: smtp ? JSON.stringify(smtp) : null,
      secret_sealed: secret === null ? null : box.seal(secret, secretContext(id)),
      enabled: 1,
      created_at: new Date().toISOString(),
    });
    return {
      destination: toWireDestination(mustDestination(id)),
      secret: body.kind === 'webhook' ? secret : null,
    };
  }

  function updateDestination(id: string, change: z.infer<typeof updateDestinationBody>) {
    const row = mustDestination(id);
    if (change.topic !== undefined && row.kind !== 'ntfy')
      throw new AppError('BAD_REQUEST', 'Only an ntfy destination has a topic.');
    if (change.token !== undefined && row.kind !== 'ntfy')
      throw new AppError(
        'BAD_REQUEST',
        row.kind === 'webhook'
          ? 'A webhook’s secret is made by Burrow; add the destination again for a new one.'
          : 'An e-mail destination has a password, not a token.',
      );
    const smtpChange = [
      change.host,
      change.port,
      change.security,
      change.username,
      change.password,
      change.from,
      change.tlsCa,
    ];
    let smtp = parseSmtp(row.smtp);
    if (row.kind !== 'email' || !smtp) {
      if (smtpChange.some((v) => v !== undefined))
        throw new AppError('BAD_REQUEST', 'Only an e-mail destination has an SMTP server.');
    } else {
      smtp = {
        host: change.host ?? smtp.host,
        port: change.port ?? smtp.port,
        security: change.security ?? smtp.security,
        username: change.username === undefined ? smtp.username : change.username,
        from: change.from ?? smtp.from,
        tlsCa: change.tlsCa === undefined ? smtp.tlsCa : change.tlsCa,
      };
      const refused = credentialsInClear(smtp);
      if (refused) throw refused;
    }
    store.updateDestination(id, {
      name: change.name ?? row.name,
      url: change.url === undefined ? row.url : row.kind === 'email' ? change.url.replace(/\/+$/, '') : change.url,
      topic: change.topic ?? row.topic,
      smtp: smtp && row.kind === 'email' ? JSON.stringify(smtp) : row.smtp,
      enabled: change.enabled ?? row.enabled === 1,
    });
    const secret = row.kind === 'email' ? change.password : change.token;
    if (secret !== undefined)
      store.setDestinationSecret(id, secret === null ? null : box.seal(secret, secretContext(id)));
    return { destination: toWireDestination(mustDestination(id)) };
  }

  // ── each account's choices ─────────────────────────────────────────────────────────────────
  /** The choices an account keeps, field by field in this one place (read back and written). */
  const kept = (p: Omit<Prefs, 'emailOff'>): Omit<Prefs, 'emailOff'> => ({
    kinds: p.kinds,
    destinations: p.destinations,
    folders: p.folders,
    timeZone: p.timeZone,
    quietHours: p.quietHours,
    dailyAt: p.dailyAt,
    delivery: p.delivery,
  });

  function prefsOf(userId: string): Prefs {
    const emailOff = store.emailOff(userId) as Prefs['emailOff'];
    const text = store.prefs(userId);
    if (!text) return { ...EMPTY_PREFS, emailOff };
    try {
      return { ...kept({ ...EMPTY_PREFS, ...(JSON.parse(text) as Partial<Prefs>) }), emailOff };
    } catch {
      return { ...EMPTY_PREFS, emailOff };
    }
  }

  async function putPrefs(caller: Caller, next: z.infer<typeof prefsBody>): Promise<{ prefs: Prefs }> {
    const enabled = new Set(
      store
        .destinations()
        .filter((d) => d.enabled === 1)
        .map((d) => d.id),
    );
    for (const id of next.destinations) if (!enabled.has(id)) throw new AppError('NOT_FOUND', 'No such destination.');
    const folders: string[] = [];
    for (const f of next.folders) {
      // Only a folder the account can see may be watched (the same 404 as for one that is not there).
      const r = await resolver.resolve(caller, f, { mustExist: true });
      if (!r.isDirectory || !r.access.canRead) throw new AppError('NOT_FOUND', 'No such folder.');
      if (!folders.includes(r.virtualPath)) folders.push(r.virtualPath);
    }
    const before = prefsOf(caller.userId);
    const known = new Set(store.destinations().map((d) => d.id));
    const delivery = next.delivery ?? before.delivery;
    const prefs = kept({
      ...before,
      kinds: [...new Set(next.kinds)],
      destinations: [...new Set(next.destinations)],
      folders,
      ...(next.timeZone === undefined ? {} : { timeZone: next.timeZone }),
      ...(next.quietHours === undefined ? {} : { quietHours: next.quietHours }),
      ...(next.dailyAt === undefined ? {} : { dailyAt: next.dailyAt }),
      // A destination removed since is forgotten.
      delivery: {
        destinations: Object.fromEntries(Object.entries(delivery.destinations).filter(([id]) => known.has(id))),
        kinds: delivery.kinds,
      },
    });
    store.putPrefs(caller.userId, JSON.stringify(prefs));
    if (next.emailOff) store.setEmailOff(caller.userId, next.emailOff, new Date().toISOString(), true);
    return { prefs: prefsOf(caller.userId) };
  }

  // ── fan-out: an event to the deliveries of the accounts that may and want to receive it ──────
  /** A message's id from what makes it (its parts, one per line): the same parts, the same id. */
  const hashId = (...parts: string[]) =>
    `msg_${createHash('sha256').update(parts.join('\n')).digest('base64url').slice(0, 32)}`;
  const messageId = (eventId: string, destinationId: string, userId: string) => hashId(eventId, destinationId, userId);

  const watches = (folders: readonly string[], p: string) =>
    folders.some((f) => f === '' || p === f || p.startsWith(f.endsWith('/') ? f : `${f}/`));

  /** The event's paths as `recipient` sees them, those it may see only. */
  async function visiblePaths(actor: Caller, recipient: Caller, paths: string[]): Promise<string[]> {
    const out: string[] = [];
    for (const p of paths) {
      try {
        const real = (await resolver.resolve(actor, p)).realPath;
        if (!real) continue;
        const mine = await resolver.toVirtual(recipient, real);
        if (mine === null) continue;
        // The folder holding it must be readable to the recipient (a deleted item has only its folder).
        const parent = mine.includes('/') ? mine.slice(0, mine.lastIndexOf('/')) : mine;
        const r = await resolver.resolve(recipient, parent);
        if (r.exists && r.access.canRead) out.push(mine);
      } catch {
        /* not theirs to see */
      }
    }
    return out;
  }

  async function recipientsOf(
    event: EventRow,
    kind: EventKind,
    detail: Record<string, unknown> | null,
  ): Promise<{ account: NotifyAccount; paths: string[] }[]> {
    const accounts = deps.accounts();
    const byId = new Map(accounts.map((a) => [a.id, a]));
    if (!isFolderKind(kind)) {
      const ids = new Set<string>();
      if (kind === 'share.received') {
        // The accounts it names, never its owner.
        for (const id of sharedWith(detail)) if (id !== event.user_id) ids.add(id);
      } else {
        // The installation's own troubles (a volume's quota, a disk) are the administrators'; an account's quota is its own.
        const installation =
          kind === 'volume.missing' ||
          kind === 'job.failed' ||
          kind === 'volume.read-only' ||
          (kind === 'quota.nearly-full' && (detail?.scope === 'volume' || detail?.scope === 'disk'));
        if (event.user_id && !installation) ids.add(event.user_id);
        if (kind === 'signin.lockout' || installation) for (const a of accounts) if (a.isAdmin) ids.add(a.id);
      }
      // A failed upload names the folder it was for (the uploader's own path).
      const paths = kind === 'upload.failed' && typeof detail?.folder === 'string' ? [detail.folder] : [];
      return [...ids].flatMap((id) => (byId.has(id) ? [{ account: byId.get(id)!, paths }] : []));
    }
    // Folder events: the actor's own operations are not news to them; a link holder's are
    // named by their share and reach its owner as files.arrived instead.
    if (!event.user_id || event.user_id.startsWith('link:')) return [];
    const actor = deps.callerFor(event.user_id);
    if (!actor) return [];
    const paths = pathsOf(detail);
    const out: { account: NotifyAccount; paths: string[] }[] = [];
    for (const a of accounts) {
      if (a.id === event.user_id) continue;
      const prefs = prefsOf(a.id);
      if (!prefs.kinds.includes(kind) || prefs.folders.length === 0) continue;
      const recipient = deps.callerFor(a.id);
      if (!recipient) continue;
      const seen = (await visiblePaths(actor, recipient, paths)).filter((p) => watches(prefs.folders, p));
      if (seen.length) out.push({ account: a, paths: seen });
    }
    return out;
  }

  function bodyFor(
    id: string,
    event: Pick<EventRow, 'id' | 'at' | 'user_id' | 'username' | 'ip'>,
    kind: EventKind,
    recipient: NotifyAccount,
    paths: string[],
    detail: Record<string, unknown> | null,
  ): EventBody {
    const count = typeof detail?.count === 'number' ? detail.count : paths.length;
    const actor = event.username ?? null;
    return {
      type: 'burrow.event',
      version: 1,
      id,
      eventId: event.id,
      kind,
      time: event.at,
      ...wordsFor(kind, { actor, paths, count, detail, address: kind.startsWith('signin.') ? event.ip : null }),
      actor: event.user_id || event.username ? { userId: event.user_id, username: event.username } : null,
      recipient: { userId: recipient.id, username: recipient.username },
      paths,
      count,
      address: kind.startsWith('signin.') ? event.ip : null,
    };
  }

  /** At once or in a digest: the kind's choice wins over the destination's; at once unless named. */
  const modeOf = (prefs: Prefs, destination: string, kind: EventKind): DeliveryMode =>
    (prefs.delivery.kinds as Partial<Record<EventKind, DeliveryMode>>)[kind] ??
    prefs.delivery.destinations[destination] ??
    'now';

  /** `now`: the clock as the pump read it (once per run: NOTIFY_CLOCK_FILE is a file). */
  async function fanOut(event: EventRow, now: number): Promise<void> {
    let detail: Record<string, unknown> | null = null;
    try {
      detail = event.detail ? (JSON.parse(event.detail) as Record<string, unknown>) : null;
    } catch {
      /* a detail that is not JSON names no path */
    }
    const kind = kindOf({ action: event.action, outcome: event.outcome, userId: event.user_id, detail });
    const deliveries: NewDelivery[] = [];
    const inbox: Parameters<NotifyStore['fanOut']>[4] & object[] = [];
    if (kind) {
      const enabled = new Map(
        store
          .destinations()
          .filter((d) => d.enabled === 1)
          .map((d) => [d.id, d]),
      );
      for (const { account, paths } of await recipientsOf(event, kind, detail)) {
        const prefs = prefsOf(account.id);
        // The kind the account chose it as: its e-mail switch and delivery mode are that kind's.
        const chosenAs = takenAs(prefs.kinds, kind, detail);
        if (!chosenAs) continue;
        // The bell has every event the account chose, whatever its destinations.
        const bell = bodyFor(messageId(event.id, 'bell', account.id), event, kind, account, paths, detail);
        inbox.push({
          id: bell.id,
          user_id: account.id,
          event_id: event.id,
          kind,
          title: bell.title,
          text: bell.text,
          paths: JSON.stringify(bell.paths),
          at: event.at,
        });
        for (const destination of prefs.destinations) {
          const row = enabled.get(destination);
          if (!row) continue;
          // E-mail goes to an account with an address, for the kinds it has not turned off.
          if (row.kind === 'email' && (!account.email || (prefs.emailOff as string[]).includes(chosenAs))) continue;
          // Web Push goes to an account with a subscribed browser.
          if (row.kind === 'push' && store.pushSubscriptions(account.id).length === 0) continue;
          const id = messageId(event.id, destination, account.id);
          const body = bodyFor(id, event, kind, account, paths, detail);
          // Webhooks are read by programs: each event at once. People's destinations wait for
          // the end of quiet hours, or for the account's hourly or daily digest.
          const release = row.kind === 'webhook' ? now : releaseAt(prefs, modeOf(prefs, destination, chosenAs), now);
          deliveries.push({
            id,
            event_id: event.id,
            destination_id: destination,
            user_id: account.id,
            // The kind it was taken as: the e-mail's reason and stop link, the administrator's list.
            kind: chosenAs,
            payload: JSON.stringify(body),
            ...(release > now ? { heldUntil: release } : {}),
          });
        }
      }
    }
    store.fanOut(event.id, deliveries, Date.now(), new Date().toISOString(), inbox);
    // The bells of the accounts it reached: the items as GET /api/notify/inbox shows them.
    const byUser = new Map<string, InboxItem[]>();
    for (const r of inbox) {
      const items = byUser.get(r.user_id) ?? [];
      items.push({ ...itemOf(r), read: false });
      byUser.set(r.user_id, items);
    }
    for (const [userId, items] of byUser) tellInbox(userId, items);
    log.debug('notification event fanned out', {
      event: event.id,
      action: event.action,
      kind,
      bell: inbox.length,
      deliveries: deliveries.length,
    });
  }

  // ── the bell, live: an account's inbox changed (new items, or read elsewhere) ───────────────
  const inboxListeners = new Set<InboxListener>();
  const itemOf = (r: Omit<InboxRow, 'read_at'>): Omit<InboxItem, 'read'> => ({
    id: r.id,
    kind: r.kind as EventKind,
    title: r.title,
    text: r.text,
    paths: JSON.parse(r.paths) as string[],
    at: r.at,
  });
  function tellInbox(userId: string, items: InboxItem[]): void {
    if (!inboxListeners.size) return;
    const unread = store.unread(userId);
    for (const fn of inboxListeners) {
      try {
        fn(userId, { items, unread });
      } catch (err) {
        log.warn('an inbox listener failed', { err });
      }
    }
  }

  // ── Web Push: the VAPID key pair, made once (crypto RNG), its private half sealed ───────────
  const VAPID_CONTEXT = 'notify-vapid';
  function vapidKeys(): { publicKey: string; privateKey: string } {
    let row = store.vapid();
    if (!row) {
      // Loaded when the key pair is first made (issue 33: not on the idle server's heap).
      const webpush = createRequire(import.meta.url)('web-push') as typeof import('web-push');
      const made = webpush.generateVAPIDKeys();
      row = store.addVapid(made.publicKey, box.seal(made.privateKey, VAPID_CONTEXT), new Date().toISOString());
    }
    return { publicKey: row.public_key, privateKey: box.open(row.private_sealed, VAPID_CONTEXT) };
  }
  /** Who the push services may contact about our messages (RFC 8292 `sub`). */
  function vapidSubject(): string {
    const admin = deps.accounts().find((a) => a.isAdmin && a.email);
    return admin?.email ? `mailto:${admin.email}` : 'mailto:postmaster@burrow.invalid';
  }
  const pushServices = deps.pushServices ?? [];

  // ── the sender ─────────────────────────────────────────────────────────────────────────────
  const inFlight = new Set<string>();
  const perDestination = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  let sweeper: NodeJS.Timeout | undefined;
  let running = false;
  let again = false;
  let stopped = true;
  let pumping: Promise<void> = Promise.resolve();
  const sends = new Set<Promise<void>>();
  let halt = new AbortController();

  // ── one-click unsubscribe (RFC 8058): a token per account, found by its keyed hash ──────────
  const tokenContext = (userId: string) => `notify-unsubscribe:${userId}`;
  function unsubscribeTokenOf(userId: string): string {
    const sealed = store.unsubscribeToken(userId);
    if (sealed) return box.open(sealed, tokenContext(userId));
    const token = randomBytes(32).toString('base64url');
    // Two first e-mails at once: the first token written is the one kept and used.
    const kept = store.addUnsubscribeToken(
      userId,
      box.mac(token),
      box.seal(token, tokenContext(userId)),
      new Date().toISOString(),
    );
    return box.open(kept, tokenContext(userId));
  }
  /** The account the link belongs to; the same 404 for a forged, altered or another kind's token. */
  function unsubscribeOwner(token: string): string {
    const userId = store.unsubscribeOwner(box.mac(token));
    if (!userId || !deps.accounts().some((a) => a.id === userId))
      throw new AppError('NOT_FOUND', 'This unsubscribe link is not valid (it may be from an account that is gone).');
    return userId;
  }

  function targetOf(row: DestinationRow, d: DeliveryRow): Target | MailTarget | PushTarget {
    let secret: string | null = null;
    if (row.secret_sealed) secret = box.open(row.secret_sealed, secretContext(row.id));
    if (row.kind === 'push') {
      const target: PushTarget = {
        kind: 'push',
        subscriptions: store.pushSubscriptions(d.user_id),
        vapid: { subject: vapidSubject(), ...vapidKeys() },
        allowed: pushServices,
        gone: (endpoint) => store.removePushEndpoint(endpoint),
      };
      return target;
    }
    if (row.kind !== 'email') return { kind: row.kind, url: row.url, topic: row.topic, secret };
    const smtp = parseSmtp(row.smtp);
    if (!smtp) throw new Error('the destination has no SMTP server');
    const to = deps.accounts().find((a) => a.id === d.user_id)?.email;
    if (!to) throw new Error('the account has no e-mail address');
    return {
      kind: 'email',
      smtp,
      password: secret,
      to,
      choice: d.kind as EventKind,
      unsubscribeUrl:
        d.kind === 'test' || d.kind === 'digest'
          ? null
          : `${row.url}/api/notify/unsubscribe/${encodeURIComponent(d.kind)}/${unsubscribeTokenOf(d.user_id)}`,
      settingsUrl: `${row.url}/settings/notifications`,
    };
  }

  function settle(d: DeliveryRow, result: Attempt): void {
    const attempts = d.attempts + 1;
    const now = Date.now();
    if (result.ok) {
      store.markSent(d.id, attempts, result.status, new Date(now).toISOString());
      return;
    }
    if (result.permanent || attempts >= MAX_ATTEMPTS) {
      store.markDead(d.id, attempts, result.status, result.error, new Date(now).toISOString());
      log.warn('a notification could not be delivered', {
        delivery: d.id,
        destination: d.destination_id,
        error: result.error,
      });
      return;
    }
    const backoff = BACKOFF_MS[Math.min(attempts - 1, BACKOFF_MS.length - 1)]!;
    const wait =
      result.retryAfterMs !== undefined ? Math.min(Math.max(result.retryAfterMs, 1_000), MAX_RETRY_AFTER_MS) : backoff;
    store.markRetry(d.id, attempts, now + wait, result.status, result.error);
  }

  async function deliver(d: DeliveryRow, destination: DestinationRow): Promise<void> {
    let result: Attempt;
    try {
      result = await attempt(targetOf(destination, d), JSON.parse(d.payload) as EventBody, timeoutMs, halt.signal);
    } catch (err) {
      result = { ok: false, status: null, error: (err as Error).message, permanent: false };
    }
    if (stopped && !result.ok) return; // the database may be closing: the next start tries again
    settle(d, result);
  }

  /** One pass of the sender; false when another instance of the cluster sends now (it holds the lease). */
  async function pump(): Promise<boolean> {
    if (deps.jobs && !deps.jobs.mayRun(SEND_JOB)) return false;
    const now = clock();
    for (let batch = store.newEvents(50); batch.length; batch = store.newEvents(50)) {
      for (const event of batch) {
        if (stopped) return true;
        try {
          await fanOut(event, now);
        } catch (err) {
          log.warn('a notification event could not be fanned out', { event: event.id, err });
          store.fanOut(event.id, [], Date.now(), new Date().toISOString());
        }
      }
    }
    releaseHeld(now);
    const destinations = new Map(store.destinations().map((d) => [d.id, d]));
    for (const d of store.due(Date.now(), 200)) {
      if (stopped || inFlight.size >= IN_FLIGHT) break;
      if (inFlight.has(d.id)) continue;
      const destination = destinations.get(d.destination_id);
      if (!destination || destination.enabled !== 1) continue;
      const busy = perDestination.get(d.destination_id) ?? 0;
      if (busy >= PER_DESTINATION) continue;
      inFlight.add(d.id);
      perDestination.set(d.destination_id, busy + 1);
      const p = deliver(d, destination)
        .catch((err) => log.warn('a notification attempt failed', { delivery: d.id, err }))
        .finally(() => {
          inFlight.delete(d.id);
          perDestination.set(d.destination_id, (perDestination.get(d.destination_id) ?? 1) - 1);
          sends.delete(p);
          kick();
        });
      sends.add(p);
    }
    return true;
  }

  /**
   * Held deliveries whose time has come: one alone goes out as it is; several of one account
   * and destination become one digest, written with their 'digested' marks in one transaction.
   * The digest's id comes from the ids it gathers, so a crash before the write makes the same
   * digest again and one after it finds nothing held: nothing lost, nothing sent twice.
   */
  function releaseHeld(now: number): void {
    for (let rows = store.heldDue(now, 1000); rows.length; rows = store.heldDue(now, 1000)) {
      const groups = new Map<string, DeliveryRow[]>();
      for (const r of rows) {
        const key = `${r.user_id}\n${r.destination_id}`;
        const group = groups.get(key);
        if (group) group.push(r);
        else groups.set(key, [r]);
      }
      for (const held of groups.values()) {
        if (held.length === 1) {
          store.release(held[0]!.id, Date.now());
          continue;
        }
        const d = digestOf(held, now);
        store.digest(
          d,
          held.map((h) => h.id),
          Date.now(),
          new Date(now).toISOString(),
        );
      }
    }
  }

  function digestOf(held: DeliveryRow[], now: number): NewDelivery {
    const first = held[0]!;
    const id = hashId('digest', ...held.map((h) => h.id).sort());
    const bodies = held
      .map((h) => JSON.parse(h.payload) as EventBody)
      .sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : 0));
    const events: DigestItem[] = bodies.map((b) => ({
      eventId: b.eventId,
      kind: b.kind,
      time: b.time,
      title: b.title,
      text: b.text,
      paths: b.paths,
    }));
    const listed = events.slice(0, DIGEST_LISTS);
    const rest = events.length - listed.length;
    const body: EventBody = {
      type: 'burrow.event',
      version: 1,
      id,
      // The same hash as its message id, named as an event.
      eventId: `dig_${id.slice('msg_'.length, 'msg_'.length + 24)}`,
      kind: 'digest',
      time: new Date(now).toISOString(),
      title: `${events.length} events`,
      text: [...listed.map((e) => e.text), ...(rest > 0 ? [`… and ${rest} more.`] : [])].join('\n'),
      actor: null,
      recipient: bodies[0]!.recipient,
      paths: [],
      count: events.length,
      address: null,
      events: listed,
    };
    return {
      id,
      event_id: body.eventId,
      destination_id: first.destination_id,
      user_id: first.user_id,
      kind: 'digest',
      payload: JSON.stringify(body),
    };
  }

  /** Runs the pump now, or once more after the run in progress. */
  function kick(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    pumping = (async () => {
      do {
        again = false;
        try {
          if (await pump()) deps.jobs?.ran(SEND_JOB, null, 0);
        } catch (err) {
          log.warn('the notification sender failed', { err });
          deps.jobs?.ran(SEND_JOB, err, 0);
        }
      } while (again && !stopped);
      running = false;
    })();
  }

  const unsubscribe = deps.outbox.subscribe(kick);

  /**
   * The volume check, every VOLUME_CHECK_MS of the clock (a test moves it): a volume whose folder
   * is gone or unreadable is told to the administrators once, and once more when it is back; one
   * mounted read-write where nothing can be written, once, and once more when it is writable.
   */
  let checking: Promise<void> = Promise.resolve();
  let checked: number | null = null;
  let checkBusy = false;
  function checkVolumes(): void {
    if (!deps.volumes || stopped || checkBusy) return;
    let now: number;
    try {
      now = clock();
    } catch (err) {
      log.warn('the volume check failed', { err });
      return;
    }
    if (checked !== null && now - checked < VOLUME_CHECK_MS) return;
    if (deps.jobs) {
      // On a cluster one instance checks (the shared folders are the same for all; the told
      // state is a row either way), and another takes the check over when it dies.
      let mine: boolean;
      try {
        mine = deps.jobs.mayRun(VOLUME_JOB);
      } catch (err) {
        log.warn('could not ask whether to run a background job', { job: VOLUME_JOB, err });
        return;
      }
      if (!mine) return;
    }
    checked = now;
    checkBusy = true;
    checking = deps
      .volumes()
      .then(async (found) => {
        if (stopped) return;
        for (const v of found) {
          deps.outbox.volume(v.label, v.problem);
          // A folder that is gone is not also read-only: that is told when it is back.
          if (!v.problem) deps.outbox.volumeWritable(v.label, v.readOnly ?? null);
        }
        // Each disk once, named by the folders on it; a volume's folder that is gone has no disk to read.
        const folders: DiskFolder[] = [
          ...(deps.disks?.() ?? []),
          ...found.flatMap((v) => (v.path && !v.problem ? [{ name: `the volume “${v.label}”`, path: v.path }] : [])),
        ];
        const nearlyFull: string[] = [];
        for (const d of await readDisks(folders)) {
          if (stopped) return;
          const names = listed(d.names);
          if (deps.outbox.disk(d.key, names, d.sizeBytes, d.freeBytes)) nearlyFull.push(names);
        }
        // Reported once its outbox rows are written (a failure there is reported by the catch).
        deps.jobs?.ran(VOLUME_JOB, null, found.filter((v) => v.problem || v.readOnly).length);
        log.debug('volumes checked', {
          at: new Date(now).toISOString(),
          missing: found.filter((v) => v.problem).map((v) => v.label),
          readOnly: found.filter((v) => !v.problem && v.readOnly).map((v) => v.label),
          nearlyFull,
        });
      })
      .catch((err) => {
        log.warn('the volume check failed', { err });
        if (!stopped) deps.jobs?.ran(VOLUME_JOB, err, 0);
      })
      .finally(() => {
        checkBusy = false;
      });
  }

  function toWireDelivery(d: DeliveryRow, names: Map<string, string>): WireDelivery {
    let title = '';
    try {
      title = (JSON.parse(d.payload) as EventBody).title;
    } catch {
      /* shown without a title */
    }
    return {
      id: d.id,
      eventId: d.event_id,
      destinationId: d.destination_id,
      destinationName: names.get(d.destination_id) ?? null,
      userId: d.user_id,
      kind: d.kind,
      title,
      state: d.state,
      attempts: d.attempts,
      lastStatus: d.last_status,
      lastError: d.last_error,
      createdAt: d.created_at,
      doneAt: d.done_at,
    };
  }
  const destinationNames = () => new Map(store.destinations().map((d) => [d.id, d.name]));

  return {
    destinations: () => ({ destinations: store.destinations().map(toWireDestination) }),
    addDestination,
    updateDestination,
    removeDestination(id: string): void {
      if (!store.removeDestination(id)) throw new AppError('NOT_FOUND', 'No such destination.');
    },
    /** What an account may choose among: names only. */
    choosable: () => ({
      destinations: store
        .destinations()
        .filter((d) => d.enabled === 1)
        .map((d) => ({ id: d.id, kind: d.kind, name: d.name })),
    }),
    prefs: (caller: Caller) => ({ prefs: prefsOf(caller.userId) }),
    putPrefs,

    pushKey: () => ({ publicKey: vapidKeys().publicKey }),
    pushSubscriptions: (caller: Caller) => ({
      subscriptions: store
        .pushSubscriptions(caller.userId)
        .map((r) => ({ id: r.id, endpoint: r.endpoint, createdAt: r.created_at })),
    }),
    subscribe(caller: Caller, body: z.infer<typeof pushSubscriptionBody>) {
      if (!pushEndpointAllowed(body.endpoint, pushServices))
        throw new AppError(
          'BAD_REQUEST',
          'This push service is not one Burrow sends to (the known browsers’ services, or an origin listed in PUSH_SERVICES).',
        );
      const point = Buffer.from(body.keys.p256dh, 'base64url');
      if (point.length !== 65 || point[0] !== 4)
        throw new AppError('BAD_REQUEST', 'keys.p256dh is not an uncompressed P-256 public key.');
      const id = `psub_${randomBytes(12).toString('base64url')}`;
      const at = new Date().toISOString();
      store.putPushSubscription({
        id,
        user_id: caller.userId,
        endpoint: body.endpoint,
        p256dh: body.keys.p256dh,
        auth: body.keys.auth,
        created_at: at,
      });
      const row = store.pushSubscriptions(caller.userId).find((r) => r.endpoint === body.endpoint)!;
      return { subscription: { id: row.id, endpoint: row.endpoint, createdAt: row.created_at } };
    },
    unsubscribePush(caller: Caller, id: string): void {
      const row = store.pushSubscriptions(caller.userId).find((r) => r.id === id);
      if (!row || !store.removePushSubscription(caller.userId, row.endpoint))
        throw new AppError('NOT_FOUND', 'No such subscription.');
    },
    inbox(caller: Caller) {
      const items = store.inbox(caller.userId, 100).map((r) => ({ ...itemOf(r), read: r.read_at !== null }));
      return { items, unread: store.unread(caller.userId) };
    },
    markRead(caller: Caller, body: z.infer<typeof markReadBody>) {
      const marked = store.markRead(caller.userId, body.ids ?? null, new Date().toISOString());
      // The account's other pages take the new count.
      if (marked) tellInbox(caller.userId, []);
      return { marked };
    },
    /**
     * Hears every account's inbox changes (the live socket sends each to that account's pages
     * only): the new items, exactly as its inbox lists them, and the unread count after them.
     */
    onInbox(fn: InboxListener): () => void {
      inboxListeners.add(fn);
      return () => inboxListeners.delete(fn);
    },
    /**
     * An account's inbox change as this instance's database answers it, for a change another
     * instance made (live/bell.ts): the items among `ids` that are that account's, exactly as
     * its inbox lists them, and its unread count. Null when `ids` named items and none is the
     * account's (nothing to tell).
     */
    inboxChange(userId: string, ids: readonly string[]): InboxChange | null {
      const items = store.inboxItems(userId, ids).map((r) => ({ ...itemOf(r), read: r.read_at !== null }));
      if (ids.length > 0 && items.length === 0) return null;
      return { items, unread: store.unread(userId) };
    },

    /** One click in a message: that account's e-mails of this kind stop, no sign-in needed. */
    unsubscribe(kind: EventKind, token: string) {
      const userId = unsubscribeOwner(token);
      store.setEmailOff(userId, [kind], new Date().toISOString(), false);
      log.info('e-mails turned off from an unsubscribe link', { userId, kind });
      return { unsubscribed: { kind, title: KIND_LABELS[kind] } };
    },
    /** What the link's page says before the click (the token is checked, nothing changes). */
    unsubscribeCheck(kind: EventKind, token: string): { title: string } {
      unsubscribeOwner(token);
      return { title: KIND_LABELS[kind] };
    },

    /** The administrator's "send a test": a delivery like any other, through the outbox. */
    sendTest(admin: Caller, destinationId: string): { delivery: WireDelivery } {
      const destination = mustDestination(destinationId);
      const email = deps.accounts().find((a) => a.id === admin.userId)?.email ?? null;
      if (destination.kind === 'email' && !email)
        throw new AppError('BAD_REQUEST', 'Your account has no e-mail address to send the test to: add one first.');
      if (destination.kind === 'push' && store.pushSubscriptions(admin.userId).length === 0)
        throw new AppError(
          'BAD_REQUEST',
          'No browser of yours is subscribed: turn on notifications in this browser (Settings → Notifications) first.',
        );
      const event = {
        id: newEventId(),
        at: new Date().toISOString(),
        user_id: admin.userId,
        username: admin.username,
        ip: null,
      };
      const id = messageId(event.id, destinationId, admin.userId);
      const body = bodyFor(
        id,
        event,
        'test',
        { id: admin.userId, username: admin.username, isAdmin: true, email },
        [],
        null,
      );
      store.fanOut(
        event.id,
        [
          {
            id,
            event_id: event.id,
            destination_id: destinationId,
            user_id: admin.userId,
            kind: 'test',
            payload: JSON.stringify(body),
          },
        ],
        Date.now(),
        event.at,
      );
      deps.outbox.written();
      return { delivery: toWireDelivery(store.delivery(id)!, destinationNames()) };
    },

    deliveries(state: DeliveryRow['state']): { deliveries: WireDelivery[] } {
      const names = destinationNames();
      return { deliveries: store.list(state, 200).map((d) => toWireDelivery(d, names)) };
    },

    delivery(id: string): { delivery: WireDelivery } {
      const d = store.delivery(id);
      if (!d) throw new AppError('NOT_FOUND', 'No such delivery.');
      return { delivery: toWireDelivery(d, destinationNames()) };
    },

    /** Dead letter → pending, with the same message id (receivers that had it drop it). */
    sendAgain(id: string): { delivery: WireDelivery } {
      if (!store.revive(id, Date.now())) {
        if (!store.delivery(id)) throw new AppError('NOT_FOUND', 'No such delivery.');
        throw new AppError('CONFLICT', 'Only an undelivered message can be sent again.');
      }
      deps.outbox.written();
      return { delivery: toWireDelivery(store.delivery(id)!, destinationNames()) };
    },

    start(): void {
      stopped = false;
      halt = new AbortController();
      timer = setInterval(() => {
        kick();
        checkVolumes();
      }, TICK_MS);
      timer.unref();
      sweeper = setInterval(() => {
        try {
          store.sweep(new Date(Date.now() - KEEP_SENT_MS).toISOString());
        } catch (err) {
          log.warn('the notification sweep failed', { err });
        }
      }, 3_600_000);
      sweeper.unref();
      kick();
      checkVolumes();
    },

    async stop(): Promise<void> {
      stopped = true;
      unsubscribe();
      if (timer) clearInterval(timer);
      if (sweeper) clearInterval(sweeper);
      halt.abort();
      await pumping;
      await checking;
      await Promise.all([...sends]);
    },
  };
}

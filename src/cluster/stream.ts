// The change stream between the instances of a cluster (DATABASE_URL=postgres://…): every
// change written through this instance (the `changes` sink: files ops, uploads, extraction,
// editor saves) is sent with NOTIFY, and every other instance's changes heard with LISTEN are
// emitted into this instance's sink as if written here — so its index (search, folder sizes)
// and its live folder views follow writes made through any instance, within the round trip.
// One connection of its own on the server's thread (node-postgres is asynchronous there; the
// bridge's worker serves the stores' synchronous statements and must not wait on a LISTEN).
// Paths are host paths: the shared folder is mounted at the same path on every instance, as
// host volumes' paths in the database already require. Sessions and tokens need nothing here:
// every request reads their rows, so a revocation holds on every instance at once.
//
// Beside the changes written through Burrow the channel carries what an instance's index found
// made outside Burrow (`f`: its rescan, or a folder on screen read again): each other instance's
// index reads those paths again itself (it trusts only where, not what) and says the folders
// holding them are not final until it has (indexer/maintenance.ts) — each index is its own and
// reads the disk at its own times, so a change found by one and kept to itself left the others
// answering final figures without it. They never enter the change sink: the instance that found
// them applies them itself.
//
// Beside the changes the channel carries signals: `config` (sent by the database's own triggers
// when a settings or access-model row changes, cluster/004_config_version.pg.sql: each instance
// drops its configuration cache, cluster/config-cache.ts) and the ones an instance publishes for
// the others (`bell`: an account's inbox changed, live/bell.ts). Anyone who can NOTIFY on the
// database can send any of them, so a signal only names ids; a listener reads what they name
// from the database again and trusts nothing else in it.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { Change, ChangeSink } from '../changes.ts';
import type { Logger } from '../core/log.ts';
import { listen, notify } from './channel-store.ts';

/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more. */
const MAX_PAYLOAD = 7999;
/** Changes kept while the connection is down, sent when it is back. */
const MAX_PENDING = 10_000;
const RECONNECT_MS = 1000;
/** Longest the start waits for LISTEN before it serves anyway. */
const READY_WAIT_MS = 5000;

interface Message {
  /** The instance that made the change (absent on the database's own signals). */
  readonly i?: string;
  readonly c?: Change;
  /** An outside change the instance's index found (indexes read the path again). */
  readonly f?: Change;
  /** A signal's topic, and its payload (ids only). */
  readonly s?: string;
  readonly p?: unknown;
}

export interface ChangeStream {
  /** This instance's id in the stream (random per start). */
  readonly instance: string;
  /** Resolves once LISTEN is in place (tests and startup wait on it). */
  ready(): Promise<void>;
  /** Whether LISTEN is in place now: while it is not, signals may be missed. */
  listening(): boolean;
  /**
   * Tells the other instances an outside change this instance's index found; resolves once
   * PostgreSQL has it (or it is held for the reconnect, or cannot be sent).
   */
  tellFound(change: Change): Promise<void>;
  /** Hears the outside changes the other instances' indexes found. */
  onFound(heard: (change: Change) => void): () => void;
  /** Tells the other instances `topic` with `payload` (ids: the listeners read the rest again). */
  publish(topic: string, payload: unknown): void;
  /**
   * Hears `topic` from the other instances (and the database's own signals), and `lost` each
   * time the connection drops or comes back: signals sent meanwhile were missed.
   */
  on(topic: string, heard: (payload: unknown) => void, lost?: () => void): () => void;
  close(): Promise<void>;
}

export function startChangeStream(deps: { url: string; changes: ChangeSink; log: Logger }): ChangeStream {
  const instance = randomBytes(8).toString('hex');
  let client: pg.Client | null = null;
  let closed = false;
  let replaying = false;
  let timer: NodeJS.Timeout | undefined;
  const pending: string[] = [];
  let sending: Promise<void> = Promise.resolve();
  let listening!: () => void;
  const ready = new Promise<void>((resolve) => (listening = resolve));
  const foundListeners = new Set<(change: Change) => void>();
  const topics = new Map<string, Set<{ heard: (payload: unknown) => void; lost?: (() => void) | undefined }>>();

  function signal(msg: Message): void {
    for (const l of topics.get(msg.s!) ?? []) {
      try {
        l.heard(msg.p);
      } catch (err) {
        deps.log.warn('a cluster signal listener failed', { topic: msg.s, err });
      }
    }
  }

  /** The connection dropped or came back: whatever was sent meanwhile was not heard. */
  function missed(): void {
    for (const set of topics.values())
      for (const l of set) {
        try {
          l.lost?.();
        } catch (err) {
          deps.log.warn('a cluster signal listener failed', { err });
        }
      }
  }

  function heard(payload: string | undefined): void {
    let msg: Message;
    try {
      msg = JSON.parse(payload ?? '') as Message;
    } catch {
      return;
    }
    if (!msg || typeof msg !== 'object' || msg.i === instance) return;
    if (typeof msg.s === 'string') return signal(msg);
    if (msg.f !== undefined) {
      if (!isChange(msg.f)) return;
      for (const l of foundListeners) {
        try {
          l(msg.f);
        } catch (err) {
          deps.log.warn('a listener of outside changes found elsewhere failed', { err });
        }
      }
      return;
    }
    if (!msg.c) return;
    replaying = true;
    try {
      deps.changes.emit(msg.c);
    } finally {
      replaying = false;
    }
  }

  function send(payload: string): Promise<void> {
    const c = client;
    if (!c) {
      if (pending.length < MAX_PENDING) pending.push(payload);
      return Promise.resolve();
    }
    // One query at a time on the connection, in the order the changes happened.
    sending = sending.then(() =>
      notify(c, payload).then(
        () => undefined,
        () => {
          if (pending.length < MAX_PENDING) pending.push(payload);
        },
      ),
    );
    return sending;
  }

  async function connect(): Promise<void> {
    if (closed) return;
    // node-postgres, loaded when a cluster first connects (issue 33: not on a single server's heap).
    const { default: Pg } = await import('pg');
    if (closed) return;
    const c = new Pg.Client({
      connectionString: deps.url,
      connectionTimeoutMillis: 5000,
      keepAlive: true,
      application_name: 'burrow-stream',
    });
    const lost = () => {
      if (client !== c) return;
      client = null;
      missed();
      c.end().catch(() => undefined);
      if (!closed) {
        deps.log.warn('the change stream lost PostgreSQL; connecting again');
        timer = setTimeout(() => void connect(), RECONNECT_MS);
      }
    };
    c.on('notification', (n) => heard(n.payload));
    c.on('error', lost);
    c.on('end', lost);
    try {
      await c.connect();
      await listen(c);
    } catch {
      c.end().catch(() => undefined);
      if (!closed) timer = setTimeout(() => void connect(), RECONNECT_MS);
      return;
    }
    if (closed) {
      await c.end().catch(() => undefined);
      return;
    }
    client = c;
    listening();
    missed();
    for (const payload of pending.splice(0)) send(payload);
  }

  const unsubscribe = deps.changes.subscribe((change) => {
    if (replaying || closed) return;
    const payload = JSON.stringify({ i: instance, c: change } satisfies Message);
    if (Buffer.byteLength(payload) > MAX_PAYLOAD) {
      deps.log.warn('a change too long for the change stream was not sent (the rescan finds it)', {
        type: change.type,
      });
      return;
    }
    send(payload);
  });

  void connect();
  timer?.unref();

  return {
    instance,
    ready: () => Promise.race([ready, new Promise<void>((resolve) => setTimeout(resolve, READY_WAIT_MS).unref())]),
    listening: () => client !== null,
    tellFound(change) {
      if (closed) return Promise.resolve();
      const payload = JSON.stringify({ i: instance, f: change } satisfies Message);
      if (Buffer.byteLength(payload) > MAX_PAYLOAD) {
        deps.log.warn('an outside change too long for the change stream was not told (a re-check finds it)', {
          type: change.type,
        });
        return Promise.resolve();
      }
      return send(payload);
    },
    onFound(heard) {
      foundListeners.add(heard);
      return () => void foundListeners.delete(heard);
    },
    publish(topic, payload) {
      if (closed) return;
      const text = JSON.stringify({ i: instance, s: topic, p: payload } satisfies Message);
      if (Buffer.byteLength(text) > MAX_PAYLOAD) {
        deps.log.warn('a signal too long for the change stream was not sent', { topic });
        return;
      }
      send(text);
    },
    on(topic, heard, lost) {
      const l = { heard, lost };
      let set = topics.get(topic);
      if (!set) topics.set(topic, (set = new Set()));
      set.add(l);
      return () => void set.delete(l);
    },
    async close() {
      closed = true;
      unsubscribe();
      topics.clear();
      foundListeners.clear();
      clearTimeout(timer);
      const c = client;
      client = null;
      await c?.end().catch(() => undefined);
    },
  };
}

/** A change as the stream's messages carry it: anyone who can NOTIFY can send one. */
function isChange(v: unknown): v is Change {
  if (!v || typeof v !== 'object') return false;
  const c = v as Record<string, unknown>;
  const str = (x: unknown) => typeof x === 'string' && x.length > 0 && !x.includes('\0');
  if (c.type === 'moved') return str(c.from) && str(c.to) && typeof c.isDirectory === 'boolean';
  if (c.type === 'modified') return str(c.path);
  if (c.type === 'created' || c.type === 'deleted') return str(c.path) && typeof c.isDirectory === 'boolean';
  return false;
}

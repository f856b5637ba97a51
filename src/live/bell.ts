// The bell across a cluster (DATABASE_URL=postgres://…). An account's inbox changes on the one
// instance that fanned the event out (the notification sender's job runs on one instance) or
// took the "mark read": the pages connected to that instance hear it from notify at once, and
// every other instance's pages through the change stream (cluster/stream.ts, topic `bell`).
// The signal carries ids only — the account and its items' ids — and each instance reads the
// items again from the database, keeping only those that are that account's: a NOTIFY forged
// by anyone who can reach the database names at most an account and ids, so it can make an
// account's own pages show its own items (or its unread count) again, and nothing else. The
// sockets of one account are the only ones that hear it (live/capability.ts checks each
// socket's session before it sends).
import type { Logger } from '../core/log.ts';
import type { InboxChange } from '../notify/wire.ts';

export type InboxHearer = (userId: string, change: InboxChange) => void;

/** What the bell needs of notify (notify/service.ts). */
export interface InboxSource {
  /** This instance's inbox changes. */
  onInbox(fn: InboxHearer): () => void;
  /** The change as the database answers it (see notify's `inboxChange`). */
  inboxChange(userId: string, ids: readonly string[]): InboxChange | null;
}

/** What the bell needs of the change stream. */
export interface BellSignals {
  publish(topic: string, payload: unknown): void;
  on(topic: string, heard: (payload: unknown) => void): () => void;
}

export const BELL_TOPIC = 'bell';
/** Ids per signal: a NOTIFY payload stays far below PostgreSQL's 8000 bytes. */
const IDS_PER_SIGNAL = 40;
const MAX_ID = 128;

interface BellSignal {
  u: string;
  ids: string[];
}

function parse(payload: unknown): BellSignal | null {
  if (!payload || typeof payload !== 'object') return null;
  const { u, ids } = payload as Record<string, unknown>;
  if (typeof u !== 'string' || u === '' || u.length > MAX_ID) return null;
  if (!Array.isArray(ids) || ids.length > IDS_PER_SIGNAL) return null;
  if (!ids.every((id): id is string => typeof id === 'string' && id !== '' && id.length <= MAX_ID)) return null;
  return { u, ids };
}

/**
 * Every inbox change of the installation, whichever instance made it, for this instance's
 * pages. Without a stream (the embedded database) it is notify's own.
 */
export function clusterInbox(deps: {
  source: InboxSource;
  signals: BellSignals | null;
  log: Logger;
}): (fn: InboxHearer, wants?: (userId: string) => boolean) => () => void {
  const { source, signals, log } = deps;
  const hearers = new Map<InboxHearer, (userId: string) => boolean>();
  let off: (() => void) | null = null;

  function tell(userId: string, change: InboxChange): void {
    for (const fn of hearers.keys()) {
      try {
        fn(userId, change);
      } catch (err) {
        log.warn('an inbox listener failed', { err });
      }
    }
  }

  function start(): () => void {
    const offLocal = source.onInbox((userId, change) => {
      tell(userId, change);
      if (!signals) return;
      const ids = change.items.map((i) => i.id);
      // A read elsewhere (no items) tells the count; new items go in signals of a few ids each.
      if (ids.length === 0) signals.publish(BELL_TOPIC, { u: userId, ids: [] } satisfies BellSignal);
      for (let n = 0; n < ids.length; n += IDS_PER_SIGNAL)
        signals.publish(BELL_TOPIC, { u: userId, ids: ids.slice(n, n + IDS_PER_SIGNAL) } satisfies BellSignal);
    });
    const offRemote =
      signals?.on(BELL_TOPIC, (payload) => {
        const signal = parse(payload);
        // Read only for an account with a page on this instance.
        if (!signal || ![...hearers.values()].some((wants) => wants(signal.u))) return;
        const change = source.inboxChange(signal.u, signal.ids);
        if (change) tell(signal.u, change);
      }) ?? (() => {});
    return () => {
      offLocal();
      offRemote();
    };
  }

  return (fn, wants = () => true) => {
    hearers.set(fn, wants);
    off ??= start();
    return () => {
      hearers.delete(fn);
      if (!hearers.size) {
        off?.();
        off = null;
      }
    };
  };
}

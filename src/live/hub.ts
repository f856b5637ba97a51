// Who hears which folder. A subscription is one socket's interest in one folder, keyed by the
// folder's real path; changes arrive from the `changes` sink (every write through Burrow, with
// its absolute host path), from the watcher (whatever else wrote into a watched folder) and,
// on one server, from the index's periodic rescan (outside changes in the folders the watcher
// does not hear: past its bound, or on a network mount),
// are coalesced per subscription for FLUSH_MS, and are sent once the caller's access to the
// folder is checked again (rules, sign-out and removals apply to the next message, not the
// next connection). A subscription that collects more than MAX_PENDING events in one window
// gets `reload` instead of a replay.
import path from 'node:path';
import { AppError } from '../core/errors.ts';
import type { Caller } from '../core/caller.ts';
import type { Change, ChangeSink } from '../changes.ts';
import type { Logger } from '../core/log.ts';
import { isReservedName } from '../files/names.ts';
import type { PathResolver, ResolvedPath } from '../files/paths.ts';
import type { LiveEvent, LiveServerMessage } from './wire.ts';
import type { FolderWatcher, WatchedEvent } from './watcher.ts';

/** How long a change waits for the ones that follow it before the subscribers hear them. */
export const FLUSH_MS = 100;
/** Events in one window above which a subscriber is told to fetch the folder again. */
export const MAX_PENDING = 200;

export interface Listener {
  /** The caller as of now (null: signed out or removed), asked before every message. */
  caller(): Caller | null;
  send(message: LiveServerMessage): void;
  /** Bytes written to the socket and not yet taken by the client. */
  backlog(): number;
}

interface Subscription {
  listener: Listener;
  virtualPath: string;
  /** The folder's real paths (as resolved, and its canonical place when a link is on the way). */
  dirs: string[];
  pending: Map<string, { event: LiveEvent; outside: boolean }>;
  overflow: boolean;
  timer: NodeJS.Timeout | undefined;
  closed: boolean;
}

/** Bytes queued on a socket beyond which its subscriptions get `reload` instead of events. */
const MAX_BACKLOG = 1024 * 1024;

export interface LiveHub {
  /** Starts hearing a folder for a listener; throws the resolver's error when the caller may not see it. */
  watch(listener: Listener, virtualPath: string): Promise<LiveServerMessage>;
  unwatch(listener: Listener, virtualPath: string): void;
  /** Every subscription of a listener (its socket closed). */
  drop(listener: Listener): void;
  /** Folders heard now (for features and tests). */
  size(): number;
  stop(): void;
}

export function createLiveHub(deps: {
  resolver: PathResolver;
  changes: ChangeSink;
  /** What the index's periodic rescan found made outside Burrow (heard as the watcher's are). */
  rescanned?: ChangeSink;
  watcher: FolderWatcher;
  showHidden: (userId: string) => boolean;
  log: Logger;
}): LiveHub {
  const byDir = new Map<string, Set<Subscription>>();
  const byListener = new Map<Listener, Map<string, Subscription>>();

  function add(dir: string, sub: Subscription) {
    let set = byDir.get(dir);
    if (!set) byDir.set(dir, (set = new Set()));
    set.add(sub);
  }

  function remove(sub: Subscription) {
    sub.closed = true;
    clearTimeout(sub.timer);
    for (const dir of sub.dirs) {
      const set = byDir.get(dir);
      set?.delete(sub);
      if (set && set.size === 0) byDir.delete(dir);
    }
    deps.watcher.unwatch(sub.dirs[0]!);
    byListener.get(sub.listener)?.delete(sub.virtualPath);
  }

  /**
   * Queues an event for every subscription of `dir`, one per name: Burrow's own (`outside`
   * false) wins over the watcher's echo of the same write; among the watcher's, the latest
   * wins but a `modified` never hides the `created` before it.
   */
  function note(dir: string, event: LiveEvent, outside: boolean) {
    const set = byDir.get(dir);
    if (!set) return;
    for (const sub of set) {
      if (sub.overflow) continue;
      const p = sub.pending;
      const before = p.get(event.name);
      if (outside) {
        if (before && (!before.outside || (before.event.type === 'created' && event.type === 'modified'))) continue;
        // The watcher's half of a rename Burrow already announced.
        if ([...p.values()].some((e) => !e.outside && e.event.type === 'renamed' && e.event.to === event.name))
          continue;
      } else if (event.type === 'renamed' && event.to) p.delete(event.to);
      p.set(event.name, { event, outside });
      if (p.size > MAX_PENDING) {
        sub.overflow = true;
        p.clear();
      }
      sub.timer ??= setTimeout(() => void flush(sub), FLUSH_MS);
    }
  }

  /**
   * The folder as `caller` sees it now. The subscriptions of one folder flush in the same turn
   * of the event loop (their windows open with the same change), and the tabs of one person ask
   * the same question: one resolve answers them all in that turn (100 tabs on a folder that
   * changes ten times a second cost ten resolves, not a thousand, each a few trips to the disk).
   */
  let checks: Map<string, Promise<ResolvedPath>> | null = null;
  function folderNow(caller: Caller, virtualPath: string): Promise<ResolvedPath> {
    if (!checks) {
      checks = new Map();
      setImmediate(() => (checks = null));
    }
    const key = `${accessKey(caller)}\0${virtualPath}`;
    let answer = checks.get(key);
    if (!answer) checks.set(key, (answer = deps.resolver.resolve(caller, virtualPath, { mustExist: true })));
    return answer;
  }

  /** A change at `p` moves the recursive size of every watched folder's entry on the way up. */
  function noteSizes(p: string) {
    let child = path.dirname(p);
    let dir = path.dirname(child);
    while (dir !== child) {
      if (byDir.has(dir)) note(dir, { type: 'size', name: path.basename(child), isDirectory: true }, false);
      child = dir;
      dir = path.dirname(dir);
    }
  }

  /** A change told by Burrow's writes (`outside` false) or found by the rescan (true). */
  function fromSink(c: Change, outside = false) {
    if (c.type === 'moved') {
      const [a, b] = [path.dirname(c.from), path.dirname(c.to)];
      if (a === b) {
        note(
          a,
          { type: 'renamed', name: path.basename(c.from), to: path.basename(c.to), isDirectory: c.isDirectory },
          outside,
        );
      } else {
        note(a, { type: 'deleted', name: path.basename(c.from), isDirectory: c.isDirectory }, outside);
        note(b, { type: 'created', name: path.basename(c.to), isDirectory: c.isDirectory }, outside);
      }
      noteSizes(c.from);
      noteSizes(c.to);
      return;
    }
    const event: LiveEvent =
      c.type === 'modified'
        ? { type: 'modified', name: path.basename(c.path) }
        : { type: c.type, name: path.basename(c.path), isDirectory: c.isDirectory };
    note(path.dirname(c.path), event, outside);
    noteSizes(c.path);
  }

  function fromWatcher(dir: string, e: WatchedEvent) {
    if (e.name === null) {
      for (const sub of byDir.get(dir) ?? []) {
        sub.overflow = true;
        sub.pending.clear();
        sub.timer ??= setTimeout(() => void flush(sub), FLUSH_MS);
      }
      return;
    }
    note(
      dir,
      { type: e.type, name: e.name, ...(e.isDirectory === undefined ? {} : { isDirectory: e.isDirectory }) },
      true,
    );
  }

  async function flush(sub: Subscription) {
    sub.timer = undefined;
    const events = [...sub.pending.values()].map((p) => p.event);
    const overflow = sub.overflow;
    sub.pending.clear();
    sub.overflow = false;
    if (sub.closed) return;
    const caller = sub.listener.caller();
    try {
      if (!caller) throw new AppError('AUTH_REQUIRED');
      const now = await folderNow(caller, sub.virtualPath);
      if (!now.isDirectory) throw new AppError('NOT_FOUND');
      if (sub.closed) return;
      if (overflow || sub.listener.backlog() > MAX_BACKLOG) {
        sub.listener.send({ type: 'reload', path: sub.virtualPath });
        return;
      }
      // What a listing of the folder would show this caller, and nothing else.
      const showHidden = deps.showHidden(caller.userId);
      const hidden = deps.resolver.hiddenChildren(caller, now);
      const visible = (n: string) => !isReservedName(n) && (showHidden || !n.startsWith('.')) && !hidden(n);
      const shown: LiveEvent[] = [];
      for (const e of events) {
        const from = visible(e.name);
        const to = e.to !== undefined && visible(e.to);
        if (e.type === 'renamed') {
          if (from && to) shown.push(e);
          else if (from) shown.push({ type: 'deleted', name: e.name, isDirectory: e.isDirectory });
          else if (to) shown.push({ type: 'created', name: e.to!, isDirectory: e.isDirectory });
        } else if (from) shown.push(e);
      }
      if (shown.length) sub.listener.send({ type: 'changes', path: sub.virtualPath, events: shown });
    } catch (err) {
      if (sub.closed) return;
      const e = err instanceof AppError ? err : new AppError('NOT_FOUND');
      remove(sub);
      sub.listener.send({ type: 'closed', path: sub.virtualPath, code: e.code, message: e.message });
    }
  }

  const unsubscribe = deps.changes.subscribe((c) => fromSink(c));
  const unhearRescan = deps.rescanned?.subscribe((c) => fromSink(c, true)) ?? (() => {});
  deps.watcher.onEvent(fromWatcher);

  return {
    async watch(listener, virtualPath) {
      const caller = listener.caller();
      if (!caller) throw new AppError('AUTH_REQUIRED');
      const r = await deps.resolver.resolveInside(caller, virtualPath, {
        mustExist: true,
        atTop: 'Watch a folder inside a volume; the list of volumes does not change by itself.',
      });
      if (!r.isDirectory) throw new AppError('BAD_REQUEST', 'That is a file: watch the folder that holds it.');
      const mine = byListener.get(listener) ?? new Map<string, Subscription>();
      byListener.set(listener, mine);
      const old = mine.get(r.virtualPath);
      if (old) remove(old);
      const dirs = [...new Set([r.realPath, r.canonicalPath ?? r.realPath])];
      const sub: Subscription = {
        listener,
        virtualPath: r.virtualPath,
        dirs,
        pending: new Map(),
        overflow: false,
        timer: undefined,
        closed: false,
      };
      for (const dir of dirs) add(dir, sub);
      mine.set(r.virtualPath, sub);
      const outside = deps.watcher.watch(r.realPath);
      return { type: 'watching', path: r.virtualPath, outside };
    },
    unwatch(listener, virtualPath) {
      const mine = byListener.get(listener);
      const norm = virtualPath.split('/').filter(Boolean).join('/');
      const sub = mine?.get(norm) ?? mine?.get(virtualPath);
      if (sub) remove(sub);
    },
    drop(listener) {
      for (const sub of [...(byListener.get(listener)?.values() ?? [])]) remove(sub);
      byListener.delete(listener);
    },
    size: () => byDir.size,
    stop() {
      unsubscribe();
      unhearRescan();
      for (const listener of [...byListener.keys()]) this.drop(listener);
    },
  };
}

/**
 * What decides what a caller may see — who it is and what it holds (a token's scope, a link) —
 * and not which session or token it came by: two tabs of one person get one answer.
 */
function accessKey(c: Caller): string {
  return JSON.stringify([
    c.userId,
    c.isAdmin,
    c.roles,
    c.via,
    c.tokenScope ?? null,
    c.link?.token ?? null,
    c.link?.shareId ?? null,
  ]);
}

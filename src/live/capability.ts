// Live folders: a page that shows a folder hears its changes over one WebSocket per tab
// (GET /api/live, upgraded). The upgrade takes the session cookie only (a page's; API tokens
// and link holders hear nothing) and only from this server's own pages: a browser always
// names the page's Origin on a WebSocket, and one from another site is refused (403
// CROSS_SITE_REFUSED) — cookies ride along on a cross-site upgrade, so without this any page
// could listen to a signed-in person's folders. The protocol is wire.ts; who hears what is
// hub.ts; the outside changes come from watcher.ts. The same socket carries the account's bell:
// each change of its notification inbox goes to the sockets of that account, and no other's —
// on a cluster, whichever instance the change was made on (bell.ts).
import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import type { RawData, WebSocket, WebSocketServer } from 'ws';
import type { ChangeSink } from '../changes.ts';
import type { Caller } from '../core/caller.ts';
import { AppError } from '../core/errors.ts';
import { refuseUpgrade } from '../http/upgrade.ts';
import type { Logger } from '../core/log.ts';
import type { PathResolver } from '../files/paths.ts';
import type { Capability } from '../http/capability.ts';
import type { UpgradeMount } from '../http/server.ts';
import { createLiveHub, type Listener } from './hub.ts';
import { createFolderWatcher } from './watcher.ts';
import { LIVE_SOCKET_PATH, liveClientMessage, type LiveServerMessage } from './wire.ts';
import type { InboxChange } from '../notify/wire.ts';

/** Largest client frame: a watch of one path. */
const MAX_FRAME = 16 * 1024;
/** Folders one socket hears at once (a tab shows one; a split view or a picker a few more). */
const MAX_WATCHES = 16;
/** A silent client is pinged this often and dropped when the ping is not answered by the next one. */
const PING_MS = 30_000;

export interface LiveCapabilityDeps {
  resolver: PathResolver;
  changes: ChangeSink;
  /** On one server, what the index's periodic rescan found made outside Burrow (app.ts). */
  rescanned?: ChangeSink;
  showHidden: (userId: string) => boolean;
  /** The account behind an upgrade request's session cookie (or AUTH_MODE=disabled's), or null. */
  fromSession(req: IncomingMessage): Caller | null;
  /** The same caller as of now: null once its session ended or its account is gone. */
  current(caller: Caller): Caller | null;
  /** Whether the request's Origin, when it names one, is this server's own. */
  sameOrigin(req: IncomingMessage): boolean;
  /**
   * Hears each account's inbox changes (notifications), whichever instance of a cluster made
   * them (live/bell.ts), from start to stop; `wants` says which accounts have a page here.
   */
  inbox?: (fn: (userId: string, change: InboxChange) => void, wants: (userId: string) => boolean) => () => void;
  log: Logger;
}

export interface LiveCapability extends Capability {
  readonly upgrade: UpgradeMount;
}

export function createLiveCapability(deps: LiveCapabilityDeps): LiveCapability {
  const watcher = createFolderWatcher({ log: deps.log });
  const hub = createLiveHub({
    resolver: deps.resolver,
    changes: deps.changes,
    ...(deps.rescanned ? { rescanned: deps.rescanned } : {}),
    watcher,
    showHidden: deps.showHidden,
    log: deps.log,
  });
  // ws is evaluated by the first page that listens, not at start.
  let wss: WebSocketServer | undefined;
  const server = () =>
    (wss ??= new (createRequire(import.meta.url)('ws') as typeof import('ws')).WebSocketServer({
      noServer: true,
      maxPayload: MAX_FRAME,
      perMessageDeflate: false,
      clientTracking: true,
    }));
  let pinger: NodeJS.Timeout | undefined;
  let stopped = false;
  const alive = new WeakMap<WebSocket, boolean>();
  /** The open sockets of each account, for its bell. */
  const byUser = new Map<string, Set<Listener>>();
  let unhearInbox: (() => void) | undefined;

  /** An account's inbox changed: its own sockets hear it, each while its session still holds. */
  function inboxChanged(userId: string, change: InboxChange) {
    for (const listener of byUser.get(userId) ?? []) {
      const now = listener.caller();
      if (!now || now.link || now.userId !== userId) continue;
      listener.send({ type: 'inbox', ...change });
    }
  }

  function join(ws: WebSocket, caller: Caller) {
    const listener: Listener = {
      caller: () => deps.current(caller),
      send(message: LiveServerMessage) {
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
      },
      backlog: () => ws.bufferedAmount,
    };
    let mine = byUser.get(caller.userId);
    if (!mine) byUser.set(caller.userId, (mine = new Set()));
    mine.add(listener);
    let watches = 0;
    alive.set(ws, true);
    ws.on('pong', () => alive.set(ws, true));
    ws.on('message', (data: RawData, binary: boolean) => {
      let parsed;
      try {
        parsed = binary ? null : liveClientMessage.safeParse(JSON.parse(data.toString()));
      } catch {
        parsed = null;
      }
      if (!parsed?.success) return ws.close(1003, 'not a live-folder message');
      const msg = parsed.data;
      if (msg.type === 'ping') return listener.send({ type: 'pong' });
      if (msg.type === 'unwatch') {
        hub.unwatch(listener, msg.path);
        watches = Math.max(0, watches - 1);
        return;
      }
      if (watches >= MAX_WATCHES) {
        const e = new AppError('BAD_REQUEST', `One page hears at most ${MAX_WATCHES} folders at once.`);
        return listener.send({ type: 'closed', path: msg.path, code: e.code, message: e.message });
      }
      watches++;
      hub.watch(listener, msg.path).then(
        (answer) => listener.send(answer),
        (err) => {
          watches--;
          const e = err instanceof AppError ? err : new AppError('NOT_FOUND');
          listener.send({ type: 'closed', path: msg.path, code: e.code, message: e.message });
        },
      );
    });
    ws.on('close', () => {
      hub.drop(listener);
      const set = byUser.get(caller.userId);
      set?.delete(listener);
      if (set && !set.size) byUser.delete(caller.userId);
    });
    ws.on('error', () => ws.terminate());
  }

  const upgrade: UpgradeMount = {
    path: LIVE_SOCKET_PATH,
    handle(req, socket, head, { requestId }) {
      if (!deps.sameOrigin(req)) return refuseUpgrade(socket, new AppError('CROSS_SITE_REFUSED'), requestId);
      if (req.headers.authorization) return refuseUpgrade(socket, new AppError('AUTH_TOKEN_NOT_ALLOWED'), requestId);
      const caller = deps.fromSession(req);
      if (!caller || caller.link) return refuseUpgrade(socket, new AppError('AUTH_REQUIRED'), requestId);
      server().handleUpgrade(req, socket, head, (ws) => join(ws, caller));
    },
  };

  return {
    routes: [],
    upgrade,
    features: () => ({ live: { enabled: true, socketPath: LIVE_SOCKET_PATH } }),
    start() {
      unhearInbox = deps.inbox?.(inboxChanged, (userId) => byUser.has(userId));
      pinger = setInterval(() => {
        for (const ws of wss?.clients ?? []) {
          if (!alive.get(ws)) {
            ws.terminate();
            continue;
          }
          alive.set(ws, false);
          ws.ping();
        }
      }, PING_MS);
      pinger.unref();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      unhearInbox?.();
      clearInterval(pinger);
      for (const ws of wss?.clients ?? []) ws.terminate();
      hub.stop();
      watcher.close();
      await new Promise<void>((resolve) => (wss ? wss.close(() => resolve()) : resolve()));
    },
  };
}

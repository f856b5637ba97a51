// Live folders: one WebSocket per tab (/api/live) over which the folder on screen is watched.
// The server says `watching` (fetch the listing: after a reconnect, what happened meanwhile is
// not replayed), `changes` (names that came, changed, moved or went; sub-folder sizes that
// moved), `reload` (too much at once: fetch again) or `closed` (gone, or no longer visible).
// The socket comes back by itself after sleep or lost Wi-Fi, at once when the page is shown
// again or the network returns, else after 1 s, 2 s, … 30 s; it is given up when the browser
// goes offline. The same socket brings this account's bell (`inbox`: new events, the unread
// count) while the bell listens, whether or not a folder is on screen.
import type { LiveServerMessage } from '../../../src/live/wire.ts';

type Handler = (message: LiveServerMessage) => void;
type InboxMessage = Extract<LiveServerMessage, { type: 'inbox' }>;
const inboxHandlers = new Set<(message: InboxMessage) => void>();
/** Whether anything on the page listens (a folder or the bell). */
const wanted = () => watched !== null || inboxHandlers.size > 0;
/** Called each time the socket opens (after a reconnect, what happened meanwhile is to be fetched). */
const openHandlers = new Set<() => void>();

let socket: WebSocket | null = null;
let watched: { path: string; handler: Handler } | null = null;
let retryMs = 1000;
let retry: ReturnType<typeof setTimeout> | undefined;
let listening = false;

function send(message: object) {
  if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

function open() {
  clearTimeout(retry);
  retry = undefined;
  if (socket || !wanted()) return;
  const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/live`);
  socket = ws;
  ws.onopen = () => {
    retryMs = 1000;
    if (watched) send({ type: 'watch', path: watched.path });
    for (const fn of openHandlers) fn();
  };
  ws.onmessage = (e) => {
    let message: LiveServerMessage;
    try {
      message = JSON.parse(String(e.data)) as LiveServerMessage;
    } catch {
      return;
    }
    if (message.type === 'inbox') {
      for (const fn of inboxHandlers) fn(message);
      return;
    }
    if ('path' in message && watched && message.path.normalize() === watched.path.normalize()) watched.handler(message);
  };
  ws.onclose = () => {
    if (socket === ws) socket = null;
    if (!wanted()) return;
    retry = setTimeout(open, retryMs);
    retryMs = Math.min(30_000, retryMs * 2);
  };
}

/** Back at once when the page is shown again or the network returns. */
function listen() {
  if (listening) return;
  listening = true;
  const again = () => {
    if (!socket && wanted() && document.visibilityState === 'visible') {
      retryMs = 1000;
      open();
    }
  };
  document.addEventListener('visibilitychange', again);
  window.addEventListener('online', again);
  // Gone off the network: the socket is given up at once (it would only learn it at the next
  // ping), and the folder is fetched again when the network is back.
  window.addEventListener('offline', () => {
    const ws = socket;
    socket = null;
    clearTimeout(retry);
    retry = undefined;
    if (ws) {
      ws.onclose = null;
      ws.onmessage = null;
      ws.close();
    }
  });
}

/** Hears the folder at `path` until the returned function is called (one folder per tab). */
export function watchFolder(path: string, handler: Handler): () => void {
  if (typeof WebSocket === 'undefined') return () => {};
  listen();
  if (watched && watched.path !== path) send({ type: 'unwatch', path: watched.path });
  const mine = { path, handler };
  watched = mine;
  if (socket?.readyState === WebSocket.OPEN) send({ type: 'watch', path });
  else open();
  return () => {
    if (watched !== mine) return;
    send({ type: 'unwatch', path });
    watched = null;
  };
}

/**
 * Hears this account's bell until the returned function is called: `onChange` for each change
 * of its inbox, `onOpen` each time the socket (re)opens (what came while away is fetched then).
 */
export function hearInbox(onChange: (message: InboxMessage) => void, onOpen: () => void): () => void {
  if (typeof WebSocket === 'undefined') return () => {};
  listen();
  inboxHandlers.add(onChange);
  openHandlers.add(onOpen);
  if (!socket) open();
  return () => {
    inboxHandlers.delete(onChange);
    openHandlers.delete(onOpen);
  };
}

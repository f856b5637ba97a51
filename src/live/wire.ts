// Wire shapes of live folders: the messages on the WebSocket at /api/live (JSON text frames).
// The UI imports them.
import { z } from 'zod';
import { inboxChange } from '../notify/wire.ts';

export const LIVE_SOCKET_PATH = '/api/live';

/** Client → server. `watch` starts hearing a folder (its listing is the client's to fetch). */
export const liveClientMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('watch'), path: z.string().max(4096) }).strict(),
  z.object({ type: z.literal('unwatch'), path: z.string().max(4096) }).strict(),
  z.object({ type: z.literal('ping') }).strict(),
]);
export type LiveClientMessage = z.infer<typeof liveClientMessage>;

/** One change among a folder's entries, by name; `size`: a sub-folder's recursive size moved. */
export const liveEvent = z.object({
  type: z.enum(['created', 'modified', 'deleted', 'renamed', 'size']),
  name: z.string(),
  /** The new name of a `renamed` entry. */
  to: z.string().optional(),
  isDirectory: z.boolean().optional(),
});
export type LiveEvent = z.infer<typeof liveEvent>;

/** Server → client. */
export const liveServerMessage = z.discriminatedUnion('type', [
  /** The folder is heard from now on: fetch its listing now (also after a reconnect). */
  z.object({
    type: z.literal('watching'),
    path: z.string(),
    /** How changes made outside Burrow are found there: at once, or by the index's periodic rescan. */
    outside: z.enum(['live', 'rescan']),
  }),
  /** Changes in a watched folder, coalesced (at most one message per folder per ~100 ms). */
  z.object({ type: z.literal('changes'), path: z.string(), events: z.array(liveEvent) }),
  /** Too much changed, or this client fell behind: fetch the folder's listing again. */
  z.object({ type: z.literal('reload'), path: z.string() }),
  /** The folder cannot be heard (gone, or no longer visible to this account): it is no longer watched. */
  z.object({ type: z.literal('closed'), path: z.string(), code: z.string(), message: z.string() }),
  z.object({ type: z.literal('pong') }),
  /**
   * This account's bell changed (sent to its own pages only, watching or not): `items` are the
   * new events exactly as GET /api/notify/inbox lists them (none when some were marked read on
   * another page), `unread` the count after them.
   */
  inboxChange.extend({ type: z.literal('inbox') }),
]);
export type LiveServerMessage = z.infer<typeof liveServerMessage>;

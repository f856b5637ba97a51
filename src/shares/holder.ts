// The link holder's side of sharing: what a link is to someone who has its address (info), giving
// its password (unlock: a visitor session), holding it for a request (hold: the `link` a link
// row's handler gets, see http/link.ts), and what using it counts (accesses, downloads, a file
// request's files and bytes, the owner's activity log). Unknown, expired and deleted links
// answer one identical 404. A visitor session is a random id in a cookie scoped to the link's
// API path, its HMAC in the table, VISITOR_SESSION_MS long, ended when the link's password
// changes.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { stringifySetCookie } from 'cookie';
import { AppError } from '../core/errors.ts';
import type { Caller } from '../core/caller.ts';
import type { ActivityEvent } from '../activity/service.ts';
import { verifyPassword } from '../accounts/passwords.ts';
import type { Limit, RateLimiter } from '../accounts/rate-limits.ts';
import type { LinkGate } from '../http/link.ts';
import type { PathResolver } from '../files/paths.ts';
import type { LinkInfo } from './wire.ts';
import type { ShareRow, ShareStore } from './store.ts';
import { expired, LINK_COOKIE, linkGone, type Links } from './links.ts';

/** A held link: the caller its holder acts as (it reaches this link and nothing else) and its share. */
export interface LinkHolder {
  caller: Caller;
  row: ShareRow;
}

// The `link` a link row's handler gets (http/route.ts names no share type).
declare module '../http/route.ts' {
  interface LinkTypes {
    held: LinkHolder;
  }
}

/** The cookie naming a limited link's holder, so that what they took lately is not counted again. */
export const TAKER_COOKIE = 'burrow_taker';
/** How long a file taken through a limited link stays taken for its holder (a video watched, sought, resumed). */
export const TAKEN_FOR_MS = 3_600_000;

/**
 * How bytes are asked for: a HEAD (nothing taken) and the holder's taker cookie. What a link's
 * holder takes counts on a link with a download limit: every download, zip, raw or inline view,
 * screen-sized preview and editor read is one, claimed before the bytes go; the same holder
 * taking the same file again within TAKEN_FOR_MS (a video's Range requests, a resumed download,
 * the preview of a photo they opened) is still that one. A listing and its small thumbnails
 * take nothing. Unlimited links count only downloads, as always.
 */
export interface TakeAsk {
  head: boolean;
  taker?: string | undefined;
}
/** The taker cookie to set, when this holder had none. */
export interface Taken {
  cookie?: string;
}

/** How long a visitor stays let in after giving a link's password. */
export const VISITOR_SESSION_MS = 12 * 3_600_000;
/** Password guesses per address and link, and per link from anywhere. */
/** At most one download message per link this often (the next carries the count of all). */
const TOLD_EVERY_MS = 10 * 60_000;

export const LINK_PASSWORD_LIMITS = {
  perAddress: { max: 10, windowMs: 15 * 60_000 },
  perLink: { max: 100, windowMs: 15 * 60_000 },
} satisfies Record<string, Limit>;

export interface LinkHoldingDeps {
  store: ShareStore;
  /** The link rules the resolver also asks (links.ts), built before it. */
  links: Links;
  resolver: PathResolver;
  limiter: RateLimiter;
  activity: { record(event: ActivityEvent): void };
  publicUrl: string | null;
}

export type LinkHolding = ReturnType<typeof createLinkHolding>;

export function createLinkHolding(deps: LinkHoldingDeps) {
  const { store, resolver } = deps;
  const secure = deps.publicUrl?.toLowerCase().startsWith('https:') ?? false;
  const { hmac, allowOf, admit } = deps.links;
  const spaceOf = (row: ShareRow) => deps.links.spaceOf(row, (c, p, o) => resolver.resolve(c, p, o));

  /**
   * The link held by this request: admitted by account, users list or `visitor` (the visitor
   * cookie's value). `address` is the request's (the activity log names the link and where it
   * was used from).
   */
  function hold(
    token: string,
    caller: Caller | null,
    visitor: string | undefined,
    address?: string,
    taker?: string,
  ): LinkHolder {
    const found = store.byToken(token);
    // A spent link still answers the holder who is taking one of its files (the rest of a video).
    const row = admit(found, caller, visitor, found !== undefined && stillTaking(found, taker));
    const linkCaller: Caller = {
      userId: caller?.userId ?? `link:${row.id}`,
      username: caller?.username ?? `link ${row.label ?? row.token.slice(0, 6)}`,
      roles: [],
      isAdmin: false,
      via: caller?.via === 'token' ? 'token' : 'session',
      ...(caller?.tokenScope ? { tokenScope: caller.tokenScope } : {}),
      ...(caller?.tokenId ? { tokenId: caller.tokenId } : {}),
      ...((address ?? caller?.address) ? { address: (address ?? caller?.address)! } : {}),
      link: { token: row.token, shareId: row.id },
    };
    return { caller: linkCaller, row };
  }

  /**
   * Bytes are about to be taken through the link (`take`'s doc says what counts). `file` is the
   * one file taken (a zip names none): a holder's Range series of it, a revalidation, the
   * preview of what they have just viewed, within TAKEN_FOR_MS, is the same download.
   */
  function take(row: ShareRow, ask: TakeAsk, download: boolean, file?: string): Taken {
    if (row.max_downloads === null) {
      if (!ask.head) {
        store.touch(row.id, download);
        tell(row, download);
      }
      return {};
    }
    // A HEAD takes no bytes: it counts nothing (the link, spent, already answered 404).
    if (ask.head) return {};
    const now = Date.now();
    const at = new Date(now).toISOString();
    if (ask.taker && file && store.tookLately(hmac(`taker:${ask.taker}`), row.id, file, at)) return {};
    // Claimed in one statement: of twenty holders racing for the last three, three get them.
    if (!store.claimDownload(row.id)) throw linkGone();
    tell(row, true);
    if (!file) return {};
    const taker = ask.taker ?? randomBytes(32).toString('base64url');
    store.markTaken(hmac(`taker:${taker}`), row.id, file, new Date(now + TAKEN_FOR_MS).toISOString(), at);
    if (ask.taker) return {};
    return {
      cookie: stringifySetCookie({
        name: TAKER_COOKIE,
        value: taker,
        path: `/api/share/${row.token}`,
        httpOnly: true,
        sameSite: 'strict',
        secure,
        maxAge: Math.floor(TAKEN_FOR_MS / 1000),
      }),
    };
  }
  /**
   * What the link's owner is told (the notification outbox, through the activity log): its first
   * opening, and its downloads with their count — at most one message per link every
   * TOLD_EVERY_MS (a video's Range requests, a gallery taken file by file), the next one carrying
   * the count of all. The time is the link's row (`told_until`), so a cluster tells once.
   */
  function tell(row: ShareRow, download: boolean): void {
    const now = store.byId(row.id);
    if (!now) return;
    const detail = { shareId: row.id, path: row.path };
    if (!download) {
      if (now.access_count === 1)
        deps.activity.record({ action: 'share.link.opened', outcome: 'success', userId: row.user_id, detail });
      return;
    }
    const at = Date.now();
    if (!store.claimTelling(row.id, new Date(at).toISOString(), new Date(at + TOLD_EVERY_MS).toISOString())) return;
    deps.activity.record({
      action: 'share.link.downloaded',
      outcome: 'success',
      userId: row.user_id,
      detail: { ...detail, count: now.download_count },
    });
  }

  /**
   * Whether a limited link's holder took one of its files lately: rows (share_takers) keyed by
   * the HMAC of their taker cookie, so any instance of a cluster knows it.
   */
  function stillTaking(row: ShareRow, taker: string | undefined): boolean {
    if (!taker || row.max_downloads === null) return false;
    return store.takingAny(hmac(`taker:${taker}`), row.id, new Date().toISOString());
  }

  /** The row pipeline's step for `access: 'link'` rows (http/link.ts). */
  const gate: LinkGate = { cookie: LINK_COOKIE, takerCookie: TAKER_COOKIE, hold };

  return {
    gate,
    hold,

    /** Public facts of a link; unknown, expired and deleted links are one 404. */
    async info(token: string, caller: Caller | null, visitor: string | undefined): Promise<LinkInfo> {
      const row = store.byToken(token);
      if (!row || expired(row) || !(await spaceOf(row))) throw linkGone();
      let needsPassword = false;
      try {
        admit(row, caller, visitor);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        if (err.code === 'LINK_PASSWORD_REQUIRED') needsPassword = true;
        else if (err.code !== 'LINK_SIGN_IN_REQUIRED') throw err;
      }
      const a = allowOf(row);
      return {
        shareToken: row.token,
        isDirectory: row.is_directory === 1,
        hasPassword: row.password_hash !== null,
        sharingType: row.sharing_type,
        isExpired: false,
        label: row.label,
        expiresAt: row.expires_at,
        name: path.posix.basename(row.path),
        isFileRequest: row.file_request === 1,
        needsPassword,
        allow: {
          download: a.canDownload!,
          upload: a.canUpload!,
          createFile: a.canCreateFile!,
          createFolder: a.canCreateFolder!,
          rename: a.canRename!,
          delete: a.canDelete!,
          edit: a.canWrite!,
        },
      };
    },

    /** Checks a link's password (rate-limited like sign-in); answers the visitor cookie. */
    async unlock(token: string, password: string, caller: Caller | null, ip: string): Promise<string | null> {
      deps.limiter.hit(`link-password:${ip}:${token.slice(0, 64)}`, LINK_PASSWORD_LIMITS.perAddress);
      const row = store.byToken(token);
      if (!row || expired(row)) throw linkGone();
      deps.limiter.hit(`link-password:${row.id}`, LINK_PASSWORD_LIMITS.perLink);
      if (!row.password_hash) return null;
      if (!(await verifyPassword(password, row.password_hash))) throw new AppError('LINK_PASSWORD_WRONG');
      const id = randomBytes(32).toString('base64url');
      const expiresAt = new Date(Date.now() + VISITOR_SESSION_MS).toISOString();
      store.sessionInsert(hmac(id), row.id, row.password_gen, null, expiresAt);
      if (caller?.sessionId && !caller.link)
        store.sessionInsert(hmac(`${id}:account`), row.id, row.password_gen, caller.sessionId, expiresAt);
      return stringifySetCookie({
        name: LINK_COOKIE,
        value: id,
        path: `/api/share/${row.token}`,
        httpOnly: true,
        sameSite: 'strict',
        secure,
        maxAge: Math.floor(VISITOR_SESSION_MS / 1000),
        expires: new Date(Date.now() + VISITOR_SESSION_MS),
      });
    },

    touch: (row: ShareRow, download: boolean) => {
      store.touch(row.id, download);
      tell(row, download);
    },
    take,
    reserve: (row: ShareRow, bytes: number) => store.reserve(row.id, bytes),
    release: (row: ShareRow, bytes: number) => store.release(row.id, bytes),
    settle: (row: ShareRow, files: number, bytes: number) => store.settle(row.id, files, bytes),
    received(row: ShareRow, file: { name: string; size: number; path: string }, ip: string) {
      deps.activity.record({
        action: 'share.file-request.received',
        outcome: 'success',
        userId: row.user_id,
        ip,
        detail: { shareId: row.id, label: row.label, ...file },
      });
    },
    sweep: () => store.sweepSessions(),
  };
}

// A link's rules, which both the resolver (`share/<token>/…` as a space) and the shares service
// ask: who may use a link (admit), and the link's space — the owner's item as it is now,
// narrowed by the link's allow flags. Built before the resolver, so it takes the resolver's
// `resolve` as an argument at each call instead of holding the resolver.
import { createHmac } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../core/errors.ts';
import type { Caller } from '../core/caller.ts';
import { isInside, type PathResolver, type ResolvedPath, type ShareBinding, type Space } from '../files/paths.ts';
import type { ShareRow, ShareStore } from './store.ts';
import { callerOf } from '../accounts/caller.ts';

export const LINK_COOKIE = 'burrow_link';
export const linkGone = () => new AppError('LINK_NOT_FOUND');
/** Past its date. */
export const pastDate = (row: ShareRow) => row.expires_at !== null && row.expires_at <= new Date().toISOString();
/** A limited link that has given all its downloads. */
export const spent = (row: ShareRow) => row.max_downloads !== null && row.download_count >= row.max_downloads;
/** Past its date, or past its download count: either way the link answers like an unknown one. */
export const expired = (row: ShareRow) => pastDate(row) || spent(row);

type Resolve = PathResolver['resolve'];

export type Links = ReturnType<typeof createLinks>;

export function createLinks(deps: { store: ShareStore; sessionSecret: string }) {
  const { store } = deps;
  const hmac = (id: string) => createHmac('sha256', deps.sessionSecret).update(`share-visitor:${id}`).digest('hex');

  function ownerCaller(userId: string): Caller | null {
    const a = store.account(userId);
    return a ? callerOf(a, 'session') : null;
  }

  function allowOf(row: ShareRow): ShareBinding['allow'] {
    const request = row.file_request === 1;
    return {
      canRead: !request,
      canDownload: !request && row.allow_download === 1,
      canUpload: row.allow_upload === 1,
      canCreateFile: !request && row.allow_create_file === 1,
      canCreateFolder: !request && row.allow_create_folder === 1,
      canRename: !request && row.allow_rename === 1,
      canDelete: !request && row.allow_delete === 1,
      canWrite: !request && row.allow_edit === 1,
    };
  }

  /** The link's space: the owner's item as it is now (the owner must still reach it). */
  async function spaceOf(row: ShareRow, resolve: Resolve): Promise<Space | null> {
    const owner = ownerCaller(row.user_id);
    if (!owner) return null;
    let r: ResolvedPath;
    try {
      r = await resolve(owner, row.path, { mustExist: true });
    } catch {
      return null;
    }
    if (!r.space || Boolean(row.is_directory) !== r.isDirectory) return null;
    const root = await fsp.realpath(r.realPath).catch(() => null);
    if (!root || !isInside(r.space.root, root)) return null;
    return {
      kind: 'share',
      name: path.posix.basename(row.path),
      path: `share/${row.token}`,
      root,
      readOnly: r.access.readOnly,
      share: {
        ownerId: row.user_id,
        ownerSpace: r.space,
        sourcePath: r.virtualPath,
        sourceRelative: r.relative,
        allow: allowOf(row),
      },
    };
  }

  /**
   * May this caller use the link — by account, the users list, or `visitor` (the value of the
   * request's LINK_COOKIE, read by the HTTP adapter)? Throws the refusal. `stillTaking`: a spent
   * link's holder is still taking a file it gave them (holder.ts: TakeAsk).
   */
  function admit(row: ShareRow | undefined, caller: Caller | null, visitor?: string, stillTaking = false): ShareRow {
    if (!row || (stillTaking ? pastDate(row) : expired(row))) throw linkGone();
    if (caller && caller.userId === row.user_id && !caller.link) return row;
    if (row.sharing_type === 'users') {
      if (!caller || caller.link) throw new AppError('LINK_SIGN_IN_REQUIRED');
      if (!store.isPermitted(row.id, caller.userId)) throw linkGone();
      return row;
    }
    if (row.password_hash) {
      const ok =
        (visitor && store.sessionValid(hmac(visitor), row.id, row.password_gen)) ||
        (caller?.sessionId && store.accountUnlocked(caller.sessionId, row.id, row.password_gen));
      if (!ok) throw new AppError('LINK_PASSWORD_REQUIRED');
    }
    return row;
  }

  // The resolver asks here for `share/<token>/…`: a signed-in caller through the API's own
  // routes, or a link holder's caller made by linkCaller (already admitted with its cookie).
  /** The resolver's `share/<token>` space for this caller, or null (a password link without its cookie throws). */
  async function shareSpace(caller: Caller | null, token: string, resolve: Resolve): Promise<Space | null> {
    const row = store.byToken(token);
    // A link holder was admitted by this request's gate (which lets a spent link's holder finish
    // taking a file it gave them: its count is held at the take).
    if (!row || (caller?.link ? pastDate(row) : expired(row))) return null;
    if (!caller?.link) {
      // A link with a download limit is held only through its own rows, which count every byte
      // taken: the API's other routes and WebDAV do not reach it (they would not count).
      if (row.max_downloads !== null) return null;
      try {
        admit(row, caller);
      } catch (err) {
        if (err instanceof AppError && err.code === 'LINK_PASSWORD_REQUIRED') throw err;
        return null;
      }
    }
    return spaceOf(row, resolve);
  }

  return { hmac, allowOf, admit, spaceOf, shareSpace };
}

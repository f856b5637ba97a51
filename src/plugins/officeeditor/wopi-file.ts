// One call back of the editing server, as every WOPI operation starts it: the access token
// checked, its account and file resolved again (a token outliving a removed right gains
// nothing), and the rules the operations share — who may write, and the locks a write must
// respect: the WOPI lock (409 with X-WOPI-Lock naming the lock held) and another account's
// WebDAV lock (the same 409, X-WOPI-LockedByOtherInterface, as the WOPI spec asks of a file
// locked through another interface).
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { ChangeSink } from '../../changes.ts';
import type { Caller } from '../../core/caller.ts';
import { AppError } from '../../core/errors.ts';
import { fileEvent, shownPath, type ActivitySink } from '../../files/activity.ts';
import type { WorkJournal } from '../../files/journal.ts';
import type { ItemLocks } from '../../files/locks.ts';
import type { InsidePath, PathResolver } from '../../files/paths.ts';
import type { VersionService } from '../../versions/service.ts';
import type { LockStore } from './locks-store.ts';
import { fileIdFor, signFileToken, verifyFileToken, type FileClaims } from './tokens.ts';

export const WOPI_AUDIENCE = 'burrow-wopi';

/** What a thin route writes back: a status, headers, and a JSON body or a file stream. */
export interface WopiAnswer {
  status: number;
  headers: Record<string, string>;
  json?: unknown;
  stream?: Readable;
}

export type WopiHeaders = Record<string, string | string[] | undefined>;

export type WopiBody = AsyncIterable<Uint8Array> | Readable;

export interface WopiDeps {
  /** Saves go to the activity log as the account the token was issued to. */
  activity?: ActivitySink;
  resolver: PathResolver;
  versions: VersionService;
  changes: ChangeSink;
  /** The work journal (files capability): a save's temporary is on it until placed or removed. */
  journal: WorkJournal;
  /** The WOPI locks (built by the composition root). */
  locks: LockStore;
  /** Every door's locks (files/locks.ts): a save or a lock respects another account's WebDAV lock. */
  itemLocks: ItemLocks;
  /** The account behind a token, as a caller (null when it no longer exists or may not sign in). */
  callerFor(userId: string): Caller | null;
  secret: string;
  key: Uint8Array;
  /** Public base of Burrow (PUBLIC_URL), without a trailing slash. */
  publicUrl: string;
  tokenTtlMs: number;
  maxFileSize: number;
}

/** A call back's file as its token's account sees it now. */
export interface WopiFile {
  fileId: string;
  caller: Caller;
  claims: FileClaims;
  file: InsidePath;
  canWrite: boolean;
}

export const header = (h: WopiHeaders, name: string): string | undefined => {
  const v = h[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
};

/** WOPI's lock mismatch: 409 with the lock held ('' when none, or held through another interface). */
export const lockConflict = (current: string, reason: string, otherInterface = false) =>
  new AppError('WOPI_LOCK_MISMATCH', reason, {
    headers: {
      'X-WOPI-Lock': current,
      'X-WOPI-LockFailureReason': reason,
      ...(otherInterface ? { 'X-WOPI-LockedByOtherInterface': 'true' } : {}),
    },
  });

/** Reads and drops a body the call will not use, so the connection stays usable. */
export function drain(body: WopiBody): void {
  if (typeof (body as Readable).resume === 'function') (body as Readable).resume();
}

export const fileIdOf = (deps: Pick<WopiDeps, 'secret'>, file: InsidePath) => fileIdFor(deps.secret, file.realPath);

export const wopiSrcOf = (deps: Pick<WopiDeps, 'publicUrl'>, fileId: string) =>
  `${deps.publicUrl}/api/officeeditor/wopi/files/${fileId}`;

/** A token and file id for `file` as `caller` sees it (config routes, PutRelativeFile's new file). */
export async function issueFileToken(
  deps: WopiDeps,
  caller: Caller,
  file: InsidePath,
  canWrite: boolean,
): Promise<{ fileId: string; token: string; expiresAt: number }> {
  const fileId = fileIdOf(deps, file);
  const { token, expiresAt } = await signFileToken(
    deps.key,
    WOPI_AUDIENCE,
    { userId: caller.userId, fileId, path: file.virtualPath, canWrite },
    deps.tokenTtlMs,
  );
  return { fileId, token, expiresAt };
}

/** The token's file, checked again for its account and rights; 404 when the path now names another file. */
export async function openWopiFile(deps: WopiDeps, fileId: string, token: unknown): Promise<WopiFile> {
  const claims = await verifyFileToken(deps.key, WOPI_AUDIENCE, token, fileId);
  const caller = deps.callerFor(claims.userId);
  if (!caller)
    throw new AppError('OFFICE_TOKEN_INVALID', 'The account behind this access token can no longer sign in.');
  const file = await deps.resolver.resolve(caller, claims.path, { mustExist: true });
  // The path now names another file (moved, replaced by a folder): the token's file is gone.
  if (!file.space || file.isDirectory || fileIdOf(deps, file) !== fileId)
    throw new AppError('NOT_FOUND', 'No such file.');
  return { fileId, caller, claims, file, canWrite: claims.canWrite && file.access.canWrite };
}

/** The file's folder when the token's account may create files in it, else null. */
export async function folderWritable(deps: WopiDeps, w: WopiFile): Promise<InsidePath | null> {
  if (!w.claims.canWrite) return null;
  const parent = await deps.resolver
    .resolveInside(w.caller, path.posix.dirname(w.file.virtualPath), { mustExist: true })
    .catch(() => null);
  return parent?.access.canWrite ? parent : null;
}

export function assertMayWrite(w: WopiFile): void {
  if (!w.canWrite) throw new AppError('READ_ONLY', 'This access token does not allow changing the file.');
}

/** The lock rule of PutFile: a held lock must be presented; an unlocked non-empty file is refused to a client that uses locks. */
export function assertLockAllowsWrite(
  deps: WopiDeps,
  fileId: string,
  presented: string | undefined,
  size: number,
): void {
  const held = deps.locks.current(fileId);
  if (held !== '' && presented !== held) throw lockConflict(held, 'The file is locked by another editing session.');
  if (held === '' && presented !== undefined && presented !== '' && size !== 0)
    throw lockConflict('', 'The file is not locked.');
}

/**
 * Another account's exclusive WebDAV lock on `file` holds against the editor as it does against
 * the API: WOPI's lock mismatch. The WebDAV lock's token is not a WOPI lock, so X-WOPI-Lock is
 * empty and X-WOPI-LockedByOtherInterface says why.
 */
export function assertNoOtherDoorLock(deps: WopiDeps, caller: Caller, file: InsidePath): void {
  try {
    deps.itemLocks.assertFree(caller, file, { except: 'office' });
  } catch (err) {
    // The reason is a header: plain ASCII, without the file's name (a name's '–' or 'é' is no header text).
    if (err instanceof AppError && err.code === 'LOCKED')
      throw lockConflict('', 'The file is locked by a WebDAV client of another account.', true);
    throw err;
  }
}

export function recordSave(deps: WopiDeps, caller: Caller, file: InsidePath, asNew: boolean): void {
  deps.activity?.record(
    fileEvent(caller, 'office.save', { path: shownPath(file), via: 'WOPI', ...(asNew ? { as: 'new file' } : {}) }),
  );
}

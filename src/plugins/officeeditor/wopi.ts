// The WOPI host: the operations an editing server calls on /api/officeeditor/wopi/files/{id},
// authorised only by the access_token. Each call re-checks the account and its rights on the
// file (a token outliving a removed right gains nothing). A save keeps the replaced content as
// a version; locks follow the protocol (409 with X-WOPI-Lock naming the lock held).
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { ChangeSink } from '../../changes.ts';
import { AppError } from '../../core/errors.ts';
import type { Caller } from '../../core/caller.ts';
import { assertPlainName, candidateName, placeFile, splitName } from '../../files/names.ts';
import { joinVirtual, type PathResolver, type ResolvedPath } from '../../files/paths.ts';
import type { VersionService } from '../../versions/service.ts';
import { fileEvent, shownPath, type ActivitySink } from '../../files/activity.ts';
import type { WorkJournal } from '../../files/journal.ts';
import { discardTemporary, openForRead, replaceKeepingVersion, versionOf, writeTemporary } from './content.ts';
import { MAX_LOCK_LENGTH, type LockStore } from './locks.ts';
import { decodeUtf7, encodeUtf7, fileIdFor, signFileToken, verifyFileToken, type FileClaims } from './tokens.ts';

export const WOPI_AUDIENCE = 'burrow-wopi';

/** What a thin route writes back: a status, headers, and a JSON body or a file stream. */
export interface WopiAnswer {
  status: number;
  headers: Record<string, string>;
  json?: unknown;
  stream?: Readable;
}

export type WopiHeaders = Record<string, string | string[] | undefined>;

export interface WopiDeps {
  /** Saves go to the activity log as the account the token was issued to. */
  activity?: ActivitySink;
  resolver: PathResolver;
  versions: VersionService;
  changes: ChangeSink;
  /** The work journal (files capability): a save's temporary is on it until placed or removed. */
  journal: WorkJournal;
  locks: LockStore;
  /** The account behind a token, as a caller (null when it no longer exists or may not sign in). */
  callerFor(userId: string): Caller | null;
  secret: string;
  key: Uint8Array;
  /** Public base of Burrow (PUBLIC_URL), without a trailing slash. */
  publicUrl: string;
  tokenTtlMs: number;
  maxFileSize: number;
}

export interface WopiFile {
  caller: Caller;
  claims: FileClaims;
  file: ResolvedPath;
  canWrite: boolean;
}

export interface WopiHost {
  /** A token and file id for `file` as `caller` sees it (config routes). */
  issue(
    caller: Caller,
    file: ResolvedPath,
    canWrite: boolean,
  ): Promise<{ fileId: string; token: string; expiresAt: number }>;
  /** The WOPISrc of a file id. */
  wopiSrc(fileId: string): string;
  checkFileInfo(fileId: string, token: unknown): Promise<WopiAnswer>;
  getFile(fileId: string, token: unknown, headers: WopiHeaders): Promise<WopiAnswer>;
  putFile(
    fileId: string,
    token: unknown,
    headers: WopiHeaders,
    body: AsyncIterable<Uint8Array> | Readable,
  ): Promise<WopiAnswer>;
  /** POST /files/{id}: dispatches on X-WOPI-Override (LOCK, GET_LOCK, REFRESH_LOCK, UNLOCK, PUT_RELATIVE…). */
  fileOperation(
    fileId: string,
    token: unknown,
    headers: WopiHeaders,
    body: AsyncIterable<Uint8Array> | Readable,
  ): Promise<WopiAnswer>;
}

const header = (h: WopiHeaders, name: string): string | undefined => {
  const v = h[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
};

const lockConflict = (current: string, reason: string) =>
  new AppError('WOPI_LOCK_MISMATCH', reason, {
    headers: { 'X-WOPI-Lock': current, 'X-WOPI-LockFailureReason': reason },
  });

function drain(body: AsyncIterable<Uint8Array> | Readable): void {
  if (typeof (body as Readable).resume === 'function') (body as Readable).resume();
}

export function createWopiHost(deps: WopiDeps): WopiHost {
  const idOf = (file: ResolvedPath) => fileIdFor(deps.secret, file.realPath);
  const wopiSrc = (fileId: string) => `${deps.publicUrl}/api/officeeditor/wopi/files/${fileId}`;
  const saved = (caller: Caller, file: ResolvedPath, asNew: boolean) =>
    deps.activity?.record(
      fileEvent(caller, 'office.save', { path: shownPath(file), via: 'WOPI', ...(asNew ? { as: 'new file' } : {}) }),
    );

  async function open(fileId: string, token: unknown): Promise<WopiFile> {
    const claims = await verifyFileToken(deps.key, WOPI_AUDIENCE, token, fileId);
    const caller = deps.callerFor(claims.userId);
    if (!caller)
      throw new AppError('OFFICE_TOKEN_INVALID', 'The account behind this access token can no longer sign in.');
    const file = await deps.resolver.resolve(caller, claims.path, { mustExist: true });
    // The path now names another file (moved, replaced by a folder): the token's file is gone.
    if (!file.space || file.isDirectory || idOf(file) !== fileId) throw new AppError('NOT_FOUND', 'No such file.');
    return { caller, claims, file, canWrite: claims.canWrite && file.access.canWrite };
  }

  async function folderWritable(w: WopiFile): Promise<ResolvedPath | null> {
    if (!w.claims.canWrite) return null;
    const parent = await deps.resolver
      .resolve(w.caller, path.posix.dirname(w.file.virtualPath), { mustExist: true })
      .catch(() => null);
    return parent?.access.canWrite ? parent : null;
  }

  function assertMayWrite(w: WopiFile): void {
    if (!w.canWrite) throw new AppError('READ_ONLY', 'This access token does not allow changing the file.');
  }

  /** The lock rule of PutFile: a held lock must be presented; an unlocked non-empty file is refused to a client that uses locks. */
  function assertLockAllowsWrite(fileId: string, presented: string | undefined, size: number): void {
    const held = deps.locks.current(fileId);
    if (held !== '' && presented !== held) throw lockConflict(held, 'The file is locked by another editing session.');
    if (held === '' && presented !== undefined && presented !== '' && size !== 0)
      throw lockConflict('', 'The file is not locked.');
  }

  async function putRelative(
    fileId: string,
    w: WopiFile,
    headers: WopiHeaders,
    body: AsyncIterable<Uint8Array> | Readable,
  ): Promise<WopiAnswer> {
    let suggested = header(headers, 'X-WOPI-SuggestedTarget');
    let relative = header(headers, 'X-WOPI-RelativeTarget');
    if ((suggested === undefined) === (relative === undefined)) {
      drain(body);
      throw new AppError('WOPI_BAD_TARGET', 'Send exactly one of X-WOPI-SuggestedTarget and X-WOPI-RelativeTarget.');
    }
    const parent = await folderWritable(w);
    if (!parent) {
      drain(body);
      throw new AppError('READ_ONLY', 'You may not create files in this folder.');
    }
    // A relative target that starts with a dot (".docx", what an editor sends for "save as
    // .docx") would be a hidden file of that name: it is taken as a suggestion instead — the
    // source's name with that extension, numbered when taken.
    if (relative !== undefined && decodeUtf7(relative).trim().startsWith('.')) {
      suggested = relative;
      relative = undefined;
    }
    const dir = path.dirname(w.file.realPath);
    let name: string;
    if (suggested !== undefined) {
      // Suggested: ours to adjust — an extension alone keeps the current name, a taken name is numbered.
      const s = decodeUtf7(suggested).trim();
      name = s.startsWith('.') ? splitName(path.basename(w.file.realPath)).stem + s : s;
      name = name.replace(/[/\\\0]/g, '_');
      assertPlainName(name, 'suggested name');
    } else {
      name = decodeUtf7(relative!).trim();
      try {
        assertPlainName(name, 'file name');
      } catch (err) {
        drain(body);
        throw new AppError('WOPI_BAD_TARGET', (err as Error).message, {
          headers: {
            'X-WOPI-ValidRelativeTarget': encodeUtf7(
              `${splitName(path.basename(w.file.realPath)).stem} (1)${path.extname(w.file.realPath)}`,
            ),
          },
        });
      }
    }
    const temp = await writeTemporary(deps.journal, dir, parent.space!.root, body, deps.maxFileSize);
    let finalName: string;
    try {
      if (suggested !== undefined) {
        finalName = await placeFile(temp.path, dir, name);
      } else {
        const target = path.join(dir, name);
        const overwrite = /^true$/i.test(header(headers, 'X-WOPI-OverwriteRelativeTarget') ?? '');
        const existing = await fsp.lstat(target).catch(() => null);
        if (existing && !overwrite) {
          let n = 1;
          while (n < 1000 && (await fsp.lstat(path.join(dir, candidateName(name, n))).catch(() => null))) n++;
          throw new AppError('EXISTS', 'A file with that name exists.', {
            headers: {
              'X-WOPI-ValidRelativeTarget': encodeUtf7(candidateName(name, n)),
            },
          });
        }
        if (existing) {
          if (!existing.isFile()) throw new AppError('EXISTS', 'A folder or link has that name.');
          const targetFile = await deps.resolver.resolve(w.caller, joinVirtual(parent.virtualPath, name), {
            mustExist: true,
          });
          const held = deps.locks.current(idOf(targetFile));
          if (held !== '') throw lockConflict(held, 'The file to replace is locked.');
          await replaceKeepingVersion(temp, target, deps.versions, w.caller.username);
          deps.changes.emit({ type: 'modified', path: target });
        } else {
          // The name was free a moment ago; claim it exclusively (never over one created meanwhile).
          await fsp.link(temp.path, target).catch((err) => {
            throw err.code === 'EEXIST'
              ? new AppError('EXISTS', 'A file with that name was just created.', {
                  headers: {
                    'X-WOPI-ValidRelativeTarget': encodeUtf7(candidateName(name, 1)),
                  },
                })
              : err;
          });
          await fsp.unlink(temp.path);
          deps.changes.emit({ type: 'created', path: target, isDirectory: false });
        }
        finalName = name;
      }
    } catch (err) {
      await fsp.rm(temp.path, { force: true });
      throw err;
    } finally {
      temp.settled();
    }
    if (suggested !== undefined)
      deps.changes.emit({ type: 'created', path: path.join(dir, finalName), isDirectory: false });
    const created = await deps.resolver.resolve(w.caller, joinVirtual(parent.virtualPath, finalName), {
      mustExist: true,
    });
    saved(w.caller, created, true);
    const issued = await host.issue(w.caller, created, true);
    return {
      status: 200,
      headers: {},
      json: { Name: finalName, Url: `${wopiSrc(issued.fileId)}?access_token=${encodeURIComponent(issued.token)}` },
    };
  }

  const host: WopiHost = {
    async issue(caller, file, canWrite) {
      const fileId = idOf(file);
      const { token, expiresAt } = await signFileToken(
        deps.key,
        WOPI_AUDIENCE,
        { userId: caller.userId, fileId, path: file.virtualPath, canWrite },
        deps.tokenTtlMs,
      );
      return { fileId, token, expiresAt };
    },

    wopiSrc,

    async checkFileInfo(fileId, token) {
      const w = await open(fileId, token);
      const { handle, stat } = await openForRead(w.file.realPath, w.file.space!.root);
      await handle.close();
      const parent = await folderWritable(w);
      return {
        status: 200,
        headers: {},
        json: {
          BaseFileName: path.basename(w.file.realPath),
          OwnerId: String(stat.uid),
          Size: stat.size,
          Version: versionOf(stat),
          LastModifiedTime: stat.mtime.toISOString(),
          UserId: w.caller.userId,
          UserFriendlyName: w.caller.username,
          UserCanWrite: w.canWrite,
          ReadOnly: !w.canWrite,
          UserCanRename: false,
          UserCanNotWriteRelative: parent === null,
          SupportsLocks: true,
          SupportsGetLock: true,
          SupportsExtendedLockLength: true,
          SupportsUpdate: true,
          SupportsRename: false,
          SupportsDeleteFile: false,
          SupportsUserInfo: false,
          IsAnonymousUser: false,
          PostMessageOrigin: new URL(deps.publicUrl).origin,
        },
      };
    },

    async getFile(fileId, token, headers) {
      const w = await open(fileId, token);
      const { handle, stat } = await openForRead(w.file.realPath, w.file.space!.root);
      const max = Number(header(headers, 'X-WOPI-MaxExpectedSize') ?? NaN);
      if (Number.isFinite(max) && stat.size > max) {
        await handle.close();
        throw new AppError('WOPI_TOO_LARGE', 'The file is larger than X-WOPI-MaxExpectedSize.');
      }
      return {
        status: 200,
        headers: {
          'Content-Type': 'application/octet-stream',
          'Content-Length': String(stat.size),
          'X-WOPI-ItemVersion': versionOf(stat),
          'Cache-Control': 'no-store',
        },
        stream: handle.createReadStream({ autoClose: true }),
      };
    },

    async putFile(fileId, token, headers, body): Promise<WopiAnswer> {
      let w: WopiFile;
      try {
        w = await open(fileId, token);
        assertMayWrite(w);
        const current = await fsp.stat(w.file.realPath);
        assertLockAllowsWrite(fileId, header(headers, 'X-WOPI-Lock'), current.size);
        // Collabora's guard against saving over a change made outside the editor.
        const timestamp = header(headers, 'X-COOL-WOPI-Timestamp') ?? header(headers, 'X-LOOL-WOPI-Timestamp');
        if (timestamp && timestamp !== current.mtime.toISOString()) {
          drain(body);
          return { status: 409, headers: {}, json: { COOLStatusCode: 1010, LOOLStatusCode: 1010 } };
        }
      } catch (err) {
        drain(body);
        throw err;
      }
      const temp = await writeTemporary(
        deps.journal,
        path.dirname(w.file.realPath),
        w.file.space!.root,
        body,
        deps.maxFileSize,
      );
      // The lock may have changed while the body streamed in.
      try {
        assertLockAllowsWrite(fileId, header(headers, 'X-WOPI-Lock'), 0);
      } catch (err) {
        await discardTemporary(temp);
        throw err;
      }
      const stat = await replaceKeepingVersion(temp, w.file.realPath, deps.versions, w.caller.username);
      deps.changes.emit({ type: 'modified', path: w.file.realPath });
      saved(w.caller, w.file, false);
      return {
        status: 200,
        headers: { 'X-WOPI-ItemVersion': versionOf(stat) },
        json: { LastModifiedTime: stat.mtime.toISOString() },
      };
    },

    async fileOperation(fileId, token, headers, body) {
      const override = (header(headers, 'X-WOPI-Override') ?? '').toUpperCase();
      let w: WopiFile;
      try {
        w = await open(fileId, token);
      } catch (err) {
        drain(body);
        throw err;
      }
      if (override === 'PUT_RELATIVE') return putRelative(fileId, w, headers, body);
      drain(body);
      if (override === 'GET_LOCK')
        return { status: 200, headers: { 'X-WOPI-Lock': deps.locks.current(fileId) }, json: {} };
      if (override === 'RENAME_FILE' || override === 'DELETE' || override === 'PUT_USER_INFO') {
        throw new AppError('WOPI_NOT_SUPPORTED', `${override} is not offered by this host.`);
      }
      if (!['LOCK', 'REFRESH_LOCK', 'UNLOCK'].includes(override))
        throw new AppError('WOPI_NOT_SUPPORTED', `Unknown X-WOPI-Override "${override}".`);
      assertMayWrite(w);
      const lock = header(headers, 'X-WOPI-Lock') ?? '';
      if (lock === '' || lock.length > MAX_LOCK_LENGTH)
        throw new AppError('WOPI_BAD_LOCK', 'X-WOPI-Lock is missing, empty or too long.');
      const oldLock = header(headers, 'X-WOPI-OldLock');
      const stat = await fsp.stat(w.file.realPath);
      const result =
        override === 'LOCK'
          ? oldLock !== undefined
            ? deps.locks.relock(fileId, oldLock, lock, w.caller.userId)
            : deps.locks.lock(fileId, lock, w.caller.userId)
          : override === 'REFRESH_LOCK'
            ? deps.locks.refresh(fileId, lock)
            : deps.locks.unlock(fileId, lock);
      if (!result.ok)
        throw lockConflict(
          result.current,
          result.current === '' ? 'The file is not locked.' : 'The file is locked by another editing session.',
        );
      return { status: 200, headers: { 'X-WOPI-ItemVersion': versionOf(stat) }, json: {} };
    },
  };
  return host;
}

// The WOPI host: the operations an editing server calls on /api/officeeditor/wopi/files/{id},
// authorised only by the access_token. Each call opens its file again (wopi-file.ts); a save keeps
// the replaced content as a version and respects the WOPI lock and another account's WebDAV
// lock; "save as" is wopi-relative.ts, the lock operations wopi-lock.ts.
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Caller } from '../../core/caller.ts';
import { AppError } from '../../core/errors.ts';
import type { InsidePath } from '../../files/paths.ts';
import { discardTemporary, openForRead, replaceKeepingVersion, versionOf, writeTemporary } from './content.ts';
import { LOCK_OPERATIONS, lockOperation, type LockOperation } from './wopi-lock.ts';
import { putRelativeFile } from './wopi-relative.ts';
import {
  assertLockAllowsWrite,
  assertMayWrite,
  assertNoOtherDoorLock,
  drain,
  folderWritable,
  header,
  issueFileToken,
  openWopiFile,
  recordSave,
  wopiSrcOf,
  type WopiAnswer,
  type WopiBody,
  type WopiDeps,
  type WopiFile,
  type WopiHeaders,
} from './wopi-file.ts';

export { WOPI_AUDIENCE, type WopiAnswer, type WopiDeps, type WopiFile, type WopiHeaders } from './wopi-file.ts';

export interface WopiHost {
  /** A token and file id for `file` as `caller` sees it (config routes). */
  issue(
    caller: Caller,
    file: InsidePath,
    canWrite: boolean,
  ): Promise<{ fileId: string; token: string; expiresAt: number }>;
  /** The WOPISrc of a file id. */
  wopiSrc(fileId: string): string;
  checkFileInfo(fileId: string, token: unknown): Promise<WopiAnswer>;
  getFile(fileId: string, token: unknown, headers: WopiHeaders): Promise<WopiAnswer>;
  putFile(fileId: string, token: unknown, headers: WopiHeaders, body: WopiBody): Promise<WopiAnswer>;
  /** POST /files/{id}: dispatches on X-WOPI-Override (LOCK, GET_LOCK, REFRESH_LOCK, UNLOCK, PUT_RELATIVE…). */
  fileOperation(fileId: string, token: unknown, headers: WopiHeaders, body: WopiBody): Promise<WopiAnswer>;
}

/** CheckFileInfo: the file's facts and what this host offers. */
async function checkFileInfo(deps: WopiDeps, w: WopiFile): Promise<WopiAnswer> {
  const { handle, stat } = await openForRead(w.file.realPath, w.file.space.root);
  await handle.close();
  const parent = await folderWritable(deps, w);
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
}

/** GetFile: the content, streamed from the checked descriptor. */
async function getFile(w: WopiFile, headers: WopiHeaders): Promise<WopiAnswer> {
  const { handle, stat } = await openForRead(w.file.realPath, w.file.space.root);
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
}

/** PutFile: the new content replaces the file, the old one kept as a version; every lock is asked before and after the body. */
async function putFile(deps: WopiDeps, w: WopiFile, headers: WopiHeaders, body: WopiBody): Promise<WopiAnswer> {
  const presented = header(headers, 'X-WOPI-Lock');
  try {
    assertMayWrite(w);
    const current = await fsp.stat(w.file.realPath);
    assertLockAllowsWrite(deps, w.fileId, presented, current.size);
    assertNoOtherDoorLock(deps, w.caller, w.file);
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
    w.file.space.root,
    body,
    deps.maxFileSize,
  );
  // A lock may have been taken while the body streamed in.
  try {
    assertLockAllowsWrite(deps, w.fileId, presented, 0);
    assertNoOtherDoorLock(deps, w.caller, w.file);
  } catch (err) {
    await discardTemporary(temp);
    throw err;
  }
  const stat = await replaceKeepingVersion(temp, w.file.realPath, deps.versions, w.caller.username);
  deps.changes.emit({ type: 'modified', path: w.file.realPath });
  recordSave(deps, w.caller, w.file, false);
  return {
    status: 200,
    headers: { 'X-WOPI-ItemVersion': versionOf(stat) },
    json: { LastModifiedTime: stat.mtime.toISOString() },
  };
}

export function createWopiHost(deps: WopiDeps): WopiHost {
  return {
    issue: (caller, file, canWrite) => issueFileToken(deps, caller, file, canWrite),
    wopiSrc: (fileId) => wopiSrcOf(deps, fileId),
    checkFileInfo: async (fileId, token) => checkFileInfo(deps, await openWopiFile(deps, fileId, token)),
    getFile: async (fileId, token, headers) => getFile(await openWopiFile(deps, fileId, token), headers),
    async putFile(fileId, token, headers, body) {
      let w: WopiFile;
      try {
        w = await openWopiFile(deps, fileId, token);
      } catch (err) {
        drain(body);
        throw err;
      }
      return putFile(deps, w, headers, body);
    },
    async fileOperation(fileId, token, headers, body) {
      const override = (header(headers, 'X-WOPI-Override') ?? '').toUpperCase();
      let w: WopiFile;
      try {
        w = await openWopiFile(deps, fileId, token);
      } catch (err) {
        drain(body);
        throw err;
      }
      if (override === 'PUT_RELATIVE') return putRelativeFile(deps, w, headers, body);
      drain(body);
      if (override === 'RENAME_FILE' || override === 'DELETE' || override === 'PUT_USER_INFO')
        throw new AppError('WOPI_NOT_SUPPORTED', `${override} is not offered by this host.`);
      if (!(LOCK_OPERATIONS as readonly string[]).includes(override))
        throw new AppError('WOPI_NOT_SUPPORTED', `Unknown X-WOPI-Override "${override}".`);
      return lockOperation(deps, w, override as LockOperation, headers);
    },
  };
}

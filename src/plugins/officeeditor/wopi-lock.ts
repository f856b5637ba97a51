// WOPI's lock operations on POST /files/{id}: LOCK (and UnlockAndRelock with X-WOPI-OldLock),
// REFRESH_LOCK, UNLOCK, GET_LOCK. A mismatch is 409 with X-WOPI-Lock naming the lock held. Taking
// or keeping a lock respects another account's WebDAV lock (the same 409, locked by another
// interface); unlocking never needs to.
import fsp from 'node:fs/promises';
import { AppError } from '../../core/errors.ts';
import { versionOf } from './content.ts';
import { MAX_LOCK_LENGTH } from './locks-store.ts';
import {
  assertMayWrite,
  assertNoOtherDoorLock,
  header,
  lockConflict,
  type WopiAnswer,
  type WopiDeps,
  type WopiFile,
  type WopiHeaders,
} from './wopi-file.ts';

export const LOCK_OPERATIONS = ['LOCK', 'REFRESH_LOCK', 'UNLOCK', 'GET_LOCK'] as const;
export type LockOperation = (typeof LOCK_OPERATIONS)[number];

export async function lockOperation(
  deps: WopiDeps,
  w: WopiFile,
  override: LockOperation,
  headers: WopiHeaders,
): Promise<WopiAnswer> {
  const { fileId } = w;
  if (override === 'GET_LOCK') return { status: 200, headers: { 'X-WOPI-Lock': deps.locks.current(fileId) }, json: {} };
  assertMayWrite(w);
  const lock = header(headers, 'X-WOPI-Lock') ?? '';
  if (lock === '' || lock.length > MAX_LOCK_LENGTH)
    throw new AppError('WOPI_BAD_LOCK', 'X-WOPI-Lock is missing, empty or too long.');
  const oldLock = header(headers, 'X-WOPI-OldLock');
  const stat = await fsp.stat(w.file.realPath);
  if (override !== 'UNLOCK') assertNoOtherDoorLock(deps, w.caller, w.file);
  // Kept at the document's canonical place: found by the other doors whatever name reaches it.
  const place = w.file.canonicalPath ?? w.file.realPath;
  const holder = { userId: w.caller.userId, realPath: place };
  const result =
    override === 'LOCK'
      ? oldLock !== undefined
        ? deps.locks.relock(fileId, oldLock, lock, holder)
        : deps.locks.lock(fileId, lock, holder)
      : override === 'REFRESH_LOCK'
        ? deps.locks.refresh(fileId, lock, place)
        : deps.locks.unlock(fileId, lock);
  if (!result.ok)
    throw lockConflict(
      result.current,
      result.current === '' ? 'The file is not locked.' : 'The file is locked by another editing session.',
    );
  return { status: 200, headers: { 'X-WOPI-ItemVersion': versionOf(stat) }, json: {} };
}

// Resumable uploads: the state machine of spec §3 ("Resumable upload") over the uploads
// table. incomplete → (PATCH, offsets match) → finished → placement → complete, or
// finalize-failed (the finishing PATCH answers 500/507, later HEADs answer 423 and retry the
// placement). Unfinished uploads older than TUS_INCOMPLETE_UPLOAD_TTL_MS (since their last
// byte) are discarded; complete ones are remembered just as long, so a sender that asks after
// a restart still hears "complete".
//
// On a cluster (DATABASE_URL=postgres://…, `leases` given) every instance may receive any of an
// upload's requests: the part file is on the shared volume (staging.ts), the upload's lock is
// PostgreSQL's too (locks.ts), and the offset is the row's — recorded only after the bytes
// below it were flushed to the disk (fdatasync), so an instance killed mid-PATCH leaves an
// offset every other instance can resume at; bytes past it are cut off by the next PATCH.
import { createHash, randomBytes, type Hash } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { IncomingHttpHeaders } from 'node:http';
import { AppError, fromFsError, type AlsoStatus } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import type { BodyPace } from '../../core/load.ts';
import type { Caller } from '../../core/caller.ts';
import { fileEvent, type ActivitySink } from '../../files/activity.ts';
import type { ConflictPolicy } from '../../files/names.ts';
import {
  placementRefusal,
  toFileItem,
  whereOfTarget,
  type Placement,
  type PlacedFile,
  type UploadTarget,
} from '../placement.ts';
import type { UploadedItem } from '../wire.ts';
import { isPartName, removeQuietly, TUS_PART, type Staging } from '../staging.ts';
import {
  checkFitsLength,
  checkOffsetMatches,
  checkPatchContentType,
  checkTusResumable,
  checksumMismatch,
  contentLength,
  finalizeErrorHeader,
  httpDate,
  parseUploadChecksum,
  parseUploadLength,
  parseUploadMetadata,
  parseUploadOffset,
  tusError,
  TUS_HEADERS,
} from './protocol.ts';
import { writeBody, type BodyWrite } from '../body-writer.ts';
import type { Hold, QuotaPort } from '../../files/quota-port.ts';
import { createUploadLocks, HeldElsewhere, type LockHandle } from './locks.ts';
import type { UploadLeaseStore } from './lease-store.ts';
import type { UploadResult, UploadRow, UploadStore } from './store.ts';

export interface TusAnswer {
  status: number;
  headers: Record<string, string>;
  /**
   * The file this request placed (or found taken and skipped, `outcome: 'skipped'`), as data:
   * its item and the upload's length. Absent when the request placed nothing.
   */
  placed?: { item: UploadedItem; length: number };
}

export interface TusService {
  create(caller: Caller, headers: IncomingHttpHeaders): Promise<TusAnswer & { id: string }>;
  head(caller: Caller, id: string, headers: IncomingHttpHeaders): Promise<TusAnswer>;
  patch(caller: Caller, id: string, headers: IncomingHttpHeaders, body: Readable): Promise<TusAnswer>;
  terminate(caller: Caller, id: string, headers: IncomingHttpHeaders): Promise<TusAnswer>;
  /** Discards expired uploads and part files nobody owns; returns how many went. */
  sweep(now?: number): Promise<number>;
}

export interface TusDeps {
  store: UploadStore;
  staging: Staging;
  placement: Placement;
  ttlMs: number;
  log: Logger;
  /** The activity log: one row when an upload's file is placed. */
  activity: ActivitySink;
  /** An upload holds its Upload-Length against its destination's quotas from its creation. */
  quotas: QuotaPort;
  /**
   * A cluster's locks (PostgreSQL): given, the offset is the row's durable one, the part file is
   * staged where every instance sees it, and no instance keeps a part file open between PATCHes.
   */
  leases?: UploadLeaseStore;
  /** People's other requests go first: a PATCH's body yields to them (core/load.ts). */
  pace?: BodyPace;
  /**
   * Whether a live instance is writing this part file now (a multipart request's part is on the
   * work journal while its request runs): the sweep leaves it, however long its sender pauses.
   */
  building?: (file: string) => boolean;
  now?: () => number;
}

const ID = /^[0-9a-f]{32}$/;
const POLICIES: readonly string[] = ['rename', 'skip', 'replace'] satisfies ConflictPolicy[];
/** Longest gap between two writes of an active upload's row (its offset and activity clock). */
const RECORD_EVERY_MS = 2000;
/** How long an unfinished upload's part file stays open after a PATCH, for the next one. */
const HOLD_MS = 10_000;
/** Most part files held open at once (each is a descriptor; the oldest held goes first). */
const HOLD_MAX = 64;

class PastLength extends Error {}

/** Counts (and optionally hashes) the bytes of a PATCH, refusing any past the upload's length. */
function meter(max: number, hash: Hash | null): (chunk: Buffer) => void {
  let count = 0;
  return (chunk) => {
    count += chunk.length;
    if (count > max) throw new PastLength();
    hash?.update(chunk);
  };
}

export function createTusService(deps: TusDeps): TusService {
  const { store, staging, placement, ttlMs, log } = deps;
  const now = deps.now ?? Date.now;
  const clustered = deps.leases !== undefined;
  const locks = createUploadLocks(deps.leases);
  /**
   * Each unfinished upload's quota hold, in this process only: after a restart an upload takes
   * its hold again at its next PATCH (so a crash leaves no hold behind for an abandoned one). On
   * a cluster the hold is a row named after the upload (`tus:<id>`, quotas/service.ts) that
   * outlives its requests: kept here during a PATCH only, and taken over by the instance that
   * receives the next one.
   */
  const quotaHolds = new Map<string, Hold>();
  const holdName = (id: string) => `tus:${id}`;
  /** The upload's hold ends: landed at `placedAt` (its real path), or let go (null). */
  const settleQuota = (id: string, placedAt: string | null) => {
    const h = quotaHolds.get(id);
    if (!h) return;
    quotaHolds.delete(id);
    if (placedAt) h.land([placedAt]);
    else h.release();
  };
  /** An upload known from before a restart holds its length again before it takes more bytes. */
  async function holdAgain(caller: Caller, row: UploadRow): Promise<void> {
    if (quotaHolds.has(row.id) || row.state !== 'incomplete') return;
    let checked;
    try {
      checked = await placement.check(caller, targetOf(row));
    } catch {
      return; // the destination is gone: placing it will say so
    }
    quotaHolds.set(
      row.id,
      deps.quotas.hold(deps.quotas.chargeFor(caller, checked.folder.space), row.length, holdName(row.id)),
    );
  }

  // A part file between two PATCHes of its upload: still open, with the offset the last PATCH
  // left (its length). The next PATCH then starts writing at once: the open, fstat and statfs
  // round trips to the thread pool came between its request and its first byte written. Only
  // this process writes a part, and only under its upload's lock; a PATCH that fails, the last
  // PATCH, a termination and the sweep let go of it, and so does HOLD_MS without a PATCH.
  const held = new Map<string, { part: fsp.FileHandle; offset: number; timer: NodeJS.Timeout }>();
  const hold = (id: string, part: fsp.FileHandle, offset: number) => {
    if (clustered) {
      // Another instance may write the next PATCH: what this one knew of the part goes stale.
      part.close().catch(() => {});
      return;
    }
    if (held.size >= HOLD_MAX) letGo(held.keys().next().value!);
    const timer = setTimeout(() => letGo(id), HOLD_MS);
    timer.unref();
    held.set(id, { part, offset, timer });
  };
  const take = (id: string) => {
    const h = held.get(id);
    if (!h) return undefined;
    clearTimeout(h.timer);
    held.delete(id);
    return h;
  };
  const letGo = (id: string) => {
    take(id)
      ?.part.close()
      .catch(() => {});
  };

  const expiresAt = (row: Pick<UploadRow, 'updatedAt'>) => row.updatedAt + ttlMs;
  // The part file's length is the offset (bytes are written at the offset, refused bytes are
  // cut off again), so a PATCH needs no database write; the row is refreshed often enough to
  // keep an active upload from expiring and to show its progress.
  const recordEvery = Math.min(RECORD_EVERY_MS, Math.floor(ttlMs / 4));
  const record = (row: UploadRow, offset: number, force = false) => {
    const at = now();
    if (!force && at - row.updatedAt < recordEvery) return;
    try {
      store.setOffset(row.id, offset, at);
      row.updatedAt = at;
    } catch (err) {
      log.warn('could not record upload progress', { err }); // e.g. the database closing at shutdown
    }
  };
  /**
   * A cluster's record: the bytes below `offset` flushed to the disk first, so the row never
   * claims bytes a crash could lose; nothing recorded once the upload's lock is gone.
   */
  async function recordDurable(row: UploadRow, part: fsp.FileHandle, lock: LockHandle, offset: number) {
    try {
      await part.datasync();
    } catch (err) {
      log.warn('could not flush upload progress', { err });
      return;
    }
    if (lock.stillHeld()) record(row, offset, true);
  }
  const expiresHeader = (row: Pick<UploadRow, 'updatedAt'>) => ({ 'Upload-Expires': httpDate(expiresAt(row)) });
  const gone = () => tusError('TUS_NOT_FOUND');

  async function discard(row: UploadRow): Promise<void> {
    letGo(row.id);
    settleQuota(row.id, null);
    // A cluster's hold may be another instance's: ended by its name.
    if (clustered) deps.quotas.drop(holdName(row.id));
    if (row.state !== 'complete') await removeQuietly(row.stagingPath);
    if (row.stagingPath) await staging.tidy(row.stagingPath);
    store.remove(row.id);
  }

  /**
   * Before taking the lock: is this the caller's upload? Only its owner may interrupt a PATCH in
   * progress (a newer request takes over the lock), so a stranger is refused here. No stat: the
   * offset is read under the lock, where it cannot move.
   */
  function owned(caller: Caller, id: string): void {
    if (!ID.test(id)) throw gone();
    const row = store.get(id);
    if (!row || row.userId !== caller.userId) throw gone();
  }

  /**
   * The caller's live upload, or 404 (unknown, someone else's, or expired — never saying which).
   * An unfinished upload's offset is measured here unless the caller measures it itself (a PATCH
   * reads it from the descriptor it writes, see receive).
   */
  async function load(caller: Caller, id: string, measure = true): Promise<UploadRow> {
    if (!ID.test(id)) throw gone();
    const row = store.get(id);
    if (!row || row.userId !== caller.userId) throw gone();
    if (expiresAt(row) <= now()) {
      await discard(row);
      throw gone();
    }
    if (row.state === 'incomplete' && measure) {
      // The part file's length is the offset: bytes are written at the offset and whatever must
      // not count is cut off again. No fsync per PATCH: after a crash the file is as long as
      // what the disk kept (ext4, XFS and btrfs extend a file's on-disk size only once its data
      // is written), and HEAD reads the offset from it, so an offset never claims bytes a crash
      // lost: the sender resends them. The one fsync is before placement (finalize), where
      // "complete" is recorded and nothing could be resent.
      const part = await fsp.stat(row.stagingPath).catch(() => null);
      if (!part) throw partGone(row);
      // A cluster's offset is the row's (flushed before recorded); bytes past it may be lost.
      row.offset = Math.min(part.size, row.length, clustered ? row.offset : Infinity);
    }
    return row;
  }

  /**
   * HEAD while another instance of a cluster works on the upload: the offset it last recorded
   * (durable), or its result once placed; a placement in progress there is waited out (409).
   */
  async function headElsewhere(caller: Caller, id: string): Promise<TusAnswer> {
    const row = store.get(id);
    if (!row || row.userId !== caller.userId) throw gone();
    // Expired is gone, as load() says: the holder may be the sweep, between the part and the row.
    if (expiresAt(row) <= now()) throw gone();
    const meta: Record<string, string> = row.metadata ? { 'Upload-Metadata': row.metadata } : {};
    if (row.state === 'complete') return { status: 200, headers: { ...completeHeaders(row, row.finalPath), ...meta } };
    if (row.state !== 'incomplete' || row.offset >= row.length) throw new HeldElsewhere();
    return {
      status: 200,
      headers: {
        'Upload-Offset': String(row.offset),
        'Upload-Length': String(row.length),
        ...meta,
        ...expiresHeader(row),
      },
    };
  }

  function partGone(row: UploadRow): AppError {
    store.remove(row.id);
    return tusError('TUS_NOT_FOUND', 'The data of this upload is gone; start it again.');
  }

  function targetOf(row: UploadRow): UploadTarget {
    return { uploadTo: row.uploadTo, relativePath: row.relativePath, filename: row.filename, conflict: row.conflict };
  }

  /** The name and the folder an upload was for, as its uploader named them. */
  const whereOf = (row: UploadRow) => whereOfTarget(targetOf(row));

  const resultOf = (placed: PlacedFile): UploadResult => ({
    outcome: placed.outcome,
    ...(placed.displaced ? { displaced: placed.displaced } : {}),
  });
  const pathOf = (placed: PlacedFile) => [placed.parent, placed.name].filter(Boolean).join('/');

  function describeFailure(err: unknown): { status: number; reason: string; sentence: string } {
    const { app, reason } = placementRefusal(err);
    // A refusal (the folder became read-only or view-only for the person) says so; it is no server fault.
    const status = app?.status === 507 || app?.status === 403 ? app.status : 500;
    if (!app) log.warn('upload placement failed', { err });
    return { status, reason, sentence: `The upload is complete but could not be placed: ${reason}` };
  }

  /** finished → complete or finalize-failed. Runs under the upload's lock. */
  async function finalize(
    caller: Caller,
    row: UploadRow,
    lock: LockHandle,
  ): Promise<
    | { ok: true; finalPath: string | null; result?: UploadResult; placed?: TusAnswer['placed'] }
    | { ok: false; status: number; sentence: string }
  > {
    lock.placing();
    try {
      // A crash between link and bookkeeping leaves no part file behind a finished row (the
      // sweep never removes a part file whose row exists): the file was placed already.
      if (
        !(await fsp.stat(row.stagingPath).then(
          () => true,
          () => false,
        ))
      ) {
        store.markComplete(row.id, null, now());
        settleQuota(row.id, null);
        return { ok: true, finalPath: null };
      }
      // Durable before it is recorded complete (the sender then forgets its copy).
      const part = await fsp.open(row.stagingPath, 'r');
      try {
        await part.datasync();
      } finally {
        await part.close();
      }
      const placed = await placement.place(caller, targetOf(row), row.stagingPath);
      const finalPath = pathOf(placed);
      const result = resultOf(placed);
      // Skipped: the name kept its file, and the bytes sent are not kept.
      if (placed.outcome === 'skipped') await removeQuietly(row.stagingPath);
      store.markComplete(row.id, finalPath, now(), result);
      settleQuota(row.id, placed.outcome === 'skipped' ? null : placed.realPath);
      await staging.tidy(row.stagingPath);
      if (placed.outcome !== 'skipped')
        deps.activity.record(
          fileEvent(caller, 'files.upload', { paths: [placed.shown], count: 1, bytes: placed.size, method: 'tus' }),
        );
      return { ok: true, finalPath, result, placed: { item: toFileItem(placed), length: row.length } };
    } catch (err) {
      const { status, reason, sentence } = describeFailure(err);
      // Its uploader is told once (the notification outbox follows the row), not at every retry.
      if (row.state !== 'finalize-failed')
        deps.activity.record({
          ...fileEvent(caller, 'files.upload', {
            stage: 'placement',
            ...whereOf(row),
            reason,
            method: 'tus',
          }),
          outcome: 'failure',
        });
      store.markFinalizeFailed(row.id, sentence, status, now());
      return { ok: false, status, sentence };
    }
  }

  function completeHeaders(
    row: UploadRow,
    finalPath: string | null,
    result: UploadResult | null = row.outcome
      ? { outcome: row.outcome, ...(row.displaced ? { displaced: JSON.parse(row.displaced) } : {}) }
      : null,
  ): Record<string, string> {
    return {
      'Upload-Offset': String(row.length),
      'Upload-Length': String(row.length),
      ...(finalPath ? { 'Upload-File-Path': encodeURIComponent(finalPath) } : {}),
      ...(result ? { 'Upload-Outcome': result.outcome } : {}),
      ...(result?.displaced?.versionId ? { 'Upload-Version-Id': result.displaced.versionId } : {}),
      ...(result?.displaced?.trashId ? { 'Upload-Trash-Id': result.displaced.trashId } : {}),
    };
  }

  function finalizeFailure(row: UploadRow, status: number, sentence: string): AppError {
    // The status is the one the placement failed with (ERRORS.UPLOAD_FINALIZE_FAILED.also).
    return tusError(
      'UPLOAD_FINALIZE_FAILED',
      sentence,
      { ...finalizeErrorHeader(sentence), 'Upload-Offset': String(row.length), 'Upload-Length': String(row.length) },
      status as AlsoStatus<'UPLOAD_FINALIZE_FAILED'>,
    );
  }

  /**
   * The part file opened for a PATCH once the PATCH may write to it, checked in the order of
   * the rules: the data is there (404), the offsets match (409), the bytes fit the length (413)
   * and the volume (507). Held from the last PATCH, or opened while the free space is asked,
   * its offset read from the descriptor written (its length).
   */
  async function openChecked(
    row: UploadRow,
    sent: number,
    declared: number | undefined,
  ): Promise<{ part: fsp.FileHandle; wasHeld: boolean }> {
    const dir = path.dirname(row.stagingPath);
    const kept = take(row.id);
    if (kept) {
      try {
        row.offset = kept.offset;
        checkOffsetMatches(sent, row.offset);
        checkFitsLength(row.offset, declared, row.length);
        await staging.ensureSpace(dir, declared ?? row.length - row.offset);
        return { part: kept.part, wasHeld: true };
      } catch (err) {
        hold(row.id, kept.part, kept.offset); // a refused PATCH changed nothing
        throw err;
      }
    }
    const [opened, space] = await Promise.allSettled([
      fsp.open(row.stagingPath, 'r+'),
      declared === undefined ? null : staging.ensureSpace(dir, declared),
    ]);
    if (opened.status === 'rejected') {
      if ((opened.reason as NodeJS.ErrnoException).code === 'ENOENT') throw partGone(row);
      throw opened.reason;
    }
    const part = opened.value;
    try {
      const size = (await part.stat()).size;
      row.offset = Math.min(size, row.length, clustered ? row.offset : Infinity);
      // Bytes past a cluster's durable offset (an instance killed mid-PATCH): never counted, cut off.
      if (size > row.offset) await part.truncate(row.offset);
      checkOffsetMatches(sent, row.offset);
      checkFitsLength(row.offset, declared, row.length);
      if (space.status === 'rejected') throw space.reason;
      if (declared === undefined) await staging.ensureSpace(dir, row.length - row.offset);
      return { part, wasHeld: false };
    } catch (err) {
      part.close().catch(() => {});
      throw err;
    }
  }

  /**
   * Writes one PATCH body at the upload's offset; returns the new offset. Records progress as
   * it goes. What a PATCH costs beyond its bytes is paid while the sender waits and the disk
   * idles (test/bench/upload.ts has the timeline), so nothing waits on a close: an unfinished
   * upload's part stays open for its next PATCH, the last PATCH's is closed after the answer.
   */
  async function receive(
    row: UploadRow,
    sent: number,
    headers: IncomingHttpHeaders,
    body: Readable,
    lock: LockHandle,
  ): Promise<number> {
    const checksum = parseUploadChecksum(headers['upload-checksum']);
    const declared = contentLength(headers['content-length']);
    const { part, wasHeld } = await openChecked(row, sent, declared);
    let kept = false;
    let write: BodyWrite | null = null;
    const hash = checksum ? createHash('sha256') : null;
    // A long PATCH keeps its row fresh (a checksum PATCH too: until it is verified its bytes
    // are not counted, but the upload is alive); on a cluster each record is a durable offset.
    let recording: Promise<void> | null = null;
    const progress = setInterval(() => {
      const offset = checksum ? row.offset : row.offset + (write?.written ?? 0);
      if (!clustered || checksum) return record(row, offset);
      recording ??= recordDurable(row, part, lock, offset).finally(() => {
        recording = null;
      });
    }, recordEvery);
    /** No record of the interval's comes after the PATCH's own. */
    const stopRecording = async () => {
      clearInterval(progress);
      await recording;
    };
    try {
      let written: number;
      try {
        write = writeBody(body, part.fd, row.offset, {
          inspect: meter(row.length - row.offset, hash),
          signal: lock.signal,
          freeWritten: true,
          ...(deps.pace ? { pace: deps.pace } : {}),
        });
        written = await write.done;
      } catch (err) {
        await stopRecording();
        // Another instance may own the upload now: nothing of it is touched again.
        if (lock.lost) throw tusError('TUS_SUPERSEDED');
        const keep = write && !checksum && !(err instanceof PastLength) ? write.written : 0;
        // The file's length is the offset: cut off whatever must not count.
        await part.truncate(row.offset + keep).catch(() => {});
        if (clustered) await recordDurable(row, part, lock, row.offset + keep);
        else record(row, row.offset + keep, true);
        if (err instanceof PastLength)
          throw tusError(
            'TUS_PAST_LENGTH',
            `This PATCH carries more bytes than the upload's Upload-Length of ${row.length}; nothing of it was kept.`,
          );
        if (lock.signal.aborted) throw tusError('TUS_SUPERSEDED');
        const fsError = fromFsError(err);
        if (fsError) throw fsError.withHeaders({ ...TUS_HEADERS, 'Upload-Offset': String(row.offset + keep) });
        throw err;
      }
      await stopRecording();
      if (lock.lost) throw tusError('TUS_SUPERSEDED');
      if (checksum && !hash!.digest().equals(checksum.digest)) {
        await part.truncate(row.offset);
        throw checksumMismatch();
      }
      const offset = row.offset + written;
      if (clustered) {
        await recordDurable(row, part, lock, offset);
        if (lock.lost) throw tusError('TUS_SUPERSEDED');
      }
      if (offset < row.length) {
        hold(row.id, part, offset);
        kept = true;
      } else if (wasHeld && (await part.stat()).nlink === 0) {
        // Held since a PATCH before: the part was removed behind Burrow's back meanwhile, and
        // the bytes went to a file nobody can name.
        throw partGone(row);
      }
      if (!clustered) record(row, offset, offset === row.length);
      return offset;
    } finally {
      clearInterval(progress);
      // Not awaited: the bytes are in the file already; the answer need not wait for the close.
      if (!kept) part.close().catch(() => {});
    }
  }

  return {
    async create(caller, headers) {
      checkTusResumable(headers['tus-resumable']);
      const length = parseUploadLength(headers['upload-length'], headers['upload-defer-length']);
      const metadata = parseUploadMetadata(headers['upload-metadata']);
      const uploadTo = metadata.uploadTo;
      if (uploadTo === undefined || uploadTo === null)
        throw tusError('TUS_BAD_METADATA', 'Upload-Metadata must carry uploadTo (the destination folder, base64).');
      const conflict = metadata.conflict ?? 'rename';
      if (!POLICIES.includes(conflict))
        throw tusError(
          'TUS_BAD_METADATA',
          'Upload-Metadata conflict is "rename" (keep both), "skip" or "replace" (base64).',
        );
      const target: UploadTarget = {
        uploadTo,
        relativePath: metadata.relativePath ?? '',
        filename: metadata.filename ?? '',
        conflict: conflict as ConflictPolicy,
      };
      const checked = await placement.check(caller, target);
      const { folder } = checked;
      // A skip whose name is taken now is answered at once: no byte need be sent.
      const skipped = target.conflict === 'skip' ? await placement.taken(checked) : null;
      const id = randomBytes(16).toString('hex');
      // The whole length is held against the quotas before a byte is sent (507 QUOTA_EXCEEDED).
      const quota = skipped
        ? null
        : deps.quotas.hold(deps.quotas.chargeFor(caller, folder.space), length, holdName(id));
      let stagingPath = '';
      try {
        // On a cluster the part is where every instance sees it: the next PATCH may reach another.
        const place = skipped ? null : await staging.placeFor(folder.space.root, folder.realPath, clustered);
        if (place) await staging.ensureSpace(place.dir, length);
        if (place) stagingPath = await staging.createPart(place, 'tus', id);
      } catch (err) {
        quota?.release();
        throw err;
      }
      // On a cluster the hold is its row, which the instance receiving the next PATCH takes over.
      if (quota && !clustered) quotaHolds.set(id, quota);
      const at = now();
      store.insert({
        id,
        userId: caller.userId,
        length,
        metadata: String(headers['upload-metadata'] ?? ''),
        filename: target.filename,
        uploadTo: target.uploadTo,
        relativePath: target.relativePath,
        conflict: target.conflict!,
        stagingPath,
        createdAt: at,
        updatedAt: at,
      });
      if (skipped) {
        const result = resultOf(skipped);
        store.markComplete(id, pathOf(skipped), at, result);
        return {
          id,
          status: 201,
          headers: completeHeaders(store.get(id)!, pathOf(skipped), result),
          placed: { item: toFileItem(skipped), length },
        };
      }
      const row = store.get(id)!;
      if (length === 0) {
        // Nothing to send: the creating request is also the finishing one.
        const lock = await locks.acquire(id);
        try {
          const result = await finalize(caller, row, lock);
          if (!result.ok) throw finalizeFailure(row, result.status, result.sentence);
          return {
            id,
            status: 201,
            headers: { ...completeHeaders(row, result.finalPath, result.result) },
            ...(result.placed ? { placed: result.placed } : {}),
          };
        } finally {
          lock.release();
        }
      }
      return { id, status: 201, headers: { 'Upload-Offset': '0', ...expiresHeader(row) } };
    },

    async head(caller, id, headers) {
      checkTusResumable(headers['tus-resumable']);
      owned(caller, id);
      let lock: LockHandle;
      try {
        lock = await locks.acquire(id);
      } catch (err) {
        if (err instanceof HeldElsewhere) return headElsewhere(caller, id);
        throw err;
      }
      try {
        const row = await load(caller, id);
        const meta: Record<string, string> = row.metadata ? { 'Upload-Metadata': row.metadata } : {};
        if (row.state === 'complete')
          return { status: 200, headers: { ...completeHeaders(row, row.finalPath), ...meta } };
        // Finished but not placed: a failed placement, or a crash right after the last byte.
        if (row.state === 'finalize-failed' || row.offset === row.length) {
          const result = await finalize(caller, row, lock);
          if (!result.ok)
            throw tusError('UPLOAD_FINALIZE_FAILED', result.sentence, {
              ...finalizeErrorHeader(result.sentence),
              'Upload-Offset': String(row.length),
              'Upload-Length': String(row.length),
            });
          return {
            status: 200,
            headers: { ...completeHeaders(row, result.finalPath, result.result), ...meta },
            ...(result.placed ? { placed: result.placed } : {}),
          };
        }
        return {
          status: 200,
          headers: {
            'Upload-Offset': String(row.offset),
            'Upload-Length': String(row.length),
            ...meta,
            ...expiresHeader(row),
          },
        };
      } finally {
        lock.release();
      }
    },

    async patch(caller, id, headers, body) {
      checkTusResumable(headers['tus-resumable']);
      checkPatchContentType(headers['content-type']);
      const sent = parseUploadOffset(headers['upload-offset']);
      owned(caller, id);
      const lock = await locks.acquire(id);
      try {
        let row = await load(caller, id, false);
        if (row.state !== 'incomplete') {
          checkOffsetMatches(sent, row.length);
          checkFitsLength(sent, contentLength(headers['content-length']), row.length);
          if (row.state === 'complete') return { status: 204, headers: completeHeaders(row, row.finalPath) };
        } else {
          await holdAgain(caller, row);
          const offset = await receive(row, sent, headers, body, lock);
          row = { ...row, offset };
          if (offset < row.length)
            return { status: 204, headers: { 'Upload-Offset': String(offset), ...expiresHeader(row) } };
        }
        const result = await finalize(caller, row, lock);
        if (!result.ok) throw finalizeFailure(row, result.status, result.sentence);
        return {
          status: 204,
          headers: completeHeaders(row, result.finalPath, result.result),
          ...(result.placed ? { placed: result.placed } : {}),
        };
      } finally {
        // A cluster's hold stays held as its row for the next PATCH, on whichever instance (placed,
        // it has landed already).
        if (clustered) quotaHolds.delete(id);
        lock.release();
      }
    },

    async terminate(caller, id, headers) {
      checkTusResumable(headers['tus-resumable']);
      owned(caller, id);
      const lock = await locks.acquire(id);
      try {
        // A placed file is the user's now: terminating its upload only forgets the upload.
        await discard(await load(caller, id));
        return { status: 204, headers: {} };
      } finally {
        lock.release();
      }
    },

    async sweep(at = now()) {
      const cutoff = at - ttlMs;
      let removed = 0;
      for (;;) {
        const rows = store.olderThan(cutoff, 200).filter((r) => !locks.held(r.id));
        if (rows.length === 0) break;
        let skipped = 0;
        for (const row of rows) {
          let lock: LockHandle;
          try {
            lock = await locks.acquire(row.id);
          } catch (err) {
            if (!(err instanceof HeldElsewhere)) throw err;
            skipped++; // another instance is working on it: it is not stale
            continue;
          }
          try {
            await discard(row);
            removed++;
          } finally {
            lock.release();
          }
        }
        if (rows.length < 200 || skipped === rows.length) break;
      }
      // Part files a crash left behind: nobody owns them and nothing wrote to them for a TTL.
      for (const dir of staging.knownDirs()) {
        const names = await fsp.readdir(dir).catch(() => [] as string[]);
        for (const name of names) {
          if (!isPartName(name)) continue;
          const id = TUS_PART.exec(name)?.[1];
          if (id && (store.has(id) || locks.held(id))) continue;
          const file = path.join(dir, name);
          const st = await fsp.stat(file).catch(() => null);
          // A live request's part (its sender paused) is not stale: asked of the journal only
          // for a part old enough to go (a database statement each).
          if (st && st.mtimeMs < cutoff && !(!id && deps.building?.(file))) {
            await removeQuietly(file);
            await staging.tidy(file);
            removed++;
          }
        }
      }
      return removed;
    },
  };
}

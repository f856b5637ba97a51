// POST /api/upload: a streaming multipart body (busboy). Text fields `uploadTo` and
// `relativePath` precede each `filedata` part, or come in the query string (what scripts and
// other clients send: `curl -F filedata=@x '…/api/upload?uploadTo=Files'`); every file streams straight into a part file
// on the target volume, and only once the whole request has arrived are the files placed
// (each under a free name, or by the `conflict` field or query: skip, replace). A refused or
// aborted request keeps nothing: part files are removed, and a placement that fails midway
// takes back the files and folders it made (a replaced file gets its old content back).
import { paceFor, type BodyPace } from '../core/load.ts';
import fsp from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { AppError, fromFsError } from '../core/errors.ts';
import type { Caller } from '../core/caller.ts';
import { fileEvent, listed, type ActivitySink } from '../files/activity.ts';
import type { WorkJournal } from '../files/journal.ts';
import type { ConflictPolicy } from '../files/names.ts';
import {
  placementRefusal,
  toFileItem,
  whereOfTarget,
  type Checked,
  type Placement,
  type PlacedFile,
  type UploadTarget,
} from './placement.ts';
import { NO_HOLD, type Hold, type QuotaPort } from '../files/quota-port.ts';
import { writeBody, type BodyWrite } from './body-writer.ts';
import { formatBytes, removeQuietly, type Staging } from './staging.ts';
import type { UploadedItem, UploadQuery } from './wire.ts';

/**
 * A part's filename as the sender meant it: browsers, curl and undici write `"` as `%22` and
 * CR, LF as `%0D`, `%0A` in it (the HTML form encoding); nothing else is escaped.
 */
function formFileName(sent: string): string {
  return sent.replace(/%(22|0D|0A)/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
export interface MultipartLimits {
  /** MAX_DIRECT_UPLOAD_SIZE */
  maxFileSize: number;
  /** MAX_FILES_PER_UPLOAD */
  maxFiles: number;
}

export interface MultipartReceiver {
  receive(
    caller: Caller,
    input: { headers: IncomingHttpHeaders; body: Readable; query?: UploadQuery },
  ): Promise<UploadedItem[]>;
}

class Aborted extends AppError {
  constructor() {
    super('UPLOAD_ABORTED');
  }
}

const tooLarge = (limit: number) =>
  new AppError(
    'UPLOAD_TOO_LARGE',
    `A file is larger than MAX_DIRECT_UPLOAD_SIZE (${formatBytes(limit)}); nothing of this upload was kept.`,
  );
const tooMany = (limit: number) =>
  new AppError(
    'UPLOAD_TOO_MANY_FILES',
    `More than MAX_FILES_PER_UPLOAD (${limit}) files in one request; nothing of this upload was kept.`,
  );

interface Staged {
  part: string;
  target: UploadTarget;
  checked: Checked;
  /** Position of the file in the request (staging finishes in any order). */
  order: number;
  /** A skip whose name was taken when the file arrived: its bytes were read away, not kept. */
  skipped?: PlacedFile;
  /** Its bytes held against the destination's quotas. */
  quota?: Hold;
}

const POLICIES: readonly string[] = ['rename', 'skip', 'replace'] satisfies ConflictPolicy[];

export function createMultipartReceiver(deps: {
  placement: Placement;
  staging: Staging;
  /**
   * Every part file is on the work journal from before it exists until it was placed or removed,
   * wherever it is staged: beside a destination on another disk mounted inside a volume, it is a
   * hidden file the staging folder's startup sweep never sees (a kill -9 left it for good).
   */
  journal: WorkJournal;
  limits: MultipartLimits;
  activity: ActivitySink;
  /** Each file's bytes are held against its destination's quotas as they stream. */
  quotas: QuotaPort;
  /** People's other requests go first: a file's bytes yield to them (core/load.ts). */
  pace?: BodyPace;
}): MultipartReceiver {
  const { placement, staging, limits } = deps;

  return {
    async receive(caller, { headers, body, query = {} }) {
      if (!/^multipart\/form-data\b/i.test(String(headers['content-type'] ?? ''))) {
        throw new AppError('NOT_MULTIPART');
      }
      const declared = Number(headers['content-length']);
      let parser: busboy.Busboy;
      try {
        parser = busboy({
          headers,
          // Browsers and curl send a file's name as raw UTF-8 (busboy would read it as Latin-1:
          // `Café` became `CafÃ©`); Python's `filename*=utf-8''…` is decoded either way.
          defParamCharset: 'utf8',
          highWaterMark: 1 << 20,
          fileHwm: 1 << 20,
          limits: { fileSize: limits.maxFileSize, files: limits.maxFiles, fields: 1000, fieldSize: 64 * 1024 },
        });
      } catch (err) {
        throw new AppError('BAD_MULTIPART', `The multipart body cannot be read: ${(err as Error).message}.`);
      }

      const parts = new Set<string>();
      /** The journal rows of the part files, ended once each was placed or removed. */
      const rows: string[] = [];
      const active = new Set<Readable>();
      const jobs: Promise<void>[] = [];
      const staged: Staged[] = [];
      /** Quota holds of the files staged: landed once placed, let go otherwise. */
      const holds: Hold[] = [];
      let failure: unknown = null;
      let uploadTo: string | undefined = query.uploadTo;
      let relativePath = '';
      let conflict: ConflictPolicy = query.conflict ?? 'rename';
      let files = 0;
      /**
       * A field that changes what the next file would get. Busboy hands parts over in order and a
       * file has to be read through before the part after it is seen, so a field after a file can
       * only steer that file by buffering it (or staging it on a volume not yet known): it is
       * refused instead, with a message saying to send it first.
       */
      let after: string | null = null;
      let spaceChecked = false;
      let settle!: () => void;
      const parsed = new Promise<void>((resolve) => {
        settle = resolve;
      });

      const fail = (err: unknown) => {
        if (failure) return;
        failure = err;
        body.unpipe(parser);
        for (const s of active) s.destroy(err instanceof Error ? err : new Error(String(err)));
        settle();
      };

      async function stageOne(target: UploadTarget, file: Readable, order: number): Promise<void> {
        const checked = await placement.check(caller, target);
        if (checked.conflict === 'skip') {
          const skipped = await placement.taken(checked);
          if (skipped) {
            file.resume();
            await new Promise<void>((resolve, reject) => {
              file.once('end', resolve);
              file.once('error', reject);
            });
            staged.push({ part: '', target, checked, order, skipped });
            return;
          }
        }
        const { folder } = checked;
        const quota = deps.quotas.hold(deps.quotas.chargeFor(caller, folder.space));
        holds.push(quota);
        const place = await staging.placeFor(folder.space.root, folder.realPath);
        if (!spaceChecked) {
          // The request's length bounds what all its files can need.
          await staging.ensureSpace(place.dir, Number.isFinite(declared) ? declared : 0);
          spaceChecked = true;
        }
        const part = await staging.createPart(place, 'mp', undefined, (file) => {
          rows.push(deps.journal.begin(file));
          parts.add(file);
        });
        const out = await fsp.open(part, 'r+');
        try {
          // Without a Content-Length nothing bounded the request up front: each chunk is checked
          // against the free space before it is kept, so the reserve stays free.
          let write: BodyWrite | undefined;
          const free = Number.isFinite(declared)
            ? undefined
            : await staging.guard(place.dir, () => write?.written ?? 0);
          // A chunk over a quota is refused before it is kept (the part file goes with the request).
          const inspect =
            quota === NO_HOLD && !free
              ? undefined
              : (chunk: Buffer) => {
                  try {
                    quota.add(chunk.length);
                  } catch (err) {
                    // Refused, the request keeps nothing: its holds go at once, so uploads racing
                    // with it have their room before it has ended.
                    for (const h of holds) h.release();
                    throw err;
                  }
                  free?.(chunk);
                };
          // busboy's file chunks are views of the request's own chunks or copies it made, each
          // scanned to its end before it is handed on: nobody reads them after us.
          write = writeBody(file, out.fd, 0, { freeWritten: true, inspect, ...paceFor(deps.pace, headers) });
          await write.done;
          if ((file as Readable & { truncated?: boolean }).truncated) throw tooLarge(limits.maxFileSize);
          // On disk before it is placed, as a resumable upload's part is: a crash after placement
          // must not leave a name whose bytes were never written.
          await out.datasync();
        } finally {
          await out.close();
        }
        staged.push({ part, target, checked, order, quota });
      }

      parser.on('field', (name, value) => {
        if (name === 'uploadTo') {
          if (files > 0 && value !== uploadTo) after = name;
          uploadTo = value;
        } else if (name === 'relativePath') {
          if (files > 0 && value !== '') after = name;
          relativePath = value;
        } else if (name === 'conflict') {
          if (!POLICIES.includes(value))
            return fail(
              new AppError(
                'BAD_MULTIPART',
                `The conflict field is "rename" (keep both), "skip" or "replace", not "${value.slice(0, 40)}". Nothing was kept.`,
              ),
            );
          if (files > 0 && value !== conflict) after = name;
          conflict = value as ConflictPolicy;
        }
      });
      parser.on('file', (name, file, info) => {
        if (failure) return void file.resume();
        if (name !== 'filedata') {
          file.resume();
          return fail(
            new AppError(
              'WRONG_FIELD',
              `Files go in the "filedata" field; a file came in "${name}". Nothing was kept.`,
            ),
          );
        }
        if (uploadTo === undefined) {
          file.resume();
          return fail(
            new AppError(
              'MISSING_DESTINATION',
              'The destination must be known before the file: send the uploadTo field before "filedata", or put uploadTo in the query string. Nothing was kept.',
            ),
          );
        }
        let named = relativePath;
        if (!named && query.relativePath) {
          if (files > 0) {
            file.resume();
            return fail(
              new AppError(
                'INVALID_QUERY',
                'relativePath in the query string names one file; with several files, send a relativePath field before each. Nothing was kept.',
              ),
            );
          }
          named = query.relativePath;
        }
        const target: UploadTarget = {
          uploadTo,
          relativePath: named,
          filename: formFileName(info.filename ?? ''),
          conflict,
        };
        relativePath = '';
        after = null;
        files++;
        active.add(file);
        file.on('error', () => {}); // a refusal destroys it; pipeline reports the error to the job
        file.on('limit', () => fail(tooLarge(limits.maxFileSize)));
        jobs.push(
          stageOne(target, file, jobs.length)
            .catch(fail)
            .finally(() => active.delete(file)),
        );
      });
      parser.on('filesLimit', () => fail(tooMany(limits.maxFiles)));
      parser.on('fieldsLimit', () => fail(new AppError('UPLOAD_TOO_MANY_FIELDS')));
      parser.on('error', (err: Error) =>
        fail(new AppError('BAD_MULTIPART', `The multipart body is malformed: ${err.message}.`)),
      );
      parser.on('close', () => {
        if (after)
          fail(
            new AppError(
              'WRONG_FIELD',
              `"${after}" arrived after the last file, so it describes no file: send uploadTo and relativePath before the file they belong to (or in the query string). Nothing was kept.`,
            ),
          );
        settle();
      });
      body.on('error', () => fail(new Aborted()));
      body.on('close', () => {
        if (!body.readableEnded) fail(new Aborted());
      });
      body.pipe(parser);

      await parsed;
      await Promise.allSettled(jobs);
      if (!failure && staged.length === 0) failure = new AppError('NO_FILE');

      const placed: PlacedFile[] = [];
      try {
        if (failure) throw failure;
        // Place in the order sent, so `x`, `x (1)`… follow the request.
        staged.sort((a, b) => a.order - b.order);
        for (const s of staged) {
          if (s.skipped) {
            placed.push(s.skipped);
            continue;
          }
          try {
            placed.push(await placement.place(caller, s.target, s.part, s.checked));
          } catch (err) {
            // Arrived whole but refused where it was going: its uploader is told, as after a
            // resumable upload (a script or a phone's background upload has no one watching).
            deps.activity.record({
              ...fileEvent(caller, 'files.upload', {
                stage: 'placement',
                ...whereOfTarget(s.target),
                reason: placementRefusal(err).reason,
                method: 'multipart',
              }),
              outcome: 'failure',
            });
            throw err;
          }
        }
        const stored = placed.filter((p) => p.outcome !== 'skipped');
        if (stored.length)
          deps.activity.record(
            fileEvent(caller, 'files.upload', {
              ...listed(stored.map((p) => p.shown)),
              bytes: stored.reduce((n, p) => n + p.size, 0),
              method: 'multipart',
            }),
          );
        staged.forEach((st, i) => st.quota?.land([placed[i]!.realPath]));
        return placed.map(toFileItem);
      } catch (err) {
        for (const p of placed.reverse()) await placement.undo(caller, p).catch(() => {});
        throw err instanceof AppError ? err : (fromFsError(err) ?? err);
      } finally {
        for (const h of holds) h.release();
        for (const part of parts) await removeQuietly(part);
        for (const row of rows) deps.journal.end(row);
        for (const part of parts) await staging.tidy(part);
      }
    },
  };
}

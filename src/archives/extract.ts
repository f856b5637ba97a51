// The extraction engine, one for every format: a format's feed hands entries in archive order,
// this decides where each lands and writes it through an ExtractTarget. Nothing is written
// over (each selected item, and every name inside the tree it creates, is claimed atomically,
// `name (1)` when taken), nothing lands outside, links and devices are never written, sizes are
// held to what the archive declares, and a failure removes exactly what this run created.
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fromFsError } from '../core/errors.ts';
import { allocateFreeName } from '../files/names.ts';
import { bomb, isAppError, noSpace, unreadable } from './errors.ts';
import { baseOf, parentOf, type EntryKind, type Selection } from './listing.ts';
import type { CreatedFile, DirHandle, ExtractTarget } from './target.ts';

/** Stream events (spec §6): NDJSON lines as the routes send them. */
export type ExtractEvent =
  | { type: 'start'; archive: string; entries: number | null; bytes: number | null }
  | { type: 'progress'; entries: number; bytes: number; totalEntries: number | null; totalBytes: number | null }
  | {
      type: 'done';
      entries: number;
      bytes: number;
      landed: { entry: string; name: string }[];
      skipped: { entry: string; reason: SkipReason }[];
    }
  | { type: 'error'; message: string; statusCode: number; code?: string };

export type SkipReason = 'link' | 'device';

/** One entry as a feed hands it over; `data` only for files. */
export interface FeedEntry {
  path: string | null;
  stored: string;
  kind: EntryKind;
  size: number | null;
  encrypted?: boolean;
}

/** A format's walk over the selected entries, in archive order. */
export interface EntryFeed {
  run(visit: (entry: FeedEntry, data: Readable | null) => Promise<void>, signal: AbortSignal): Promise<void>;
}

export interface ExtractLimits {
  /** Most bytes one extraction may write (besides free space). */
  maxTotalBytes: number;
  /** Most bytes written per archive byte, once past `ratioFloor` (zip bombs run at 1000:1 and more). */
  maxRatio: number;
  ratioFloor: number;
}

export const DEFAULT_EXTRACT_LIMITS: ExtractLimits = {
  maxTotalBytes: Number.MAX_SAFE_INTEGER,
  maxRatio: 1000,
  ratioFloor: 256 * 1024 * 1024,
};

export interface ExtractJob {
  archiveName: string;
  archiveBytes: number;
  selection: Selection;
  /** What the listing declares for the selection (null bytes: unknown until read). */
  declared: { files: number | null; bytes: number | null };
  feed: EntryFeed;
  target: ExtractTarget;
  destination: DirHandle;
  limits: ExtractLimits;
  emit: (e: ExtractEvent) => void;
  signal?: AbortSignal;
}

export interface ExtractResult {
  landed: { entry: string; name: string }[];
  /** Every path written (folders and files), in creation order, for the changes sink. */
  written: { path: string; isDirectory: boolean }[];
  skipped: { entry: string; reason: SkipReason }[];
  files: number;
  bytes: number;
}

const PROGRESS_EVERY_MS = 250;

export async function extract(job: ExtractJob): Promise<ExtractResult> {
  const { selection, target, destination, limits, emit } = job;
  const controller = new AbortController();
  const onAbort = () => controller.abort(job.signal?.reason);
  job.signal?.addEventListener('abort', onAbort, { once: true });
  if (job.signal?.aborted) controller.abort(job.signal.reason);
  const placer = new Placer(target, destination);
  const skipped: ExtractResult['skipped'] = [];
  let files = 0;
  let bytes = 0;
  let lastProgress = Date.now();
  try {
    if (job.declared.bytes !== null) {
      if (job.declared.bytes > limits.maxTotalBytes)
        throw bomb(`the selection would write ${job.declared.bytes} bytes, over the limit of ${limits.maxTotalBytes}`);
      const free = await target.freeSpace(destination);
      if (job.declared.bytes > free) throw noSpace(job.declared.bytes, free);
    }
    emit({ type: 'start', archive: job.archiveName, entries: job.declared.files, bytes: job.declared.bytes });
    await job.feed.run(async (entry, data) => {
      const root = entry.path === null ? undefined : selection.rootOf(entry.path);
      // Names pointing outside are never written (the listing counts them as `outside`).
      if (entry.path === null || root === undefined) {
        data?.resume();
        return;
      }
      if (entry.kind === 'link' || entry.kind === 'device') {
        skipped.push({ entry: entry.path, reason: entry.kind });
        data?.resume();
        return;
      }
      if (entry.kind === 'directory') {
        await placer.dir(entry.path, root);
        return;
      }
      if (!data) return;
      const created = await placer.file(entry.path, root);
      let written = 0;
      // 1 MiB on both sides: the next chunks inflate while the previous ones are written.
      const guard = new Transform({
        highWaterMark: 1024 * 1024,
        transform(chunk: Buffer, _enc, cb) {
          written += chunk.length;
          bytes += chunk.length;
          if (entry.size !== null && written > entry.size)
            return cb(bomb(`"${entry.path}" is larger than the archive says (${entry.size} bytes)`));
          if (bytes > limits.maxTotalBytes) return cb(bomb(`more than ${limits.maxTotalBytes} bytes`));
          if (bytes > limits.ratioFloor && bytes > limits.maxRatio * job.archiveBytes)
            return cb(bomb(`the archive expands more than ${limits.maxRatio} times`));
          const now = Date.now();
          if (now - lastProgress >= PROGRESS_EVERY_MS) {
            lastProgress = now;
            emit({
              type: 'progress',
              entries: files,
              bytes,
              totalEntries: job.declared.files,
              totalBytes: job.declared.bytes,
            });
          }
          cb(null, chunk);
        },
      });
      await pipeline(data, guard, created.stream, { signal: controller.signal });
      if (entry.size !== null && written < entry.size)
        throw unreadable(`"${entry.path}" ends before its declared size`);
      files++;
    }, controller.signal);
    if (controller.signal.aborted) throw controller.signal.reason ?? new Error('aborted');
    const landed = [...placer.landed].map(([entry, name]) => ({ entry, name }));
    emit({ type: 'progress', entries: files, bytes, totalEntries: job.declared.files, totalBytes: job.declared.bytes });
    emit({ type: 'done', entries: files, bytes, landed, skipped });
    return { landed, written: placer.written, skipped, files, bytes };
  } catch (err) {
    controller.abort(err);
    await placer.undo();
    const answer = asAnswer(err);
    emit({
      type: 'error',
      message: answer.message,
      statusCode: answer.status,
      ...(answer.code ? { code: answer.code } : {}),
    });
    throw answer;
  } finally {
    job.signal?.removeEventListener('abort', onAbort);
  }
}

function asAnswer(err: unknown): { message: string; status: number; code?: string } & Error {
  if (isAppError(err)) return err as never;
  const fsErr = fromFsError(err);
  if (fsErr) return fsErr as never;
  if ((err as Error)?.name === 'AbortError')
    return Object.assign(new Error('The extraction was cancelled.'), { status: 499, code: 'ABORTED' });
  return unreadable((err as Error)?.message) as never;
}

/**
 * Where entries land: each selected root under a free name in the destination, everything
 * below it inside the folders this run created (and so could not have been taken by anyone
 * else, except by a duplicate entry of the same archive, which is numbered too).
 */
class Placer {
  readonly landed = new Map<string, string>();
  readonly written: { path: string; isDirectory: boolean }[] = [];
  /** What this run created, as (folder, name) pairs: removed through the folder's handle. */
  private readonly made: { parent: DirHandle; name: string; isDirectory: boolean }[] = [];
  private readonly dirs = new Map<string, Promise<DirHandle>>();
  private readonly target: ExtractTarget;
  private readonly destination: DirHandle;

  constructor(target: ExtractTarget, destination: DirHandle) {
    this.target = target;
    this.destination = destination;
  }

  dir(entryDir: string, root: string): Promise<DirHandle> {
    if (entryDir === parentOf(root)) return Promise.resolve(this.destination);
    let made = this.dirs.get(entryDir);
    if (!made) {
      made = (async () => {
        const parent = await this.dir(parentOf(entryDir), root);
        const { value, name } = await claim(parent, baseOf(entryDir), (n) => this.target.mkdirExclusive(parent, n));
        this.written.push({ path: value.path, isDirectory: true });
        this.made.push({ parent, name, isDirectory: true });
        if (entryDir === root) this.landed.set(root, name);
        return value;
      })();
      this.dirs.set(entryDir, made);
    }
    return made;
  }

  async file(entryPath: string, root: string): Promise<CreatedFile> {
    const parent = await this.dir(parentOf(entryPath), root);
    const { value, name } = await claim(parent, baseOf(entryPath), (n) => this.target.createFileExclusive(parent, n));
    this.written.push({ path: value.path, isDirectory: false });
    this.made.push({ parent, name, isDirectory: false });
    if (entryPath === root && !this.landed.has(root)) this.landed.set(root, name);
    return value;
  }

  /** Removes what this run created, deepest first; a folder someone else filled meanwhile stays. */
  async undo(): Promise<void> {
    for (const m of [...this.made].reverse()) await this.target.remove(m.parent, m.name, m.isDirectory);
    this.made.length = 0;
    this.written.length = 0;
  }
}

async function claim<T>(
  dir: DirHandle,
  name: string,
  op: (name: string) => Promise<T>,
): Promise<{ value: T; name: string }> {
  let value: T | undefined;
  const final = await allocateFreeName(dir.path, name, async (candidate) => {
    value = await op(path.basename(candidate));
  });
  return { value: value!, name: final };
}

// The extraction engine, one for every format: a format's feed hands entries in archive order,
// this decides where each lands and writes it through an ExtractTarget. Nothing is written
// over (each selected item, and every name inside the tree it creates, is claimed atomically,
// `name (1)` when taken), nothing lands outside, links and devices are never written, sizes are
// held to what the archive declares, a failure removes exactly what this run created, and a
// crash leaves nothing under a real name: items are built hidden and placed when whole.
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { fromFsError } from '../core/errors.ts';
import type { WorkJournal } from '../files/journal.ts';
import { allocateFreeName, temporaryName, type Displaced, type Outcome, type PlacedEntry } from '../files/names.ts';
import { bomb, isAppError, NeedsListing, noSpace, unreadable } from './errors.ts';
import { baseOf, parentOf, type EntryKind, type Selection } from './listing.ts';
import type { CreatedFile, DirHandle, ExtractTarget, PlaceConflict } from './target.ts';
import type { ChunkSource } from './zip-reader.ts';

/** Stream events (spec §6): NDJSON lines as the routes send them. */
export type ExtractEvent =
  | { type: 'start'; archive: string; entries: number | null; bytes: number | null }
  | { type: 'progress'; entries: number; bytes: number; totalEntries: number | null; totalBytes: number | null }
  | {
      type: 'done';
      entries: number;
      bytes: number;
      landed: Landed[];
      skipped: { entry: string; reason: SkipReason }[];
    }
  | { type: 'error'; message: string; statusCode: number; code?: string };

export type SkipReason = 'link' | 'device';

/** A selected entry's name in the destination and how it got it (a taken name's policy). */
export interface Landed extends Displaced {
  entry: string;
  /** The name it took, or for `skipped` the name that keeps what was there. */
  name: string;
  outcome: Outcome;
}

/** One entry as a feed hands it over; `data` only for files. */
export interface FeedEntry {
  path: string | null;
  stored: string;
  kind: EntryKind;
  size: number | null;
  encrypted?: boolean;
}

/** A file entry's bytes: a stream, or a source that hands over chunks it reuses (zip-reader.ts). */
export type EntryData = Readable | ChunkSource;

/** A format's walk over the selected entries, in archive order. */
export interface EntryFeed {
  /** Bytes of the archive read so far, where the feed reads it in order (tar family, single streams). */
  consumed?(): number;
  run(visit: (entry: FeedEntry, data: EntryData | null) => Promise<void>, signal: AbortSignal): Promise<void>;
}

const isStream = (d: EntryData): d is Readable => typeof (d as Readable).resume === 'function';
/** Lets an entry go unread: a stream is drained (the walk goes on), a chunk source was never started. */
const drop = (d: EntryData | null) => {
  if (d && isStream(d)) d.resume();
};

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
  /**
   * Where the archive was not listed but states an upper bound of what it writes (a tar.gz's
   * trailer: the tar's length): judged before a byte is written as a declared size is (limits,
   * ratio, free space, quotas) and held while streaming. A bound refused, or a run that would
   * write past it, ends in NeedsListing — what it wrote removed, no event — and the caller lists
   * the archive to judge its exact sizes.
   */
  bound?: number;
  feed: EntryFeed;
  target: ExtractTarget;
  destination: DirHandle;
  limits: ExtractLimits;
  emit: (e: ExtractEvent) => void;
  signal?: AbortSignal;
  /** Where staged roots are recorded until placed (none in engine tests: nothing to recover). */
  journal?: WorkJournal | null;
  /** false: the destination is a temporary its caller places, roots are claimed in it directly. */
  stage?: boolean;
  /** What a selected entry does when its name is taken in the destination (keep both when absent). */
  conflict?: (entry: string) => PlaceConflict;
  /** Takes the declared size against the destination's quotas before a byte is written (throws to refuse). */
  reserve?: (bytes: number) => void;
}

export interface ExtractResult {
  landed: Landed[];
  /** The selected roots as placed (a folder stands for everything in it), for the changes sink. */
  written: { path: string; isDirectory: boolean }[];
  skipped: { entry: string; reason: SkipReason }[];
  files: number;
  bytes: number;
}

const PROGRESS_EVERY_MS = 250;
/** Files flushed at once (each as soon as it is written, in the background; all before placing). */
const FLUSHING = 8;
/** Written files waiting for their flush before the next entry waits (each holds a descriptor). */
const WAITING = 32;

export async function extract(job: ExtractJob): Promise<ExtractResult> {
  const { selection, target, destination, limits, emit } = job;
  const controller = new AbortController();
  const onAbort = () => controller.abort(job.signal?.reason);
  job.signal?.addEventListener('abort', onAbort, { once: true });
  if (job.signal?.aborted) controller.abort(job.signal.reason);
  const placer = new Placer(target, destination, job.journal ?? null, job.stage ?? true, job.conflict);
  const skipped: ExtractResult['skipped'] = [];
  let files = 0;
  let bytes = 0;
  let lastProgress = Date.now();
  try {
    // What the archive declares is judged before a byte is written: a zip of zeros says what it
    // will expand to (before, its ratio was noticed only once 1,000 times the archive was on disk).
    const upFront = job.declared.bytes ?? job.bound ?? null;
    if (upFront !== null) {
      try {
        if (upFront > limits.maxTotalBytes)
          throw bomb(`the selection would write ${upFront} bytes, over the limit of ${limits.maxTotalBytes}`);
        if (upFront > limits.ratioFloor && upFront > limits.maxRatio * job.archiveBytes)
          throw bomb(
            `the archive says it expands ${Math.round(upFront / Math.max(1, job.archiveBytes))} times (${upFront} bytes from ${job.archiveBytes}), more than ${limits.maxRatio}`,
          );
        const free = await target.freeSpace(destination);
        if (upFront > free) throw noSpace(upFront, free);
        job.reserve?.(upFront);
      } catch (err) {
        // A bound is more than the files hold (the tar's headers and padding): only their exact
        // sizes may refuse.
        if (job.declared.bytes === null && isAppError(err)) throw new NeedsListing(err.message);
        throw err;
      }
    }
    emit({ type: 'start', archive: job.archiveName, entries: job.declared.files, bytes: job.declared.bytes });
    await job.feed.run(async (entry, data) => {
      const root = entry.path === null ? undefined : selection.rootOf(entry.path);
      // Names pointing outside are never written (the listing counts them as `outside`).
      if (entry.path === null || root === undefined) {
        drop(data);
        return;
      }
      // A root to skip whose name is taken now is not written at all (checked again at placing).
      if (await placer.skips(root)) {
        drop(data);
        return;
      }
      if (entry.kind === 'link' || entry.kind === 'device') {
        skipped.push({ entry: entry.path, reason: entry.kind });
        drop(data);
        return;
      }
      if (entry.kind === 'directory') {
        await placer.dir(entry.path, root);
        return;
      }
      if (!data) return;
      const created = await placer.file(entry.path, root);
      let written = 0;
      // Every chunk is judged before it is written: the entry's declared size, the run's total,
      // what the archive declares and the expansion ratio, so a bomb stops at its first chunk
      // past a limit, never after writing it.
      const admit = (n: number) => {
        written += n;
        bytes += n;
        if (entry.size !== null && written > entry.size)
          throw bomb(`"${entry.path}" is larger than the archive says (${entry.size} bytes)`);
        if (job.bound !== undefined && bytes > job.bound)
          throw new NeedsListing(`it writes more than the ${job.bound} bytes its trailer states`);
        if (bytes > limits.maxTotalBytes) throw bomb(`more than ${limits.maxTotalBytes} bytes`);
        if (job.declared.bytes !== null && bytes > job.declared.bytes)
          throw bomb(`it writes more than the ${job.declared.bytes} bytes the archive declares`);
        // Judged against what has been read of the archive so far where the feed knows it (a
        // .gz of zeros is stopped once past the floor, not after 1,000 times the whole file).
        if (bytes > limits.ratioFloor && bytes > limits.maxRatio * (job.feed.consumed?.() ?? job.archiveBytes))
          throw bomb(`the archive expands more than ${limits.maxRatio} times`);
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
      };
      const out = new PositionalFile(created.fd);
      try {
        if (isStream(data)) await fromStream(data, admit, out, controller.signal);
        else
          await data.pump(async (chunk) => {
            if (controller.signal.aborted) throw controller.signal.reason ?? new Error('aborted');
            admit(chunk.length);
            await out.write(chunk);
          });
        if (entry.size !== null && written < entry.size)
          throw unreadable(`"${entry.path}" ends before its declared size`);
      } catch (err) {
        await closeFd(created.fd);
        throw err;
      }
      files++;
      // Flushed now through its descriptor, in the background, while the next entries are
      // written (awaited before placing); closed once flushed.
      await placer.flushLater(created);
    }, controller.signal);
    if (controller.signal.aborted) throw controller.signal.reason ?? new Error('aborted');
    await placer.place();
    const landed = [...placer.landed.values()];
    emit({ type: 'progress', entries: files, bytes, totalEntries: job.declared.files, totalBytes: job.declared.bytes });
    emit({ type: 'done', entries: files, bytes, landed, skipped });
    return { landed, written: placer.written, skipped, files, bytes };
  } catch (err) {
    // Cancelled: the answer says so, whichever step noticed first (a feed may report the
    // stream it was reading as unreadable once the abort destroyed it).
    const cause = job.signal?.aborted ? (job.signal.reason ?? err) : err;
    controller.abort(cause);
    await placer.undo();
    if (cause instanceof NeedsListing) throw cause;
    const answer = asAnswer(cause);
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

/** Bytes of the file from the start, written at their positions through the descriptor (no stream per file). */
class PositionalFile {
  private at = 0;
  private readonly fd: number;
  constructor(fd: number) {
    this.fd = fd;
  }

  async write(chunk: Buffer): Promise<void> {
    let from = 0;
    while (from < chunk.length) {
      const n = await new Promise<number>((resolve, reject) =>
        fs.write(this.fd, chunk, from, chunk.length - from, this.at, (err, n) => (err ? reject(err) : resolve(n))),
      );
      from += n;
      this.at += n;
    }
  }
}

const closeFd = (fd: number) => new Promise<void>((resolve) => fs.close(fd, () => resolve()));

/**
 * A stream entry's chunks (fresh ones each: tar, 7-Zip), each admitted and then written while
 * the next is read, one write in flight.
 */
async function fromStream(data: Readable, admit: (n: number) => void, out: PositionalFile, signal: AbortSignal) {
  const onAbort = () => data.destroy(signal.reason ?? new Error('aborted'));
  if (signal.aborted) onAbort();
  signal.addEventListener('abort', onAbort, { once: true });
  let pending: Promise<void> = Promise.resolve();
  try {
    for await (const chunk of data as AsyncIterable<Buffer>) {
      admit(chunk.length);
      await pending;
      pending = out.write(chunk);
      pending.catch(() => {});
    }
    await pending;
  } catch (err) {
    await pending.catch(() => {});
    throw err;
  } finally {
    signal.removeEventListener('abort', onAbort);
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
 * Where entries land. Each selected root is built under a hidden temporary name in the
 * destination (its journal row written first), everything below it inside the folders this
 * run created; once every entry is written (and flushed), each root is placed under its own
 * name, or `name (1)` when taken, in the order the archive named them. A crash before that
 * leaves only temporaries, which the next start removes (files/journal.ts): a half-extracted
 * tree is never found under a real name. Without staging (`stage: false`: the destination is
 * itself a temporary the caller places) roots are claimed in it directly.
 */
class Placer {
  readonly landed = new Map<string, Landed>();
  /** The roots as placed: their real paths, for the changes sink. */
  readonly written: { path: string; isDirectory: boolean }[] = [];
  /** What this run created, as (folder, name) pairs: removed through the folder's handle. */
  private made: { parent: DirHandle; name: string; isDirectory: boolean }[] = [];
  /** Roots built under a temporary name, in the order met; `row` is the journal's. */
  private readonly staged: { entry: string; temp: string; isDirectory: boolean; row: string | null }[] = [];
  private readonly dirs = new Map<string, Promise<DirHandle>>();
  private readonly target: ExtractTarget;
  private readonly destination: DirHandle;
  private readonly journal: WorkJournal | null;
  private readonly stage: boolean;
  private readonly conflict: ((entry: string) => PlaceConflict) | undefined;
  /** Roots whose taken name is kept as it is (`skip`), decided when first met. */
  private readonly skipping = new Map<string, Promise<boolean>>();

  constructor(
    target: ExtractTarget,
    destination: DirHandle,
    journal: WorkJournal | null,
    stage: boolean,
    conflict?: (entry: string) => PlaceConflict,
  ) {
    this.target = target;
    this.destination = destination;
    this.journal = journal;
    this.stage = stage;
    this.conflict = conflict;
  }

  /** A root whose policy is `skip` and whose name is taken: nothing of it is written. */
  skips(root: string): Promise<boolean> {
    let known = this.skipping.get(root);
    if (!known) {
      const name = baseOf(root);
      known =
        this.conflict?.(root).policy === 'skip'
          ? this.target.exists(this.destination, name).then((taken) => {
              if (taken) this.landed.set(root, { entry: root, name, outcome: 'skipped' });
              return taken;
            })
          : Promise.resolve(false);
      this.skipping.set(root, known);
    }
    return known;
  }

  dir(entryDir: string, root: string): Promise<DirHandle> {
    if (entryDir === parentOf(root)) return Promise.resolve(this.destination);
    let made = this.dirs.get(entryDir);
    if (!made) {
      made = (async () => {
        const parent = await this.dir(parentOf(entryDir), root);
        const create = (n: string) => this.target.mkdirExclusive(parent, n);
        if (entryDir === root) return this.root(root, true, create);
        const { value, name } = await claim(parent, baseOf(entryDir), create);
        this.made.push({ parent, name, isDirectory: true });
        return value;
      })();
      this.dirs.set(entryDir, made);
    }
    return made;
  }

  async file(entryPath: string, root: string): Promise<MadeFile> {
    const parent = await this.dir(parentOf(entryPath), root);
    const create = async (n: string): Promise<MadeFile> => ({
      ...(await this.target.createFileExclusive(parent, n)),
      parent,
      name: n,
    });
    if (entryPath === root) return this.root(root, false, create);
    const { value, name } = await claim(parent, baseOf(entryPath), create);
    this.made.push({ parent, name, isDirectory: false });
    return value;
  }

  /** A selected root: staged under a temporary name, or claimed in the destination as it is. */
  private async root<T>(entry: string, isDirectory: boolean, create: (name: string) => Promise<T>): Promise<T> {
    if (!this.stage) {
      const { value, name } = await claim(this.destination, baseOf(entry), create);
      this.made.push({ parent: this.destination, name, isDirectory });
      this.placed(entry, { name, outcome: name === baseOf(entry) ? 'placed' : 'renamed' }, isDirectory);
      return value;
    }
    const temp = temporaryName();
    const row = this.journal?.begin(path.join(this.destination.path, temp)) ?? null;
    try {
      const value = await create(temp);
      this.made.push({ parent: this.destination, name: temp, isDirectory });
      this.staged.push({ entry, temp, isDirectory, row });
      return value;
    } catch (err) {
      if (row) this.journal!.end(row);
      throw err;
    }
  }

  private placed(entry: string, how: PlacedEntry, isDirectory: boolean): void {
    if (!this.landed.has(entry))
      this.landed.set(entry, { entry, name: how.name, outcome: how.outcome, ...how.displaced });
    if (how.outcome !== 'skipped') this.written.push({ path: path.join(this.destination.path, how.name), isDirectory });
  }

  /**
   * Every entry is written: the staged roots take their names. One that cannot be placed
   * fails the run; the roots placed before it stay (each is whole), the rest are removed.
   */
  async place(): Promise<void> {
    await this.flush();
    while (this.staged.length) {
      const s = this.staged[0]!;
      const how = await this.target.place(
        this.destination,
        s.temp,
        baseOf(s.entry),
        s.isDirectory,
        this.conflict?.(s.entry),
      );
      // Skipped at placing (the name was taken meanwhile): what was built goes.
      if (how.outcome === 'skipped') await this.target.discard(this.destination, s.temp, s.isDirectory);
      this.staged.shift();
      // Placed: no longer this run's to remove, and nothing is left for a restart to roll back.
      this.made = this.made.filter((m) => !(m.parent === this.destination && m.name === s.temp));
      if (s.row) this.journal!.end(s.row);
      this.placed(s.entry, how, s.isDirectory);
    }
    this.made.length = 0;
  }

  /**
   * Every file written reaches the disk before anything is placed, so a power cut cannot leave
   * placed names with missing contents. Flushed at the end, several at once, not one by one as
   * they close: the disk writes them back together (2,000 files of 4 KiB, a loaded machine:
   * 1.0-1.2x the time without flushing, against 1.1-1.7x for a flush at each close).
   */
  private async flush(): Promise<void> {
    while (this.flushing.size) await Promise.all(this.flushing);
    if (this.flushFailed) throw this.flushFailed.err;
  }

  /**
   * Flushes a written file through its descriptor in the background, up to FLUSHING at once
   * (the disk writes them back while the next entries are inflated and written), and closes it;
   * place() waits for every one. A flush that fails fails the run there. Resolves once fewer
   * than WAITING files wait for their flush (each holds its descriptor open until then).
   */
  async flushLater(f: MadeFile): Promise<void> {
    this.toFlush.push(f);
    this.nextFlush();
    while (this.toFlush.length >= WAITING) await Promise.race(this.flushing);
  }

  private readonly toFlush: MadeFile[] = [];
  private readonly flushing = new Set<Promise<void>>();
  private flushFailed: { err: unknown } | null = null;

  private nextFlush(): void {
    while (this.flushing.size < FLUSHING && this.toFlush.length) {
      const f = this.toFlush.shift()!;
      const p: Promise<void> = this.target
        .sync(f.fd)
        .catch((err: unknown) => {
          this.flushFailed ??= { err };
        })
        .then(() => closeFd(f.fd))
        .finally(() => {
          this.flushing.delete(p);
          this.nextFlush();
        });
      this.flushing.add(p);
    }
  }

  /** No flush left running (before removing what this run made). */
  private async settled(): Promise<void> {
    await Promise.all(this.toFlush.map((f) => closeFd(f.fd)));
    this.toFlush.length = 0;
    while (this.flushing.size) await Promise.all(this.flushing);
  }

  /** Removes what this run created and has not placed, deepest first; a folder someone else filled meanwhile stays. */
  async undo(): Promise<void> {
    await this.settled();
    for (const m of [...this.made].reverse()) await this.target.remove(m.parent, m.name, m.isDirectory);
    this.made.length = 0;
    for (const s of this.staged) if (s.row) this.journal!.end(s.row);
    this.staged.length = 0;
  }
}

/** A file this run created, with the folder and name it was created under. */
type MadeFile = CreatedFile & { parent: DirHandle; name: string };

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

// The paced walk (runs in the worker thread). Depth-first with FOLDER_SIZE_*_CONCURRENCY folders
// listed at once, every call bounded by the I/O guard, sizes summed bottom-up so each folder's
// record leaves with its recursive totals the moment its last subfolder is done: memory holds
// only the folders still open, never the tree.
import path from 'node:path';
import { isReservedName } from '../files/names.ts';
import { hasSearchFacts, isDocument, type Extracted } from './extract.ts';
import type { DirEntry, Done, EntryStat, FsLayer } from './fs-layer.ts';
import type { IoGuard } from './io-guard.ts';
import {
  docStamp,
  isWithin,
  joinRel,
  splitRel,
  type DocRecord,
  type EntryRecord,
  type Listing,
  type WalkJob,
  type WalkSummary,
} from './protocol.ts';

export interface WalkSink {
  entry(record: EntryRecord): void;
  doc(record: DocRecord): void;
  /** Flow control: true while the main thread has not written enough of what was sent. */
  full?(): boolean;
  /** Resolves once full() is false again. */
  room?(): Promise<void>;
}

export type Extractor = (file: string, name: string, size: number) => Promise<Extracted>;

export interface OpenDir {
  rel: string;
  parent: OpenDir | null;
  /** The folder's own listing plus each subfolder not yet finished. */
  pending: number;
  size: number;
  entries: number;
  totalSize: number;
  totalEntries: number;
  complete: boolean;
  mtime: number;
}

/** A folder found, to be listed: nothing counted yet, its time as read before its listing. */
export function openDir(rel: string, parent: OpenDir | null, mtime: number): OpenDir {
  return { rel, parent, pending: 1, size: 0, entries: 0, totalSize: 0, totalEntries: 0, complete: true, mtime };
}

/**
 * Records a folder whose listing and subfolders are all done and adds its totals to its
 * parent (both walks add up sizes bottom-up this way). Returns the parent, or null when the
 * walk's top folder finished (its totals are then the summary's).
 */
export function closeDir(
  node: OpenDir,
  sink: WalkSink,
  summary: WalkSummary,
  cancelled: () => boolean,
): OpenDir | null {
  summary.dirs++;
  const [dir, name] = splitRel(node.rel);
  sink.entry({
    dir,
    name,
    isDir: true,
    size: node.size,
    mtime: node.mtime,
    entries: node.entries,
    totalSize: node.totalSize,
    totalEntries: node.totalEntries,
    complete: node.complete,
  });
  const parent = node.parent;
  if (!parent) {
    summary.totalSize = node.totalSize;
    summary.totalEntries = node.totalEntries;
    summary.complete = node.complete && !cancelled();
    return null;
  }
  parent.totalSize += node.totalSize;
  parent.totalEntries += node.totalEntries;
  if (!node.complete) parent.complete = false;
  return parent;
}

const STAT_WINDOW = 16;
/**
 * A folder that changes while it is listed is listed again, this many times at most; after
 * that its row keeps the time read before its last listing (a time its names may be newer than).
 */
export const RELIST_TRIES = 3;
const EXTRACT_CONCURRENCY = 2;

export function abs(root: string, rel: string): string {
  return rel === '' ? root : path.join(root, ...rel.split('/'));
}

function lstat(
  fs: FsLayer,
  guard: IoGuard,
  file: string,
): Promise<{ err: NodeJS.ErrnoException | null; st?: EntryStat }> {
  return new Promise((resolve) =>
    guard.run<EntryStat>(
      (d) => fs.lstat(file, d),
      (err, st) => resolve({ err, st }),
    ),
  );
}

export function isExcluded(rel: string, excludes: readonly string[]): boolean {
  if (rel.split('/').some(isReservedName)) return true;
  for (const ex of excludes) if (ex !== '' && isWithin(rel, ex)) return true;
  return false;
}

/** What a walk has found so far: nothing yet. */
export const emptySummary = (): WalkSummary => ({
  missing: false,
  isDir: false,
  totalSize: 0,
  totalEntries: 0,
  complete: true,
  dirs: 0,
  files: 0,
  ms: 0,
});

/**
 * Document text extraction beside a walk (both walkers): EXTRACT_CONCURRENCY at a time, in the
 * order found; a cancelled walk drops what is still waiting.
 */
/** The index holds this document's text as of the file seen now (WalkJob.known). */
export function textKnown(job: WalkJob, dir: string, name: string, mtimeMs: number, size: number): boolean {
  return job.known !== undefined && job.known.get(joinRel(dir, name)) === docStamp(mtimeMs, size);
}

export function createExtractQueue(extract: Extractor, sink: WalkSink, cancelled: () => boolean) {
  const waiting: { file: string; dir: string; name: string; size: number }[] = [];
  let running = 0;
  let onDrained: (() => void) | null = null;
  const idle = () => running === 0 && waiting.length === 0;
  const pump = () => {
    while (running < EXTRACT_CONCURRENCY && waiting.length && !cancelled()) {
      const item = waiting.shift()!;
      running++;
      extract(item.file, item.name, item.size)
        .then(
          ({ text, state, media }) => {
            // No text is said too, so a file written over with no text loses its old text.
            sink.doc({
              dir: item.dir,
              name: item.name,
              text: text || null,
              ...(state ? { state } : {}),
              ...(media ? { media } : {}),
            });
          },
          () => {},
        )
        .finally(() => {
          running--;
          pump();
          if (idle()) onDrained?.();
        });
    }
    if (cancelled()) waiting.length = 0;
  };
  return {
    add(file: string, dir: string, name: string, size: number): void {
      waiting.push({ file, dir, name, size });
      pump();
    },
    /** Files found and not yet being read. */
    get waiting(): number {
      return waiting.length;
    },
    /** Resolves once nothing is waiting or being read. */
    drained: (): Promise<void> =>
      idle()
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            onDrained = resolve;
          }),
  };
}

export async function walk(
  job: WalkJob,
  fs: FsLayer,
  guard: IoGuard,
  sink: WalkSink,
  extract: Extractor | null,
  cancelled: () => boolean,
  /** People are being served (core/load.ts): the next folder waits for `pace`. */
  hold: () => boolean = () => false,
  pace: () => Promise<void> = () => Promise.resolve(),
): Promise<WalkSummary> {
  const started = Date.now();
  const summary = emptySummary();
  if (isExcluded(job.rel, job.excludes)) return { ...summary, missing: true };
  await guard.clear();
  const first = await lstat(fs, guard, abs(job.root, job.rel));
  if (first.err || !first.st) return { ...summary, missing: true, complete: false, ms: Date.now() - started };
  const [startDir, startName] = splitRel(job.rel);

  const extracts = extract ? createExtractQueue(extract, sink, cancelled) : null;
  let walked: () => void = () => {};
  const walkDone = new Promise<void>((resolve) => {
    walked = resolve;
  });
  const fileFound = (dir: string, name: string, st: EntryStat, file: string) => {
    summary.files++;
    if (job.emit === 'dirs') return;
    sink.entry({ dir, name, isDir: false, size: st.size, mtime: st.mtimeMs });
    if (
      job.content &&
      extracts &&
      (isDocument(name) || hasSearchFacts(name)) &&
      !textKnown(job, dir, name, st.mtimeMs, st.size)
    )
      extracts.add(file, dir, name, st.size);
  };

  if (!first.st.isDir) {
    fileFound(startDir, startName, first.st, abs(job.root, job.rel));
    await extracts?.drained();
    return { ...summary, totalSize: first.st.size, ms: Date.now() - started };
  }

  summary.isDir = true;
  const top = openDir(job.rel, null, first.st.mtimeMs);
  const stack: OpenDir[] = [top];
  let active = 0;
  let sincePause = 0;
  let waiting = false;
  /** The folder after a wait for `pace` is listed even while people are still being served. */
  let forced = false;

  const finishDir = (node: OpenDir) => {
    const parent = closeDir(node, sink, summary, cancelled);
    if (!parent) {
      walked();
      return;
    }
    if (--parent.pending === 0) finishDir(parent);
  };

  const listed = (node: OpenDir) => {
    active--;
    if (--node.pending === 0) finishDir(node);
    pump();
  };

  const skip = job.skip?.length ? new Set(job.skip) : null;
  /**
   * The folder's names, and its time read again after them: a listing the folder changed under
   * is taken again, so the row's time is the one its names were listed at (Indexer.counts). A
   * listing taken again that fails leaves the one before it, with that one's time (`before`).
   */
  const readNames = (
    node: OpenDir,
    dirPath: string,
    done: Done<DirEntry[]>,
    tries = 0,
    before?: { names: DirEntry[]; mtime: number },
  ) =>
    guard.run<DirEntry[]>(
      (d) => fs.readdir(dirPath, d),
      (err, names) => {
        if ((err || !names) && before) {
          node.mtime = before.mtime;
          return done(null, before.names);
        }
        if (err || !names || tries >= RELIST_TRIES) return done(err, names);
        guard.run<EntryStat>(
          (d) => fs.lstat(dirPath, d),
          (_, now) => {
            if (!now || now.mtimeMs === node.mtime) return done(null, names);
            const earlier = { names, mtime: node.mtime };
            node.mtime = now.mtimeMs;
            readNames(node, dirPath, done, tries + 1, earlier);
          },
        );
      },
    );

  const list = (node: OpenDir) => {
    if (skip?.has(node.rel)) {
      // Known to hang (the synchronous walk was stuck there): recorded as unread.
      node.complete = false;
      return listed(node);
    }
    const dirPath = abs(job.root, node.rel);
    readNames(node, dirPath, (err, names) => {
      if (err || !names || cancelled()) {
        node.complete = false;
        return listed(node);
      }
      let next = 0;
      let inFlight = 0;
      let finished = false;
      const finishOnce = () => {
        if (!finished) {
          finished = true;
          listed(node);
        }
      };
      const statMore = () => {
        while (inFlight < STAT_WINDOW && next < names.length) {
          const name = names[next++]!.name;
          const rel = joinRel(node.rel, name);
          // Burrow's own folders (trash, versions, staging) and temporaries are not content.
          if (isReservedName(name) || (job.excludes.length && isExcluded(rel, job.excludes))) continue;
          const file = path.join(dirPath, name);
          inFlight++;
          sincePause++;
          guard.run<EntryStat>(
            (d) => fs.lstat(file, d),
            (statErr, st) => {
              inFlight--;
              if (st) {
                node.entries++;
                node.totalEntries++;
                if (st.isDir) {
                  node.pending++;
                  stack.push(openDir(rel, node, st.mtimeMs));
                } else {
                  node.size += st.size;
                  node.totalSize += st.size;
                  fileFound(node.rel, name, st, file);
                }
              } else if (statErr?.code !== 'ENOENT') {
                node.complete = false;
              }
              statMore();
            },
          );
        }
        if (next >= names.length && inFlight === 0) finishOnce();
      };
      statMore();
    });
  };

  const pump = () => {
    if (waiting) return;
    while (active < job.concurrency && stack.length) {
      if (cancelled()) {
        stack.length = 0;
        break;
      }
      if (sink.full?.()) {
        waiting = true;
        void sink.room!().then(() => {
          waiting = false;
          pump();
        });
        return;
      }
      if (guard.paused) {
        waiting = true;
        void guard.clear().then(() => {
          waiting = false;
          pump();
        });
        return;
      }
      if (!forced && hold()) {
        waiting = true;
        void pace().then(() => {
          waiting = false;
          // Idle again, or the longest wait is over: the next folder goes either way.
          forced = true;
          pump();
        });
        return;
      }
      if (job.batch > 0 && sincePause >= job.batch && job.pauseMs > 0) {
        waiting = true;
        sincePause = 0;
        setTimeout(() => {
          waiting = false;
          pump();
        }, job.pauseMs);
        return;
      }
      const node = stack.pop()!;
      forced = false;
      active++;
      list(node);
    }
  };

  pump();
  await walkDone;
  await extracts?.drained();
  summary.ms = Date.now() - started;
  return summary;
}

/** Direct entries of one folder, with sizes (the re-check of a folder on screen, the sweep). */
export async function listFolder(
  root: string,
  rel: string,
  fs: FsLayer,
  guard: IoGuard,
  excludes: readonly string[],
): Promise<Listing> {
  const dirPath = abs(root, rel);
  await guard.clear();
  const self = await lstat(fs, guard, dirPath);
  if (self.err || !self.st || !self.st.isDir) {
    const gone = !self.err || self.err.code === 'ENOENT' || self.err.code === 'ENOTDIR';
    return { ok: false, gone, partial: false, mtime: 0, entries: [] };
  }
  const names = await new Promise<{ err: NodeJS.ErrnoException | null; names?: { name: string }[] }>((resolve) =>
    guard.run<{ name: string; isDir: boolean }[]>(
      (d) => fs.readdir(dirPath, d),
      (err, value) => resolve({ err, names: value }),
    ),
  );
  if (names.err || !names.names) {
    const gone = names.err?.code === 'ENOENT' || names.err?.code === 'ENOTDIR';
    return { ok: false, gone, partial: !gone, mtime: self.st.mtimeMs, entries: [] };
  }
  const entries: Listing['entries'] = [];
  let ok = true;
  const todo = names.names
    .map((n) => n.name)
    .filter((name) => !isReservedName(name) && !isExcluded(joinRel(rel, name), excludes));
  for (let i = 0; i < todo.length; i += STAT_WINDOW) {
    const part = todo.slice(i, i + STAT_WINDOW);
    const stats = await Promise.all(part.map((name) => lstat(fs, guard, path.join(dirPath, name))));
    stats.forEach((s, j) => {
      if (s.st) entries.push({ name: part[j]!, isDir: s.st.isDir, size: s.st.size, mtime: s.st.mtimeMs });
      else if (s.err?.code !== 'ENOENT') ok = false;
    });
  }
  return { ok, gone: false, partial: !ok, mtime: self.st.mtimeMs, entries };
}

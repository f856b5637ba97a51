// The one indexer: knows the indexed roots, runs their baseline walks in the worker, writes the
// worker's batches to the database a slice at a time (the event loop stays responsive), and
// answers folder-size lookups from the rows alone. Keeping the rows true after the baseline is
// maintenance.ts (own writes, folders on screen, the paced sweep).
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { Logger } from '../core/log.ts';
import { noLoad, type RequestLoad } from '../core/load.ts';
import { readMounts, mountOf, isNetworkFs, type Mount } from './mounts.ts';
import {
  splitRel,
  type DocRecord,
  type EntryRecord,
  type Listing,
  type WalkJob,
  type WalkSummary,
  type WorkerOptions,
} from './protocol.ts';
import { IndexStore, type EntryRow, type RootRow } from './store.ts';
import { WalkerClient } from './worker-client.ts';
import { closeIndexFile, openIndexFile } from './index-db.ts';
import { WalkerStalledError } from './watchdog.ts';
import type { IndexPort } from './maintenance.ts';

export { INDEX_FORMAT } from './index-db.ts';

/** Longest a single write slice holds the event loop (plus its commit; synchronous=OFF keeps that short). */
const WRITE_SLICE_MS = 6;
/** The same while people are being served (a slice granted by the pace's longest wait). */
const BUSY_WRITE_SLICE_MS = 2;

export interface IndexerOptions {
  config: Config;
  db: Database;
  log: Logger;
  /** The index file (CACHE_DIR/index.db by default). */
  file?: string;
  /** Tests: a module giving the worker its file-system layer. */
  worker?: Pick<WorkerOptions, 'fsModule' | 'fsOptions'>;
  /** Requests in flight: walks, writes and the sweep yield to them. */
  load?: RequestLoad;
  /** The walker's thread, when it was started before the database was opened (walkerAhead). */
  client?: WalkerClient;
  /**
   * Folder sizes as they are now: FOLDER_SIZE_MODE when set, else Administration → Installation,
   * which may change it at run time (then switched() is called). Default: the variable.
   */
  folderSizeMode?: () => FolderSizeMode;
}

export type FolderSizeMode = Config['folderSize']['mode'];

export interface Coverage {
  root: RootRow;
  rel: string;
}

/**
 * What a write placed at a path, read right after it was placed: the file's size and
 * modification time (ms, whole), and its folder's modification time then (the placement's rename
 * or creation set it). A folder placed whole (a copy) is known by its path alone.
 */
export interface Placement {
  path: string;
  size: number;
  mtime: number;
  dirMtime: number;
}

/** A refresh under way of the folder (or file) `rel`: its row before the walk, and a stamp every row the walk writes is at least. */
interface Recount {
  rel: string;
  row: EntryRow | undefined;
  since: number;
}

export interface FolderFigures {
  indexed: boolean;
  sizeBytes: number | null;
  entryCount: number;
  lastUpdated: string | null;
  /** The folder's whole subtree could be read (false: `sizeBytes` is a lower bound, counted again by the sweep). */
  complete: boolean;
  /** Not indexed yet: the first walk of the folder's root is due or under way (a figure comes when it ends). */
  counting: boolean;
  /** `sizeBytes` counts the whole subtree (FOLDER_SIZE_MODE=full), not only the direct files. */
  recursive: boolean;
}

/** Indexes kept at all: folder sizes or the search catalogue (FOLDER_SIZE_MODE, SEARCH_INDEX_ENABLED). */
export function indexingEnabled(config: Config, mode: FolderSizeMode = config.folderSize.mode): boolean {
  return mode !== 'off' || config.search.indexEnabled;
}

function walkerClient(config: Config, log: Logger, load: RequestLoad, worker: IndexerOptions['worker']): WalkerClient {
  return new WalkerClient(
    {
      ioTimeoutMs: config.folderSize.ioTimeoutMs,
      maxStalledIo: config.folderSize.maxStalledIo,
      load: load.buffer,
      extract: {
        maxBytes: config.search.extractMaxSize,
        maxPages: config.search.extractMaxPages,
        timeoutMs: config.search.extractTimeoutMs,
        runMs: config.search.extractRunMs,
      },
      ...worker,
    },
    log,
  );
}

/**
 * The walker's thread started before the database is opened and migrated, when a full walk is
 * owed whatever the database holds: FOLDER_SIZE_REBUILD, or no index file yet (a first start).
 * Its boot (~80-160 ms in the executable, sharing the two cores with the starting server) then
 * overlaps the database's opening instead of following it. Only the thread starts here: what is
 * walked is still decided by discover() from the configuration and the database. Undefined when
 * nothing is indexed or the walks owed are not known yet (Indexer.open() warms the worker then).
 */
export function walkerAhead(
  config: Config,
  log: Logger,
  load: RequestLoad,
  worker?: IndexerOptions['worker'],
  file = path.join(config.storage.cacheDir, 'index.db'),
): WalkerClient | undefined {
  if (!indexingEnabled(config) || !(config.folderSize.rebuild || !fs.existsSync(file))) return undefined;
  const client = walkerClient(config, log, load, worker);
  client.warm();
  // The index file is new or rebuilt, so it holds no roots: the first root discover() finds is
  // the first folder of VOLUME_ROOT, and its sizes walk the first job. Posted now, it runs while
  // the database opens; discover() takes it over if it asks for the same walk, else cancels it.
  const first = volumeFolders(config.storage.volumeRoot)[0];
  if (first) {
    const mounts = readMounts();
    client.prewalk({
      ...baselineJob(config, first, mounts),
      root: first,
      excludes: excludePaths(config),
      sync: !onNetworkFs(first, mounts),
      content: false,
    });
  }
  return client;
}

/** The real paths of a parent's folders that are indexed roots (VOLUME_ROOT's volumes, the personal folders). */
function volumeFolders(parent: string): string[] {
  let names: fs.Dirent[];
  try {
    names = fs.readdirSync(parent, { withFileTypes: true });
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const d of names) {
    if (!d.isDirectory() || d.name.startsWith('.')) continue;
    try {
      out.push(fs.realpathSync(path.join(parent, d.name)));
    } catch {
      /* vanished meanwhile */
    }
  }
  return out;
}

/** Paths relative to a root that are never read (FOLDER_SIZE_EXCLUDE_PATHS). */
function excludePaths(config: Config): string[] {
  return config.folderSize.excludePaths
    .map((p) =>
      p
        .split(/[\\/]+/)
        .filter((s) => s && s !== '.')
        .join('/'),
    )
    .filter(Boolean);
}

function onNetworkFs(rootPath: string, mounts: Mount[]): boolean {
  const mount = mountOf(rootPath, mounts);
  return Boolean(mount && isNetworkFs(mount.fsType));
}

/** Phase one's walk of a root: folder records only. */
function baselineJob(config: Config, rootPath: string, mounts: Mount[]) {
  return {
    rel: '',
    concurrency: onNetworkFs(rootPath, mounts) ? config.folderSize.networkConcurrency : config.folderSize.concurrency,
    batch: 0,
    pauseMs: 0,
    emit: 'dirs' as const,
  };
}

/** Also the port maintenance works through (maintenance.ts): `turn`, `rewalk` and `list` are there for it. */
export class Indexer implements IndexPort {
  readonly config: Config;
  readonly store: IndexStore;
  readonly log: Logger;
  readonly client: WalkerClient;
  readonly db: Database;
  readonly file: string;
  readonly load: RequestLoad;
  /** Told when a root becomes 'ready' (maintenance applies the changes it held back). */
  private readonly readyListeners = new Set<(root: RootRow) => void>();
  /** Roots where a synchronous call hung: walked with the guarded walk from then on (watchdog.ts). */
  private readonly suspect = new Set<string>();
  /** Folder sizes now (off, full, shallow). */
  readonly folderSizeMode: () => FolderSizeMode;
  /** Whether anything was kept at the last look: a switch from nothing kept walks every root afresh. */
  private kept: boolean;
  stopped = false;
  private rootsByLength: RootRow[] = [];
  private mounts: Mount[] | undefined;
  private baselineQueue: RootRow[] = [];
  private baselineRunning = false;
  private wroteQueue: Promise<void> = Promise.resolve();
  /** Walks under way (job id → root), so a dropped root's walk can be cancelled and awaited. */
  private readonly runs = new Map<number, { rootId: number; done: Promise<unknown> }>();
  /**
   * Folders counted by a refresh (root id -> one per refresh under way): one new to the index has
   * no row meanwhile; with the row the refresh found before its walk, which its ancestors' totals
   * count until it ends.
   */
  private readonly recounts = new Map<number, Recount[]>();
  /**
   * Real paths of changes this index has not applied yet, and of every folder holding one: how
   * many such changes each (figures() asks for one folder in one look, however many are waiting).
   */
  private readonly expected = new Map<string, number>();
  /** Paths served again while their old rows were being dropped: walked once the drop is done. */
  private readonly readd = new Set<string>();

  constructor(options: IndexerOptions) {
    this.config = options.config;
    this.db = options.db;
    this.file = options.file ?? path.join(options.config.storage.cacheDir, 'index.db');
    this.store = new IndexStore(options.db, options.config.search.indexEnabled);
    this.log = options.log;
    this.load = options.load ?? noLoad;
    const configured = options.config.folderSize.mode;
    this.folderSizeMode = options.folderSizeMode ?? (() => configured);
    this.kept = this.enabled;
    this.client = options.client ?? walkerClient(options.config, options.log, this.load, options.worker);
    this.client.log = options.log;
    this.client.onIo = (stalled, paused) => {
      if (paused)
        this.log.warn('file-system calls of the indexer are stuck; indexing paused until they return', { stalled });
      else if (stalled === 0) this.log.info('indexer file-system calls answer again; indexing resumed');
    };
  }

  /** Walks or keeps anything at all (folder sizes or the search catalogue), now. */
  get enabled(): boolean {
    return indexingEnabled(this.config, this.folderSizeMode());
  }

  /**
   * Folder sizes were switched at run time (Administration → Installation). Only the answers
   * change while the search catalogue keeps the rows anyway (figures() reads the mode on each
   * call). When nothing was kept before, every root is walked afresh (what changed meanwhile is
   * unknown), off the request path like any baseline; when nothing is to be kept any more, the
   * walks under way are cancelled and the rows stay until the next switch on.
   */
  switched(extraRoots: readonly string[] = []): void {
    if (this.stopped) return;
    const now = this.enabled;
    if (now === this.kept) return;
    this.kept = now;
    if (now) {
      for (const root of this.store.roots())
        if (root.state === 'sized' || root.state === 'ready') this.store.setRootState(root.id, 'pending', null);
      this.refreshRoots();
      this.log.info('indexing switched on', { folderSizes: this.folderSizeMode() });
      this.discover(extraRoots);
    } else {
      this.baselineQueue = [];
      for (const id of this.runs.keys()) this.client.cancel(id);
      this.log.info('indexing switched off');
    }
  }

  /** Calls `listener` each time a root's catalogue completes; returns the unsubscribe. */
  onRootReady(listener: (root: RootRow) => void): () => void {
    this.readyListeners.add(listener);
    return () => this.readyListeners.delete(listener);
  }

  /** Attaches the index file (format check, damage check, FOLDER_SIZE_REBUILD) and reads the known roots; no walking yet. */
  open(): void {
    openIndexFile(this.db, this.file, this.log, this.config.folderSize.rebuild);
    this.refreshRoots();
    // Walks are owed (first start, rebuild, an unfinished catalogue): the worker boots in its
    // own thread while the rest of the server starts.
    if (this.enabled && (!this.rootsByLength.length || this.rootsByLength.some((r) => r.state !== 'ready')))
      this.client.warm();
  }

  private refreshRoots(): void {
    this.rootsByLength = this.store.roots().filter((r) => r.state !== 'dropping');
  }

  /** The indexed root holding `realPath`, and the path inside it. */
  cover(realPath: string): Coverage | null {
    for (const root of this.rootsByLength) {
      if (realPath === root.path) return { root, rel: '' };
      if (realPath.startsWith(root.path.endsWith(path.sep) ? root.path : root.path + path.sep)) {
        return { root, rel: realPath.slice(root.path.length).split(path.sep).filter(Boolean).join('/') };
      }
    }
    return null;
  }

  /** The covering root when its baseline is done (the index can answer for it). */
  readyCover(realPath: string): Coverage | null {
    const c = this.cover(realPath);
    return c && c.root.state === 'ready' ? c : null;
  }

  /** First sight of a root (a volume, a personal folder, an assigned folder): walk it once. */
  ensureRoot(realRoot: string): void {
    if (!this.enabled || this.stopped || this.cover(realRoot)) return;
    const root = this.store.addRoot(realRoot, Date.now());
    if (root.state === 'dropping') {
      this.readd.add(realRoot);
      return;
    }
    this.refreshRoots();
    this.queueBaseline(root);
  }

  /** Paths relative to a root that are never read (FOLDER_SIZE_EXCLUDE_PATHS). */
  excludes(): string[] {
    return excludePaths(this.config);
  }

  concurrencyFor(rootPath: string): number {
    this.mounts ??= readMounts();
    return onNetworkFs(rootPath, this.mounts)
      ? this.config.folderSize.networkConcurrency
      : this.config.folderSize.concurrency;
  }

  /**
   * Plain synchronous calls for local disks; the guarded thread-pool walk for network mounts and
   * for a disk that has hung once. (A test layer without synchronous calls is always guarded.)
   */
  syncFor(rootPath: string): boolean {
    if (this.suspect.has(rootPath)) return false;
    this.mounts ??= readMounts();
    return !onNetworkFs(rootPath, this.mounts);
  }

  /**
   * Runs a walk job and writes its batches in time-bounded slices with a turn of the event loop
   * between them; each written batch is acknowledged, and the worker never has more than a few
   * unwritten batches out (memory stays flat whatever the tree). Resolves once every row is written.
   */
  async runWalk(
    root: RootRow,
    job: Omit<WalkJob, 'id' | 'root' | 'excludes' | 'content' | 'emit' | 'sync' | 'skip'> & { emit?: WalkJob['emit'] },
  ): Promise<WalkSummary> {
    // A walk lost to a hung synchronous call starts again, guarded, without the hung folder; one
    // lost only because it shared the replaced worker simply starts again (watchdog.ts).
    const skip: string[] = [];
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.walkOnce(root, job, skip);
      } catch (err) {
        if (!(err instanceof WalkerStalledError) || this.stopped || attempt >= 8) throw err;
        if (err.hung) {
          this.suspect.add(root.path);
          if (err.folder !== null) skip.push(err.folder);
        }
      }
    }
  }

  private async walkOnce(
    root: RootRow,
    job: Omit<WalkJob, 'id' | 'root' | 'excludes' | 'content' | 'emit' | 'sync' | 'skip'> & { emit?: WalkJob['emit'] },
    skip: string[],
  ): Promise<WalkSummary> {
    const pending: { entries: EntryRecord[]; docs: DocRecord[] }[] = [];
    let draining: Promise<void> | undefined;
    let id = 0;
    const drain = async () => {
      while (pending.length && !this.stopped) {
        // Between slices the event loop answers requests; while people are being served the
        // next slice waits for them (bounded), and the worker, short of acks, waits too.
        await this.load.turn();
        const batch = pending[0]!;
        const t = performance.now();
        const budget = this.load.busy() ? BUSY_WRITE_SLICE_MS : WRITE_SLICE_MS;
        this.store.writeFor(root.id, batch.entries, batch.docs, Date.now(), budget);
        this.load.spent(performance.now() - t);
        if (!batch.entries.length && !batch.docs.length) {
          pending.shift();
          this.client.ack(id);
        }
      }
      draining = undefined;
    };
    const emit = job.emit ?? 'all';
    const content = emit === 'all' && this.config.search.indexEnabled;
    const run = this.client.walk(
      {
        ...job,
        emit,
        root: root.path,
        excludes: this.excludes(),
        sync: this.syncFor(root.path),
        ...(skip.length ? { skip: [...skip] } : {}),
        ...(content ? { content, known: this.store.knownDocuments(root.id, job.rel) } : { content }),
      },
      (entries, docs) => {
        pending.push({ entries, docs });
        draining ??= drain();
      },
    );
    id = run.id;
    const unwatch = this.load.watch();
    const written = (async () => {
      try {
        return await run.done;
      } finally {
        // What the worker sent is written either way (a retry rewrites the same rows).
        while (draining) await draining;
      }
    })();
    this.runs.set(run.id, { rootId: root.id, done: written });
    try {
      return await written;
    } finally {
      unwatch();
      this.runs.delete(run.id);
    }
  }

  /**
   * A space that no longer serves `realRoot` (a host volume removed): its walks are cancelled
   * and its rows removed a chunk at a time, behind the maintenance already under way. Marked
   * first, so search and folder sizes stop answering from it at once and a restart finishes it.
   */
  async dropRoot(realRoot: string): Promise<void> {
    const root = this.store.roots().find((r) => r.path === realRoot);
    if (!root || this.stopped) return;
    this.store.setRootState(root.id, 'dropping', null);
    this.refreshRoots();
    this.baselineQueue = this.baselineQueue.filter((r) => r.id !== root.id);
    await this.finishDrop(root);
  }

  private async finishDrop(root: RootRow): Promise<void> {
    const walks = [...this.runs.entries()].filter(([, r]) => r.rootId === root.id);
    for (const [id] of walks) this.client.cancel(id);
    await Promise.allSettled(walks.map(([, r]) => r.done));
    await this.serial(async () => {
      while (!this.stopped && !this.store.deleteChunk(root.id, '')) await this.load.turn();
      if (this.stopped) return;
      this.store.removeRoot(root.id);
      this.log.info('index root dropped', { root: root.path });
    });
    if (this.readd.delete(root.path)) this.ensureRoot(root.path);
  }

  private queueBaseline(root: RootRow): void {
    if (this.baselineQueue.some((r) => r.id === root.id)) return;
    this.baselineQueue.push(root);
    void this.runBaselines();
  }

  private async runBaselines(): Promise<void> {
    if (this.baselineRunning) return;
    this.baselineRunning = true;
    try {
      while (this.baselineQueue.length && !this.stopped) {
        const root = this.baselineQueue.shift()!;
        await this.baseline(root);
      }
      // Catalogues after every root's sizes: sizes everywhere first. A stop during the last
      // walk has closed the database: nothing more is read from it.
      if (this.stopped) return;
      for (const root of this.store.roots()) {
        if (this.stopped || !this.enabled || this.baselineQueue.length) break;
        if (root.state === 'sized') await this.catalogue(root);
      }
    } catch (err) {
      // Started without anyone waiting (void): a failure is logged, never the process's end.
      if (!this.stopped) this.log.warn('index walks failed', { err });
    } finally {
      this.baselineRunning = false;
    }
    if (this.baselineQueue.length && !this.stopped) void this.runBaselines();
  }

  /**
   * Phase one: folder sizes. The walk sends folder records only (a few thousand rows for a
   * hundred thousand files), so the sizes are there about as fast as the disk can be read.
   */
  private async baseline(root: RootRow): Promise<void> {
    try {
      while (!this.stopped && !this.store.deleteChunk(root.id, '')) await this.load.turn();
      this.mounts ??= readMounts();
      const summary = await this.runWalk(root, baselineJob(this.config, root.path, this.mounts));
      // Stopped, or switched off meanwhile (the walk was cancelled): not a finished walk.
      if (this.stopped || !this.enabled) return;
      if (summary.missing) {
        this.log.warn('an indexed folder is missing; it is walked again when it comes back', { root: root.path });
        return;
      }
      this.store.setRootState(root.id, 'sized', this.store.stamp());
      this.refreshRoots();
      this.log.info('index baseline walk finished', {
        root: root.path,
        files: summary.files,
        folders: summary.dirs,
        ms: summary.ms,
        complete: summary.complete,
      });
    } catch (err) {
      if (!this.stopped) this.log.warn('index baseline walk failed', { root: root.path, err });
    }
  }

  /**
   * Phase two: the catalogue of every name (and document text), walked again right after the
   * first pass (its folders are still in the kernel's cache) and written in bulk with the name
   * index; the folder rows are refreshed on the way. Its pace is the main thread's: the worker
   * waits for each batch to be written, and writes go in short slices between requests.
   * Search answers from the index once this is done.
   */
  private async catalogue(root: RootRow): Promise<void> {
    try {
      const summary = await this.runWalk(root, {
        rel: '',
        concurrency: this.concurrencyFor(root.path),
        batch: 0,
        pauseMs: 0,
        emit: 'all',
      });
      if (this.stopped || !this.enabled || summary.missing) return;
      this.store.setRootState(root.id, 'ready', null);
      this.refreshRoots();
      this.log.info('index catalogue finished', {
        root: root.path,
        files: summary.files,
        folders: summary.dirs,
        ms: summary.ms,
      });
      const ready = this.rootsByLength.find((r) => r.id === root.id) ?? root;
      for (const listener of this.readyListeners) listener(ready);
    } catch (err) {
      if (!this.stopped) this.log.warn('index catalogue walk failed', { root: root.path, err });
    }
  }

  /**
   * Starts the walks the index still owes: pending roots, the volumes of VOLUME_ROOT and the
   * personal folders, and `extraRoots` (host folders served as volumes, real paths); finishes
   * drops a stop cut short. Synchronous up to the first walk's job being posted: called while
   * the server is still being built, the worker walks on the other core meanwhile (the writes
   * wait for the main thread's first free turn).
   */
  discover(extraRoots: readonly string[] = []): void {
    try {
      this.discoverRoots(extraRoots);
    } finally {
      // A walk posted ahead (walkerAhead) that this did not ask for is not owed.
      this.client.dropPrewalks();
    }
  }

  private discoverRoots(extraRoots: readonly string[]): void {
    if (!this.enabled || this.stopped) return;
    for (const root of this.store.roots()) {
      if (root.state === 'pending') this.queueBaseline(root);
      else if (root.state === 'dropping')
        void this.finishDrop(root).catch((err) => this.log.warn('an index root could not be dropped', { err }));
    }
    // A catalogue cut short by a stop is walked again (queued behind the baselines).
    if (this.store.roots().some((r) => r.state === 'sized')) void this.runBaselines();
    const parents = [
      this.config.storage.volumeRoot,
      ...(this.config.storage.userDirEnabled ? [this.config.storage.userRoot] : []),
    ];
    // A few entries (the volumes, the personal folders), listed once at startup.
    for (const parent of parents) for (const root of volumeFolders(parent)) this.ensureRoot(root);
    for (const root of extraRoots) this.ensureRoot(root);
  }

  /** A refresh of `rel` has begun (a folder new to the index has no row until its walk writes it); `done()` when it ends. */
  recounting(rootId: number, rel: string): { done(): void } {
    const list = this.recounts.get(rootId) ?? [];
    const was: Recount = { rel, row: this.store.entry(rootId, rel), since: this.store.begin() };
    list.push(was);
    this.recounts.set(rootId, list);
    return {
      done: () => {
        list.splice(list.indexOf(was), 1);
        if (!list.length) this.recounts.delete(rootId);
      },
    };
  }

  /** A change at `realPath` is not applied here yet: the folders holding it are not final until `done()`. */
  expecting(realPath: string): { done(): void } {
    const holders: string[] = [];
    for (let p = realPath; ; p = path.dirname(p)) {
      holders.push(p);
      if (path.dirname(p) === p) break;
    }
    for (const p of holders) this.expected.set(p, (this.expected.get(p) ?? 0) + 1);
    let open = true;
    return {
      done: () => {
        if (!open) return;
        open = false;
        for (const p of holders) {
          const n = (this.expected.get(p) ?? 1) - 1;
          if (n > 0) this.expected.set(p, n);
          else this.expected.delete(p);
        }
      },
    };
  }

  /** A change lies in the folder `realPath` (or is it) and is not applied here yet. */
  private awaits(realPath: string): boolean {
    return this.expected.has(realPath);
  }

  /** The refreshes under way of folders holding `rel` (or of `rel` itself). */
  private recountsOver(rootId: number, rel: string): Recount[] {
    return (this.recounts.get(rootId) ?? []).filter(
      (r) => r.rel === '' || r.rel === rel || rel.startsWith(r.rel + '/'),
    );
  }

  /**
   * Whether the total of the root covering `p.path` counts that placement — decided by what the
   * rows hold, never by comparing a walk's clock with the placement's:
   * - a root whose catalogue is done: the path's row is that file, or one written after it (its
   *   modification time). A walk under way writes its rows first and the ancestors' totals when
   *   it ends, so meanwhile the totals are those from before it: while the path itself is walked
   *   again (a change told twice) the row it had before answers; while a folder holding it is,
   *   the path's row answers if the walk has not written it again yet, and for the walk of the
   *   path's own folder so does that folder's row before the walk: listed at the time the
   *   placement gave the folder or later, it held the placement (else not counted until the walk
   *   ends);
   * - a root whose folder sizes are known but not yet its names ('sized'): there are no file rows,
   *   and its totals are the first walk's, whose row of a folder has the time its listing saw
   *   (read again after the names; a listing the folder changed under is taken again): the
   *   placement is in them when that row has the time the placement gave the folder, or a later
   *   one. The catalogue then walks the tree again and writes each folder's row after those below
   *   it, the root's (its total) last: a folder row it wrote answers once it wrote the root's too.
   * A path the index covers in no root, or whose first walk is due, is not counted.
   */
  counts(p: Placement): boolean {
    const c = this.cover(p.path);
    if (!c || c.rel === '') return false;
    if (c.root.state === 'ready') {
      const holds = (row: EntryRow | undefined): boolean => {
        if (!row) return false;
        if (row.is_dir) return true;
        const mtime = Math.trunc(row.mtime);
        return mtime > p.mtime || (mtime === p.mtime && row.size === p.size);
      };
      const row = this.store.entry(c.root.id, c.rel);
      const folder = splitRel(c.rel)[0];
      for (const r of this.recountsOver(c.root.id, c.rel)) {
        if (r.rel === c.rel) {
          if (!holds(r.row)) return false;
          continue;
        }
        // A folder holding it walked again: the path's row as it was before the walk, or — the
        // walk of its own folder — that folder's listing before the walk (its row's time).
        const unwritten = row !== undefined && row.checked_at !== null && row.checked_at < r.since && holds(row);
        const listed = r.rel === folder && r.row?.is_dir === 1 && Math.trunc(r.row.mtime) >= p.dirMtime;
        if (!unwritten && !listed) return false;
      }
      if (row) return holds(row);
      // Gone before this index counted it (deleted or moved away at once, or — on another
      // instance — before the change reached it): its folder was listed after a later change of
      // it (the row's time is the listing's, past the placement's), and the file was not there.
      // The totals hold none of its bytes, nor will: the placement is done with. Until then its
      // bytes count (a write refused that would have fit, never one let past the limit).
      const dir = this.store.entry(c.root.id, folder);
      return dir?.is_dir === 1 && Math.trunc(dir.mtime) > p.dirMtime;
    }
    const sized = c.root.walked_at;
    if (c.root.state !== 'sized' || sized === null) return false;
    const folder = this.store.entry(c.root.id, splitRel(c.rel)[0]);
    const top = this.store.entry(c.root.id, '');
    if (!folder || !folder.is_dir || !top || Math.trunc(folder.mtime) < p.dirMtime) return false;
    // Rows of the first walk are stamped by the time it ended (walked_at), the catalogue's after.
    const firstWalk = (row: { checked_at: number | null }) => row.checked_at !== null && row.checked_at <= sized;
    return firstWalk(folder) || !firstWalk(top);
  }

  /** A file's size as the index has it (its row alone), or null: not a file the index knows, or folder sizes off. */
  fileSize(realPath: string): number | null {
    if (this.folderSizeMode() === 'off') return null;
    const c = this.cover(realPath);
    if (!c || c.root.state === 'pending') return null;
    const row = this.store.entry(c.root.id, c.rel);
    return row && !row.is_dir ? row.size : null;
  }

  /** Folder-size figures from the rows alone (never a file-system call). */
  figures(realPath: string): FolderFigures {
    const none: FolderFigures = {
      indexed: false,
      sizeBytes: null,
      entryCount: 0,
      lastUpdated: null,
      complete: false,
      counting: false,
      recursive: false,
    };
    const mode = this.folderSizeMode();
    if (mode === 'off') return none;
    const c = this.cover(realPath);
    if (!c) return none;
    if (c.root.state === 'pending') return { ...none, counting: true }; // its first walk is due or under way
    const row = this.store.entry(c.root.id, c.rel);
    if (!row && this.recountsOver(c.root.id, c.rel).length) return { ...none, counting: true };
    if (!row || !row.is_dir) return none;
    const full = mode === 'full';
    const at = row.updated_at ?? row.checked_at ?? c.root.walked_at;
    return {
      indexed: true,
      sizeBytes: full ? (row.total_size ?? 0) : row.size,
      entryCount: full ? (row.total_entries ?? 0) : (row.entries ?? 0),
      lastUpdated: at ? new Date(at).toISOString() : null,
      // Not final while a change below it (a write, or what another instance found) is still to be applied here.
      complete: row.complete !== 0 && !this.awaits(path.resolve(realPath)),
      counting: false,
      recursive: full,
    };
  }

  /** Waits for the requests in line (background work yields to them). */
  turn(): Promise<void> {
    return this.load.turn();
  }

  /** Walks `rel` of `root` again at the given pace, as many at once as its disk takes. */
  rewalk(root: RootRow, rel: string, pace: { batch: number; pauseMs: number }): Promise<WalkSummary> {
    return this.runWalk(root, { rel, concurrency: this.concurrencyFor(root.path), ...pace });
  }

  /** One folder's direct entries as they are on disk now (excluded paths left out). */
  list(root: RootRow, rel: string): Promise<Listing> {
    return this.client.list(root.path, rel, this.excludes());
  }

  /** Serialises index mutations that read-modify-write rows (deltas, re-checks). */
  serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.wroteQueue.then(() => (this.stopped ? (undefined as T) : work()));
    this.wroteQueue = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.baselineQueue = [];
    await this.client.close();
    closeIndexFile(this.db);
  }
}

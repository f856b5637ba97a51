// Keeping the rows true after the baseline walk: deltas from the service's own writes (the
// `changes` sink), a re-check of folders on screen, and the paced sweep (adaptive or fixed
// interval, pages with pauses, a bounded slice per run). Every mutation goes through
// indexer.serial so two read-modify-write updates of the same ancestors never interleave.
import path from 'node:path';
import type { Change, ChangeSink } from '../changes.ts';
import type { Indexer } from './indexer.ts';
import { joinRel, splitRel } from './protocol.ts';
import { contribution, difference, type Delta, type EntryRow } from './store.ts';
import type { RootRow } from './store.ts';
import { isExcluded } from './walker.ts';

/** Above this many new or changed names, a re-check re-reads the folder as a whole. */
const MANY = 50;
/** A folder on screen is re-checked at most this often. */
const VIEW_INTERVAL_MS = 2000;

/**
 * The sweep's next interval. Fixed (FOLDER_SIZE_RECONCILE_MS > 0) stays put; adaptive goes back
 * to the fastest interval after a sweep that found changes and doubles, up to the slowest,
 * after an idle one.
 */
export function nextSweepInterval(
  current: number,
  changes: number,
  cfg: { reconcileMs: number; reconcileMinMs: number; reconcileMaxMs: number },
): number {
  if (cfg.reconcileMs > 0) return cfg.reconcileMs;
  if (changes > 0) return cfg.reconcileMinMs;
  return Math.max(cfg.reconcileMinMs, Math.min(current * 2, cfg.reconcileMaxMs));
}

export class Maintenance {
  private readonly ix: Indexer;
  private queue: Change[] = [];
  /** Changes under a root whose baseline or catalogue is still running: applied once it is ready. */
  private held: Change[] = [];
  private viewed = new Map<string, number>();
  private viewQueue = new Set<string>();
  private flushTimer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private interval: number;
  private unsubscribe: () => void = () => {};

  constructor(ix: Indexer) {
    this.ix = ix;
    this.interval = ix.config.folderSize.reconcileMs || ix.config.folderSize.reconcileMinMs;
  }

  /** A root's catalogue completed: the changes held back for it can be applied now. */
  private release(): void {
    // Applying a held change after the walk is safe: a refresh replaces rows with what is on
    // disk now and adds only the difference, so a change the walk already saw adds nothing.
    if (!this.held.length) return;
    this.queue.push(...this.held);
    this.held = [];
    this.schedule();
  }

  /** True when the change touches a root still being walked (it is held back). */
  private hold(c: Change): boolean {
    const paths = c.type === 'moved' ? [c.from, c.to] : [c.path];
    const walking = paths.some((p) => {
      const cover = this.ix.cover(path.resolve(p));
      return cover !== null && cover.root.state !== 'ready';
    });
    if (walking && this.held.length < 100_000) this.held.push(c);
    return walking;
  }

  /** Subscribed whether or not anything is indexed now: folder sizes can be switched on at run time. */
  start(changes: ChangeSink): void {
    const fromChanges = changes.subscribe((c) => {
      // Nothing kept now: a switch on walks every root afresh anyway.
      if (!this.ix.enabled) return;
      this.queue.push(c);
      this.schedule();
    });
    const fromReady = this.ix.onRootReady(() => this.release());
    this.unsubscribe = () => {
      fromChanges();
      fromReady();
    };
    this.scheduleSweep();
  }

  /** A folder is on screen: re-check its entries soon, in the background. */
  noteViewed(realPath: string): void {
    if (!this.ix.enabled || this.ix.stopped) return;
    const last = this.viewed.get(realPath) ?? 0;
    if (Date.now() - last < VIEW_INTERVAL_MS) return;
    this.viewed.set(realPath, Date.now());
    if (this.viewed.size > 10_000) this.viewed.clear();
    this.viewQueue.add(realPath);
    this.schedule();
  }

  private schedule(): void {
    if (this.flushTimer || this.ix.stopped) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      void this.flush();
    }, this.ix.config.folderSize.flushMs);
    this.flushTimer.unref();
  }

  /** Applies the queued changes, then the re-checks of folders on screen. */
  async flush(): Promise<void> {
    const changes = this.queue;
    this.queue = [];
    const viewed = [...this.viewQueue];
    this.viewQueue.clear();
    for (const c of changes) {
      if (this.hold(c)) continue;
      try {
        await this.ix.serial(() => this.apply(c));
      } catch (err) {
        this.ix.log.warn('a change could not be applied to the index', { err });
      }
    }
    for (const p of viewed) {
      const c = this.ix.readyCover(p);
      if (!c) continue;
      try {
        const changed = await this.ix.serial(() => this.recheck(c.root, c.rel));
        // Subfolders whose own listing changed are looked at once more, one level down.
        for (const rel of changed.slice(0, 20)) await this.ix.serial(() => this.recheck(c.root, rel));
      } catch (err) {
        this.ix.log.warn('a folder re-check failed', { err });
      }
    }
  }

  private async apply(c: Change): Promise<void> {
    if (c.type === 'moved') {
      await this.removed(c.from);
      await this.refreshPath(c.to);
    } else if (c.type === 'deleted') {
      await this.removed(c.path);
    } else {
      await this.refreshPath(c.path);
    }
  }

  private located(realPath: string): { root: RootRow; rel: string } | null {
    const c = this.ix.readyCover(path.resolve(realPath));
    if (!c || c.rel === '' || isExcluded(c.rel, this.ix.excludes())) return null;
    return c;
  }

  private async removed(realPath: string): Promise<void> {
    const c = this.located(realPath);
    if (c) await this.forget(c.root, c.rel);
  }

  /** Drops an entry and its subtree from the index and from its ancestors' totals. */
  private async forget(root: RootRow, rel: string): Promise<void> {
    const old = this.ix.store.entry(root.id, rel);
    if (!old) return;
    while (!this.ix.stopped && !this.ix.store.deleteChunk(root.id, rel)) await this.ix.load.turn();
    if (this.ix.stopped) return;
    this.ix.store.propagate(root.id, rel, difference(contribution(undefined), contribution(old)), Date.now());
    // An unreadable part that is gone no longer makes the folders above it lower bounds (they
    // stayed incomplete, and the sweep then read the nearest of them again whole).
    if (old.is_dir) this.ix.store.settleComplete(root.id, rel);
  }

  private async refreshPath(realPath: string): Promise<void> {
    const c = this.located(realPath);
    if (c) await this.refresh(c.root, c.rel);
  }

  /**
   * Reads `rel` again (a file, or a folder with everything below it) and adds the difference
   * to its ancestors. When its parent is not in the index either, the nearest missing ancestor
   * is read instead, so a deep new tree lands in one walk.
   */
  async refresh(root: RootRow, rel: string): Promise<void> {
    const store = this.ix.store;
    let target = rel;
    for (;;) {
      const [parent] = splitRel(target);
      if (parent === '' || store.entry(root.id, parent)) break;
      target = parent;
    }
    if (!store.entry(root.id, splitRel(target)[0])) return; // the root row itself is missing: the baseline will come
    // A folder new to the index has no row until the walk writes it: figures() says it is being counted.
    const recount = this.ix.recounting(root.id, target);
    try {
      await this.recount(root, target);
    } finally {
      recount.done();
    }
  }

  /**
   * The walk writes over the rows in place (same ids, a document's text replaced in the same
   * transaction as it arrives) and only what it did not see any more is removed after it: while
   * the walk runs, which the load gate may stretch to seconds, search still finds every name and
   * document it found before (the rows used to be removed first, so a file being re-read after
   * an upload or a save could not be found by its content meanwhile).
   */
  private async recount(root: RootRow, target: string): Promise<void> {
    const store = this.ix.store;
    const old = store.entry(root.id, target);
    const since = store.stamp();
    const fsCfg = this.ix.config.folderSize;
    const summary = await this.ix.runWalk(root, {
      rel: target,
      concurrency: this.ix.concurrencyFor(root.path),
      batch: fsCfg.subtreeBatch,
      pauseMs: fsCfg.subtreePauseMs,
    });
    if (this.ix.stopped) return;
    let after: Delta = contribution(undefined);
    if (summary.missing) {
      const stale = store.entry(root.id, target);
      if (stale) while (!this.ix.stopped && !store.deleteChunk(root.id, target)) await this.ix.load.turn();
    } else {
      // Gone from disk meanwhile, or below a folder that is a file now.
      while (!this.ix.stopped && !store.deleteUnseen(root.id, target, since)) await this.ix.load.turn();
      // A file that became a folder keeps its row's id: its text is no longer its own.
      if (old && !old.is_dir && summary.isDir) store.deleteDoc(old.id);
      after = contribution(store.entry(root.id, target));
    }
    // The walk wrote the figures of what it read over the old rows: the difference is new - old.
    store.propagate(root.id, target, difference(after, old ? contribution(old) : contribution(undefined)), Date.now());
    if (summary.isDir || old?.is_dir) store.settleComplete(root.id, target);
    if (summary.isDir && summary.ms >= fsCfg.subtreeSlowLogMs) {
      this.ix.log.info('a folder-size subtree scan was slow', {
        root: root.path,
        path: target,
        ms: summary.ms,
        files: summary.files,
        folders: summary.dirs,
      });
    }
  }

  /**
   * Lists one folder and reconciles its direct entries with the rows. Returns the subfolders
   * whose own modification time changed (their entries changed).
   */
  async recheck(root: RootRow, rel: string): Promise<string[]> {
    const store = this.ix.store;
    const row = store.entry(root.id, rel);
    if (!row || !row.is_dir) return [];
    const listing = await this.ix.client.list(root.path, rel, this.ix.excludes());
    if (this.ix.stopped) return [];
    if (!listing.ok) {
      if (listing.gone && rel !== '') await this.forget(root, rel);
      return [];
    }
    const known = new Map<string, EntryRow>(store.children(root.id, rel).map((r) => [r.name, r]));
    const stale: string[] = [];
    const changedDirs: string[] = [];
    for (const e of listing.entries) {
      const k = known.get(e.name);
      known.delete(e.name);
      const childRel = joinRel(rel, e.name);
      if (!k || Boolean(k.is_dir) !== e.isDir || (!e.isDir && (k.size !== e.size || k.mtime !== e.mtime)))
        stale.push(childRel);
      else if (e.isDir && (k.mtime !== e.mtime || k.complete === 0)) changedDirs.push(childRel);
    }
    for (const gone of known.values()) await this.forget(root, joinRel(rel, gone.name));
    if (stale.length > MANY && rel !== '') {
      await this.refresh(root, rel);
      return [];
    }
    for (const s of stale) await this.refresh(root, s);
    store.markChecked(root.id, rel, listing.mtime, Date.now());
    return changedDirs;
  }

  private scheduleSweep(): void {
    if (this.ix.stopped) return;
    this.sweepTimer = setTimeout(() => {
      void this.sweep();
    }, this.interval);
    this.sweepTimer.unref();
  }

  /** One slice of the paced sweep: the folders checked longest ago, a page at a time. */
  async sweep(): Promise<number> {
    const cfg = this.ix.config.folderSize;
    const started = Date.now();
    const limit = cfg.reconcileMaxDirectories || Number.MAX_SAFE_INTEGER;
    let done = 0;
    let changes = 0;
    try {
      while (done < limit && !this.ix.stopped && this.ix.enabled) {
        const page = this.ix.store.dueFolders(Math.min(cfg.reconcileBatch, limit - done), started);
        if (!page.length) break;
        for (const paged of page) {
          const root = this.ix.store.roots().find((r) => r.id === paged.root_id);
          if (!root) continue;
          const rel = this.ix.store.relOf(paged);
          // The row as it is now, not as the page read it: refreshing the deepest incomplete
          // folder earlier in this page settles its ancestors (final again, or removed with it),
          // and an ancestor still taken as incomplete here was dropped and walked again whole —
          // up to the volume's root, each time an unreadable part was removed.
          const f = this.ix.store.entry(root.id, rel);
          if (!f) continue;
          if (f.complete === 0) {
            // Only the deepest incomplete folders are read again: an ancestor is incomplete
            // because of them (store.settleComplete), and reading it again would walk its whole
            // subtree (a whole volume) each time.
            if (!this.ix.store.hasIncompleteSubfolder(root.id, rel)) {
              changes++;
              await this.ix.serial(() => this.refresh(root, rel));
            }
            this.ix.store.markChecked(root.id, rel, f.mtime, Date.now());
          } else {
            const before = this.ix.store.entry(root.id, rel);
            const changed = await this.ix.serial(() => this.recheck(root, rel));
            const after = this.ix.store.entry(root.id, rel);
            if (
              changed.length ||
              before?.total_size !== after?.total_size ||
              before?.total_entries !== after?.total_entries
            )
              changes++;
            if (after && after.checked_at === before?.checked_at)
              this.ix.store.markChecked(root.id, rel, after.mtime, Date.now());
          }
          done++;
          // One folder at a time, each after the requests waiting (bounded: the sweep still ends).
          await this.ix.load.turn();
        }
        if (cfg.reconcilePauseMs > 0) await new Promise((r) => setTimeout(r, cfg.reconcilePauseMs));
      }
    } catch (err) {
      if (!this.ix.stopped) this.ix.log.warn('the folder-size sweep failed', { err });
    }
    this.interval = nextSweepInterval(this.interval, changes, cfg);
    this.scheduleSweep();
    return changes;
  }

  get sweepInterval(): number {
    return this.interval;
  }

  stop(): void {
    this.unsubscribe();
    if (this.flushTimer) clearTimeout(this.flushTimer);
    if (this.sweepTimer) clearTimeout(this.sweepTimer);
  }
}

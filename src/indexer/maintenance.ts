// Keeping the rows true after the baseline walk: deltas from the service's own writes (the
// `changes` sink), a re-check of folders on screen, and the paced sweep (adaptive or fixed
// interval, pages with pauses, a bounded slice per run). It asks the indexer only through
// IndexPort (the Indexer implements it); every mutation goes through its `serial`, so two
// read-modify-write updates of the same ancestors never interleave.
import path from 'node:path';
import { changePaths, type Change, type ChangeSink } from '../changes.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../core/log.ts';
import type { JobGate } from '../core/periodic.ts';
import type { Coverage } from './indexer.ts';
import { joinRel, splitRel, type Listing, type WalkSummary } from './protocol.ts';
import { contribution, difference, type Delta, type EntryRow, type IndexStore, type RootRow } from './store.ts';
import { isExcluded } from './walker.ts';

/** The rows maintenance reads and corrects (store.ts). */
export type IndexRows = Pick<
  IndexStore,
  | 'entry'
  | 'children'
  | 'roots'
  | 'relOf'
  | 'begin'
  | 'dueFolders'
  | 'hasIncompleteSubfolder'
  | 'deleteChunk'
  | 'deleteUnseen'
  | 'deleteDoc'
  | 'moveSubtree'
  | 'propagate'
  | 'settleComplete'
  | 'markChecked'
>;

/** What maintenance asks of the indexer: the Indexer implements it, a test hands a double. */
export interface IndexPort {
  /** Anything is kept now (folder sizes or the search catalogue). */
  readonly enabled: boolean;
  /** The indexer has stopped: nothing more is read or written. */
  readonly stopped: boolean;
  readonly store: IndexRows;
  /** The indexed root holding a real path, whatever its state, and the path inside it. */
  cover(realPath: string): Coverage | null;
  /** The same once the root's baseline is done (its rows can be corrected). */
  readyCover(realPath: string): Coverage | null;
  /** Paths relative to a root that are never read (FOLDER_SIZE_EXCLUDE_PATHS). */
  excludes(): string[];
  /** Called each time a root's catalogue completes; answers the unsubscribe. */
  onRootReady(listener: () => void): () => void;
  /** Runs a read-modify-write of rows after every one before it (not at all once stopped). */
  serial<T>(work: () => Promise<T>): Promise<T>;
  /** Waits for the requests in line: background work yields to them. */
  turn(): Promise<void>;
  /** Walks `rel` of `root` again, writing its rows over the old ones in place. */
  rewalk(root: RootRow, rel: string, pace: { batch: number; pauseMs: number }): Promise<WalkSummary>;
  /** One folder's direct entries as they are on disk now. */
  list(root: RootRow, rel: string): Promise<Listing>;
  /** A refresh of `rel` has begun (figures() says it is being counted); `done()` when it ends. */
  recounting(rootId: number, rel: string): { done(): void };
  /**
   * A change at `realPath` that this index has not applied yet (a write through this instance
   * or another, an outside change another instance found): the folders holding it are not final
   * (figures() `complete` false) until `done()`.
   */
  expecting(realPath: string): { done(): void };
}

export interface MaintenanceDeps {
  index: IndexPort;
  /** Flush delay, the sweep's pacing, the subtree walks' batches and pauses. */
  folderSize: Config['folderSize'];
  log: Logger;
  /**
   * Where the sweep (the rescan that finds changes made outside Burrow) runs, and where what
   * the re-checks find goes. `gate`: on several instances over one PostgreSQL and one shared
   * folder the sweep runs on the one instance holding the `index.rescan` lease. `heard`: this
   * instance's live folder views hear what the sweep found (not the change sink: the index
   * would apply its own findings a second time). `cluster`: every outside change any re-check
   * finds here — the sweep's, and a folder on screen's — is told to the other instances before
   * this index applies it (`tell`, resolved once sent), and what they found is heard (`told`):
   * the folders holding it are not final here until it is applied, soon (TOLD_FLUSH_MS). Each
   * instance's index is its own and reads the disk at its own times: a change one of them
   * found and kept to itself left the others answering final figures without it.
   */
  rescan?: {
    gate: JobGate;
    heard?: (change: Change) => void;
    cluster?: { tell(change: Change): Promise<void>; told(listener: (change: Change) => void): () => void };
  };
}

export interface Maintenance {
  /** Subscribes to the changes and starts the sweep. */
  start(changes: ChangeSink): void;
  /** A folder is on screen: re-check its entries soon, in the background. */
  noteViewed(realPath: string): void;
  /** Applies the queued changes, then the re-checks of folders on screen. */
  flush(): Promise<void>;
  /** One slice of the paced sweep; answers how many folders it found changed. */
  sweep(): Promise<number>;
  /** The wait before the next sweep. */
  sweepInterval(): number;
  stop(): void;
}

/** The sweep's name among the background jobs (one instance of a cluster runs it). */
const RESCAN_JOB = 'index.rescan';
/** Above this many new or changed names, a re-check re-reads the folder as a whole. */
const MANY = 50;
/** A folder on screen is re-checked at most this often. */
const VIEW_INTERVAL_MS = 2000;
/** An outside change another instance found is applied this soon (FOLDER_SIZE_FLUSH_MS if shorter). */
const TOLD_FLUSH_MS = 50;
/** The longest a re-check waits for its findings to be sent before it applies them. */
const TELL_WAIT_MS = 1000;

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

export function createMaintenance(deps: MaintenanceDeps): Maintenance {
  const { index: ix, folderSize: cfg, log } = deps;
  let queue: Change[] = [];
  /** Changes under a root whose baseline or catalogue is still running: applied once it is ready. */
  let held: Change[] = [];
  const viewed = new Map<string, number>();
  const viewQueue = new Set<string>();
  let flushTimer: NodeJS.Timeout | undefined;
  let flushDue = 0;
  /**
   * Every change taken in and not yet applied (or dropped), with its marks on the folders holding
   * it (indexer.figures: not final meanwhile). A write is applied a flush later, behind the walks
   * of the changes before it, which a loaded machine stretches to seconds: unmarked, the folders
   * above it answered final figures without it all that time — in a cluster, figures that another
   * instance, which had applied it already, never matched.
   */
  const expected = new Map<Change, { done(): void }[]>();
  let sweepTimer: NodeJS.Timeout | undefined;
  let interval = cfg.reconcileMs || cfg.reconcileMinMs;
  let unsubscribe: () => void = () => {};

  /** A root's catalogue completed: the changes held back for it can be applied now. */
  function release(): void {
    // Applying a held change after the walk is safe: a refresh replaces rows with what is on
    // disk now and adds only the difference, so a change the walk already saw adds nothing.
    if (!held.length) return;
    queue.push(...held);
    held = [];
    schedule();
  }

  /** True when the change touches a root still being walked (it is held back). */
  function hold(c: Change): boolean {
    const walking = changePaths(c).some((p) => {
      const cover = ix.cover(path.resolve(p));
      return cover !== null && cover.root.state !== 'ready';
    });
    if (walking) {
      if (held.length < 100_000) held.push(c);
      else settled(c);
    }
    return walking;
  }

  /** Marks the folders holding a change's paths not final until it is settled. */
  function expect(c: Change): void {
    const marks = changePaths(c).map((p) => ix.expecting(path.resolve(p)));
    const mark = { done: () => marks.forEach((m) => m.done()) };
    // One mark per time it was taken in: the same change emitted twice is settled twice.
    const open = expected.get(c);
    if (open) open.push(mark);
    else expected.set(c, [mark]);
  }

  /** A change is applied (or dropped): its folders may be final again. */
  function settled(c: Change): void {
    const open = expected.get(c);
    open?.shift()?.done();
    if (!open?.length) expected.delete(c);
  }

  function schedule(delay = cfg.flushMs): void {
    if (ix.stopped) return;
    const due = Date.now() + delay;
    if (flushTimer) {
      if (flushDue <= due) return;
      clearTimeout(flushTimer);
    }
    flushDue = due;
    flushTimer = setTimeout(() => {
      flushTimer = undefined;
      void flush();
    }, delay);
    flushTimer.unref();
  }

  /**
   * What a re-check found made outside Burrow, before this index applies it: the other
   * instances of a cluster mark the folders holding it as not final as they hear it, and read
   * the paths again themselves; the live folder views here hear what the sweep found.
   */
  async function report(found: Change[], sweep: boolean, tellOnly: Change[] = found): Promise<void> {
    if (ix.stopped) return;
    if (sweep && deps.rescan?.heard) for (const c of found) deps.rescan.heard(c);
    const cluster = deps.rescan?.cluster;
    if (!cluster || !tellOnly.length) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(tellOnly.map((c) => cluster.tell(c))),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, TELL_WAIT_MS))),
    ]);
    clearTimeout(timer);
  }

  /**
   * An outside change another instance found: each path is read again here (what the message
   * says happened is not trusted, only where), and until then the folders holding it are not final.
   */
  function told(c: Change): void {
    if (!ix.enabled || ix.stopped) return;
    for (const p of changePaths(c)) {
      const again: Change = { type: 'modified', path: p };
      expect(again);
      queue.push(again);
    }
    schedule(Math.min(cfg.flushMs, TOLD_FLUSH_MS));
  }

  async function flush(): Promise<void> {
    const changes = queue;
    queue = [];
    const seen = [...viewQueue];
    viewQueue.clear();
    for (const c of changes) {
      if (hold(c)) continue;
      try {
        await ix.serial(() => apply(c));
      } catch (err) {
        log.warn('a change could not be applied to the index', { err });
      } finally {
        settled(c);
      }
    }
    for (const p of seen) {
      const c = ix.readyCover(p);
      if (!c) continue;
      try {
        const changed = await ix.serial(() => recheck(c.root, c.rel));
        // Subfolders whose own listing changed are looked at once more, one level down.
        for (const rel of changed.slice(0, 20)) await ix.serial(() => recheck(c.root, rel));
      } catch (err) {
        log.warn('a folder re-check failed', { err });
      }
    }
  }

  async function apply(c: Change): Promise<void> {
    if (c.type === 'moved') {
      if (!moved(c.from, c.to)) await removed(c.from);
      await refreshPath(c.to);
    } else if (c.type === 'deleted') {
      await removed(c.path);
    } else {
      await refreshPath(c.path);
      // Told it was made or changed, and not there: removed at once (or before the change reached
      // this instance). Its folder is listed again, so the folder's row carries a time after that
      // removal — what tells Indexer.counts that a placement there is gone, not still to come.
      const told = located(c.path);
      if (told && !ix.store.entry(told.root.id, told.rel)) {
        viewQueue.add(path.dirname(path.resolve(c.path)));
        schedule();
      }
    }
  }

  function located(realPath: string): Coverage | null {
    const c = ix.readyCover(path.resolve(realPath));
    if (!c || c.rel === '' || isExcluded(c.rel, ix.excludes())) return null;
    return c;
  }

  /**
   * A rename or move inside the indexes: the rows go to their new place with their text (the
   * walk of `to` that follows reads only what changed); the figures leave the old ancestors and
   * join the new ones. False when the rows cannot move (the caller forgets and walks).
   */
  function moved(fromPath: string, toPath: string): boolean {
    const from = located(fromPath);
    const to = located(toPath);
    if (!from || !to) return false;
    const store = ix.store;
    const old = store.entry(from.root.id, from.rel);
    if (!old) return false;
    const row = store.moveSubtree({ rootId: from.root.id, rel: from.rel }, { rootId: to.root.id, rel: to.rel });
    if (!row) return false;
    const now = Date.now();
    store.propagate(from.root.id, from.rel, difference(contribution(undefined), contribution(old)), now);
    if (old.is_dir) store.settleComplete(from.root.id, from.rel);
    store.propagate(to.root.id, to.rel, contribution(row), now);
    return true;
  }

  async function removed(realPath: string): Promise<void> {
    const c = located(realPath);
    if (c) await forget(c.root, c.rel);
  }

  /** Drops an entry and its subtree from the index and from its ancestors' totals. */
  async function forget(root: RootRow, rel: string): Promise<void> {
    const old = ix.store.entry(root.id, rel);
    if (!old) return;
    while (!ix.stopped && !ix.store.deleteChunk(root.id, rel)) await ix.turn();
    if (ix.stopped) return;
    ix.store.propagate(root.id, rel, difference(contribution(undefined), contribution(old)), Date.now());
    // An unreadable part that is gone no longer makes the folders above it lower bounds (they
    // stayed incomplete, and the sweep then read the nearest of them again whole).
    if (old.is_dir) ix.store.settleComplete(root.id, rel);
  }

  async function refreshPath(realPath: string): Promise<void> {
    const c = located(realPath);
    if (c) await refresh(c.root, c.rel);
  }

  /**
   * Reads `rel` again (a file, or a folder with everything below it) and adds the difference
   * to its ancestors. When its parent is not in the index either, the nearest missing ancestor
   * is read instead, so a deep new tree lands in one walk.
   */
  async function refresh(root: RootRow, rel: string): Promise<void> {
    const store = ix.store;
    let target = rel;
    for (;;) {
      const [parent] = splitRel(target);
      if (parent === '' || store.entry(root.id, parent)) break;
      target = parent;
    }
    if (!store.entry(root.id, splitRel(target)[0])) return; // the root row itself is missing: the baseline will come
    // A folder new to the index has no row until the walk writes it: figures() says it is being counted.
    const recount = ix.recounting(root.id, target);
    try {
      await recountSubtree(root, target);
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
  async function recountSubtree(root: RootRow, target: string): Promise<void> {
    const store = ix.store;
    const old = store.entry(root.id, target);
    const since = store.begin();
    const summary = await ix.rewalk(root, target, { batch: cfg.subtreeBatch, pauseMs: cfg.subtreePauseMs });
    if (ix.stopped) return;
    let after: Delta = contribution(undefined);
    if (summary.missing) {
      const stale = store.entry(root.id, target);
      if (stale) while (!ix.stopped && !store.deleteChunk(root.id, target)) await ix.turn();
    } else {
      // Gone from disk meanwhile, or below a folder that is a file now.
      while (!ix.stopped && !store.deleteUnseen(root.id, target, since)) await ix.turn();
      // A file that became a folder keeps its row's id: its text is no longer its own.
      if (old && !old.is_dir && summary.isDir) store.deleteDoc(old.id);
      after = contribution(store.entry(root.id, target));
    }
    // The walk wrote the figures of what it read over the old rows: the difference is new - old.
    store.propagate(root.id, target, difference(after, old ? contribution(old) : contribution(undefined)), Date.now());
    if (summary.isDir || old?.is_dir) store.settleComplete(root.id, target);
    if (summary.isDir && summary.ms >= cfg.subtreeSlowLogMs) {
      log.info('a folder-size subtree scan was slow', {
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
  async function recheck(root: RootRow, rel: string, sweep = false): Promise<string[]> {
    const store = ix.store;
    const row = store.entry(root.id, rel);
    if (!row || !row.is_dir) return [];
    const listing = await ix.list(root, rel);
    if (ix.stopped) return [];
    if (!listing.ok) {
      if (listing.gone && rel !== '') {
        await report([{ type: 'deleted', path: path.join(root.path, rel), isDirectory: true }], sweep);
        await forget(root, rel);
      } else if (listing.partial && row.complete === 1) {
        // The folder is there but its names, or one of its entries, cannot be read (a new
        // subfolder past the path limit, a folder no longer readable): walked again, which marks
        // it and every folder above it a lower bound — skipped, it stayed final for good. One
        // held incomplete already is read again by the sweep (the deepest ones); one that cannot
        // be looked at itself keeps its rows until it can. The other instances read it again too.
        await refresh(root, rel);
        if (store.entry(root.id, rel)?.complete !== 1)
          await report([{ type: 'modified', path: path.join(root.path, rel) }], false);
      }
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
    const gone: Change[] = [...known.values()].map((g) => ({
      type: 'deleted',
      path: path.join(root.path, joinRel(rel, g.name)),
      isDirectory: !!g.is_dir,
    }));
    const isDir = new Map(listing.entries.map((e) => [joinRel(rel, e.name), e.isDir]));
    const created: Change[] = stale.map((s) => ({
      type: 'created',
      path: path.join(root.path, s),
      isDirectory: isDir.get(s) ?? false,
    }));
    if (gone.length || created.length) {
      // Many new names: the other instances read the folder again whole, as this one does.
      const whole = stale.length > MANY && rel !== '';
      const tell = whole ? [...gone, { type: 'modified' as const, path: path.join(root.path, rel) }] : undefined;
      await report([...gone, ...created], sweep, tell);
    }
    for (const g of known.values()) await forget(root, joinRel(rel, g.name));
    if (stale.length > MANY && rel !== '') {
      await refresh(root, rel);
      return [];
    }
    for (const s of stale) await refresh(root, s);
    store.markChecked(root.id, rel, listing.mtime, Date.now());
    return changedDirs;
  }

  function scheduleSweep(): void {
    if (ix.stopped) return;
    sweepTimer = setTimeout(() => {
      void sweep();
    }, interval);
    sweepTimer.unref();
  }

  async function sweep(): Promise<number> {
    const gate = deps.rescan?.gate;
    if (gate) {
      let mine = false;
      try {
        mine = gate.mayRun(RESCAN_JOB);
      } catch (err) {
        log.warn('could not ask whether to run a background job', { job: RESCAN_JOB, err });
      }
      if (!mine) {
        // Another instance rescans; its findings arrive through the change stream.
        scheduleSweep();
        return 0;
      }
    }
    let failure: unknown = null;
    const started = Date.now();
    const limit = cfg.reconcileMaxDirectories || Number.MAX_SAFE_INTEGER;
    let done = 0;
    let changes = 0;
    try {
      while (done < limit && !ix.stopped && ix.enabled) {
        const page = ix.store.dueFolders(Math.min(cfg.reconcileBatch, limit - done), started);
        if (!page.length) break;
        for (const paged of page) {
          const root = ix.store.roots().find((r) => r.id === paged.root_id);
          if (!root) continue;
          const rel = ix.store.relOf(paged);
          // The row as it is now, not as the page read it: refreshing the deepest incomplete
          // folder earlier in this page settles its ancestors (final again, or removed with it),
          // and an ancestor still taken as incomplete here was dropped and walked again whole —
          // up to the volume's root, each time an unreadable part was removed.
          const f = ix.store.entry(root.id, rel);
          if (!f) continue;
          if (f.complete === 0) {
            // Only the deepest incomplete folders are read again: an ancestor is incomplete
            // because of them (store.settleComplete), and reading it again would walk its whole
            // subtree (a whole volume) each time.
            if (!ix.store.hasIncompleteSubfolder(root.id, rel)) {
              changes++;
              await ix.serial(() => refresh(root, rel));
              // Read whole now (the unreadable part gone), or gone itself: the other instances
              // read it again too (only a change is told: an unreadable part stays so each sweep).
              const now = ix.store.entry(root.id, rel);
              if (
                !now ||
                now.complete !== f.complete ||
                now.total_size !== f.total_size ||
                now.total_entries !== f.total_entries
              )
                await report(
                  [
                    now
                      ? { type: 'modified', path: path.join(root.path, rel) }
                      : { type: 'deleted', path: path.join(root.path, rel), isDirectory: true },
                  ],
                  false,
                );
            }
            ix.store.markChecked(root.id, rel, f.mtime, Date.now());
          } else {
            const before = ix.store.entry(root.id, rel);
            const changed = await ix.serial(() => recheck(root, rel, true));
            const after = ix.store.entry(root.id, rel);
            if (
              changed.length ||
              before?.total_size !== after?.total_size ||
              before?.total_entries !== after?.total_entries
            )
              changes++;
            if (after && after.checked_at === before?.checked_at)
              ix.store.markChecked(root.id, rel, after.mtime, Date.now());
          }
          done++;
          // One folder at a time, each after the requests waiting (bounded: the sweep still ends).
          await ix.turn();
        }
        if (cfg.reconcilePauseMs > 0) await new Promise((r) => setTimeout(r, cfg.reconcilePauseMs));
      }
    } catch (err) {
      if (!ix.stopped) log.warn('the folder-size sweep failed', { err });
      failure = err;
    }
    if (gate && !ix.stopped) gate.ran(RESCAN_JOB, failure, changes);
    interval = nextSweepInterval(interval, changes, cfg);
    scheduleSweep();
    return changes;
  }

  return {
    /** Subscribed whether or not anything is indexed now: folder sizes can be switched on at run time. */
    start(changes) {
      const fromOthers = deps.rescan?.cluster?.told(told) ?? (() => {});
      const fromChanges = changes.subscribe((c) => {
        // Nothing kept now: a switch on walks every root afresh anyway.
        if (!ix.enabled) return;
        expect(c);
        queue.push(c);
        schedule();
      });
      const fromReady = ix.onRootReady(() => release());
      unsubscribe = () => {
        fromOthers();
        fromChanges();
        fromReady();
      };
      scheduleSweep();
    },

    noteViewed(realPath) {
      if (!ix.enabled || ix.stopped) return;
      const last = viewed.get(realPath) ?? 0;
      if (Date.now() - last < VIEW_INTERVAL_MS) return;
      viewed.set(realPath, Date.now());
      if (viewed.size > 10_000) viewed.clear();
      viewQueue.add(realPath);
      schedule();
    },

    flush,
    sweep,
    sweepInterval: () => interval,

    stop() {
      unsubscribe();
      if (flushTimer) clearTimeout(flushTimer);
      if (sweepTimer) clearTimeout(sweepTimer);
    },
  };
}

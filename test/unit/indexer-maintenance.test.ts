// Maintenance driven through its port (IndexPort) with a small double in place of the indexer:
// no walker, no worker, no timers waited on. The rows are a real IndexStore, so what is checked
// is what the folder sizes read: a change held while its root is walked, a folder on screen
// reconciled with its listing (a gone name forgotten, a new one walked at the configured pace),
// the paced sweep's interval after an idle and a busy run. The last test runs maintenance on a
// real indexer over a real folder, with a hand on each refresh's walk: a folder holding a write
// heard and not applied yet is not final, whatever order the writes are applied in.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createChangeSink } from '../../src/changes.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/core/log.ts';
import { RequestLoad } from '../../src/core/load.ts';
import { Database } from '../../src/db/database.ts';
import { closeIndexFile, openIndexFile } from '../../src/indexer/index-db.ts';
import { Indexer } from '../../src/indexer/indexer.ts';
import { createMaintenance, type IndexPort } from '../../src/indexer/maintenance.ts';
import type { EntryRecord, Listing, WalkSummary } from '../../src/indexer/protocol.ts';
import { IndexStore, type RootRow } from '../../src/indexer/store.ts';
import { waitFor } from '../support/wait.ts';

const quiet = createLogger('error', {}, () => {});
const folderSize = loadConfig(
  {
    // Timers far away: the test calls flush() and sweep() itself.
    FOLDER_SIZE_FLUSH_MS: '600000',
    FOLDER_SIZE_RECONCILE_MIN_MS: '600000',
    FOLDER_SIZE_RECONCILE_MAX_MS: '2400000',
    FOLDER_SIZE_RECONCILE_PAUSE_MS: '0',
  },
  { dataDir: '/data/burrow', cacheDir: '/cache/burrow' },
).folderSize;

const ROOT = '/srv/Family & Friends';
const TRIPS = 'Trips 2024 #1';
const LISBOA = 'Lisboa — café.jpg';
const VIDEO = 'Mum’s 100% video.mov';
const NANDU = 'Ñandú 🦤.png';

/** An index of one root: a folder of two files, 300 bytes in all. */
function rows() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-maint-unit-'));
  const db = new Database(path.join(dir, 'main.db'));
  openIndexFile(db, path.join(dir, 'index.db'), quiet);
  const store = new IndexStore(db, true);
  const root = store.addRoot(ROOT, 0);
  store.write(
    root.id,
    [
      {
        dir: '',
        name: '',
        isDir: true,
        size: 0,
        mtime: 0,
        entries: 1,
        totalSize: 300,
        totalEntries: 3,
        complete: true,
      },
      {
        dir: '',
        name: TRIPS,
        isDir: true,
        size: 300,
        mtime: 1,
        entries: 2,
        totalSize: 300,
        totalEntries: 2,
        complete: true,
      },
      { dir: TRIPS, name: LISBOA, isDir: false, size: 100, mtime: 1 },
      { dir: TRIPS, name: VIDEO, isDir: false, size: 200, mtime: 1 },
    ],
    [],
    1,
  );
  const close = () => {
    closeIndexFile(db);
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return { store, rootId: root.id, close };
}

/** The indexer as maintenance sees it: coverage by path, a disk of listings and walk results. */
function double(store: IndexStore, rootId: number) {
  const readyListeners = new Set<() => void>();
  const listings = new Map<string, Listing>();
  /** What a walk of a path finds: the records it writes and its summary. */
  const disk = new Map<string, { records: EntryRecord[]; summary: WalkSummary }>();
  const calls = { list: [] as string[], rewalk: [] as [string, { batch: number; pauseMs: number }][] };
  const root = (): RootRow => store.roots().find((r) => r.id === rootId)!;
  const cover = (p: string) => {
    const r = root();
    if (p === r.path) return { root: r, rel: '' };
    return p.startsWith(r.path + '/') ? { root: r, rel: p.slice(r.path.length + 1) } : null;
  };
  const port: IndexPort = {
    enabled: true,
    stopped: false,
    store,
    cover,
    readyCover: (p) => {
      const c = cover(p);
      return c && c.root.state === 'ready' ? c : null;
    },
    excludes: () => [],
    onRootReady(listener) {
      readyListeners.add(listener);
      return () => readyListeners.delete(listener);
    },
    serial: (work) => work(),
    turn: async () => {},
    async rewalk(r, rel, pace) {
      calls.rewalk.push([rel, pace]);
      const found = disk.get(rel);
      if (!found) throw new Error(`no walk result for ${rel}`);
      store.write(r.id, [...found.records], [], Date.now());
      return found.summary;
    },
    async list(_r, rel) {
      calls.list.push(rel);
      const listing = listings.get(rel);
      if (!listing) throw new Error(`no listing for ${rel}`);
      return listing;
    },
    recounting: () => ({ done() {} }),
    expecting: () => ({ done() {} }),
  };
  const ready = () => {
    store.setRootState(rootId, 'ready', 2);
    for (const l of readyListeners) l();
  };
  return { port, listings, disk, calls, ready };
}

const totals = (store: IndexStore, rootId: number, rel: string) => {
  const row = store.entry(rootId, rel)!;
  return { size: row.size, entries: row.entries, totalSize: row.total_size, totalEntries: row.total_entries };
};

test('a change under a root still being walked waits for it; once ready, the deleted file leaves the totals', async () => {
  const { store, rootId, close } = rows();
  const { port, ready } = double(store, rootId);
  store.setRootState(rootId, 'sized', 1);
  const changes = createChangeSink();
  const m = createMaintenance({ index: port, folderSize, log: quiet });
  m.start(changes);
  try {
    changes.emit({ type: 'deleted', path: `${ROOT}/${TRIPS}/${LISBOA}`, isDirectory: false });
    await m.flush();
    assert.ok(store.entry(rootId, `${TRIPS}/${LISBOA}`), 'held while the root is walked');
    assert.equal(totals(store, rootId, TRIPS), { size: 300, entries: 2, totalSize: 300, totalEntries: 2 });
    ready();
    await m.flush();
    assert.is(store.entry(rootId, `${TRIPS}/${LISBOA}`), undefined);
    assert.equal(totals(store, rootId, TRIPS), { size: 200, entries: 1, totalSize: 200, totalEntries: 1 });
    assert.is(totals(store, rootId, '').totalSize, 200);
    assert.is(totals(store, rootId, '').totalEntries, 2);
  } finally {
    m.stop();
    close();
  }
});

test('a folder on screen is reconciled with its listing: a gone name forgotten, a new one walked at the configured pace', async () => {
  const { store, rootId, close } = rows();
  const { port, listings, disk, calls } = double(store, rootId);
  store.setRootState(rootId, 'ready', 1);
  listings.set(TRIPS, {
    ok: true,
    gone: false,
    partial: false,
    mtime: 5,
    entries: [
      { name: VIDEO, isDir: false, size: 200, mtime: 1 },
      { name: NANDU, isDir: false, size: 50, mtime: 3 },
    ],
  });
  disk.set(`${TRIPS}/${NANDU}`, {
    records: [{ dir: TRIPS, name: NANDU, isDir: false, size: 50, mtime: 3 }],
    summary: { missing: false, isDir: false, totalSize: 50, totalEntries: 1, complete: true, dirs: 0, files: 1, ms: 1 },
  });
  const m = createMaintenance({ index: port, folderSize, log: quiet });
  m.start(createChangeSink());
  try {
    m.noteViewed(`${ROOT}/${TRIPS}`);
    await m.flush();
    assert.equal(calls.list, [TRIPS]);
    assert.equal(calls.rewalk, [
      [`${TRIPS}/${NANDU}`, { batch: folderSize.subtreeBatch, pauseMs: folderSize.subtreePauseMs }],
    ]);
    assert.is(store.entry(rootId, `${TRIPS}/${LISBOA}`), undefined);
    assert.is(store.entry(rootId, `${TRIPS}/${NANDU}`)!.size, 50);
    assert.equal(totals(store, rootId, TRIPS), { size: 250, entries: 2, totalSize: 250, totalEntries: 2 });
    assert.is(totals(store, rootId, '').totalSize, 250);
    assert.is(store.entry(rootId, TRIPS)!.mtime, 5, 'the folder is marked as listed');
    // On screen again at once: not listed a second time.
    m.noteViewed(`${ROOT}/${TRIPS}`);
    await m.flush();
    assert.equal(calls.list, [TRIPS]);
  } finally {
    m.stop();
    close();
  }
});

test('the sweep reads every due folder: idle, its interval doubles; after a change, back to the fastest', async () => {
  const { store, rootId, close } = rows();
  const { port, listings, disk } = double(store, rootId);
  store.setRootState(rootId, 'ready', 1);
  listings.set('', {
    ok: true,
    gone: false,
    partial: false,
    mtime: 0,
    entries: [{ name: TRIPS, isDir: true, size: 0, mtime: 1 }],
  });
  listings.set(TRIPS, {
    ok: true,
    gone: false,
    partial: false,
    mtime: 1,
    entries: [
      { name: LISBOA, isDir: false, size: 100, mtime: 1 },
      { name: VIDEO, isDir: false, size: 200, mtime: 1 },
    ],
  });
  const m = createMaintenance({ index: port, folderSize, log: quiet });
  try {
    assert.is(m.sweepInterval(), 600_000);
    assert.is(await m.sweep(), 0);
    assert.is(m.sweepInterval(), 1_200_000);
    // The video was trimmed on disk: the next sweep sees it and walks it again.
    listings.set(TRIPS, {
      ok: true,
      gone: false,
      partial: false,
      mtime: 9,
      entries: [
        { name: LISBOA, isDir: false, size: 100, mtime: 1 },
        { name: VIDEO, isDir: false, size: 120, mtime: 9 },
      ],
    });
    disk.set(`${TRIPS}/${VIDEO}`, {
      records: [{ dir: TRIPS, name: VIDEO, isDir: false, size: 120, mtime: 9 }],
      summary: {
        missing: false,
        isDir: false,
        totalSize: 120,
        totalEntries: 1,
        complete: true,
        dirs: 0,
        files: 1,
        ms: 1,
      },
    });
    // Due again once the clock has moved past the first sweep's marks.
    const marked = Date.now();
    await waitFor(() => Date.now() > marked, { what: 'the clock past the first sweep' });
    assert.ok((await m.sweep()) > 0);
    assert.is(m.sweepInterval(), 600_000);
    assert.equal(totals(store, rootId, TRIPS), { size: 220, entries: 2, totalSize: 220, totalEntries: 2 });
  } finally {
    m.stop();
    close();
  }
});

/** The indexer with a hand on each refresh's walk: the walk of a path with a gate waits for it. */
class GatedIndexer extends Indexer {
  readonly gates = new Map<string, Promise<void>>();
  /** The paths whose walk has begun, in order. */
  readonly walked: string[] = [];
  override async rewalk(root: RootRow, rel: string, pace: { batch: number; pauseMs: number }): Promise<WalkSummary> {
    this.walked.push(rel);
    await this.gates.get(rel);
    return super.rewalk(root, rel, pace);
  }
}

test('a write heard and not applied yet leaves the folders holding it not final, whatever order the writes are applied in', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-maint-pending-'));
  const volume = path.join(dir, 'volumes', 'Family');
  const album = path.join(volume, TRIPS);
  const docs = path.join(volume, 'Rechnungen – 2026 #3');
  fs.mkdirSync(album, { recursive: true });
  fs.mkdirSync(docs);
  fs.writeFileSync(path.join(album, LISBOA), Buffer.alloc(50_000, 1));
  const env = {
    CONFIG_DIR: path.join(dir, 'config'),
    CACHE_DIR: path.join(dir, 'cache'),
    VOLUME_ROOT: path.dirname(volume),
    FOLDER_SIZE_MODE: 'full',
    // Timers far away: the test calls flush() itself.
    FOLDER_SIZE_FLUSH_MS: '600000',
    FOLDER_SIZE_RECONCILE_MIN_MS: '600000',
    FOLDER_SIZE_RECONCILE_MAX_MS: '2400000',
  };
  fs.mkdirSync(env.CACHE_DIR, { recursive: true });
  const db = new Database(path.join(env.CACHE_DIR, 'main.db'));
  const config = loadConfig(env);
  const indexer = new GatedIndexer({ config, db, log: quiet, load: new RequestLoad() });
  const m = createMaintenance({ index: indexer, folderSize: config.folderSize, log: quiet });
  const changes = createChangeSink();
  const figures = (p: string) => {
    const f = indexer.figures(p);
    return { sizeBytes: f.sizeBytes, complete: f.complete };
  };
  try {
    indexer.open();
    const ready = new Promise<void>((resolve) => indexer.onRootReady((r) => r.state === 'ready' && resolve()));
    indexer.discover();
    await ready;
    m.start(changes);
    assert.equal(figures(volume), { sizeBytes: 50_000, complete: true });

    // Two uploads heard (through this instance or another): the folders holding them are not
    // final from that moment, the figures still those from before.
    const photo = path.join(album, NANDU);
    const bill = path.join(docs, 'Rechnung Nr. 17 + 19% MwSt.txt');
    fs.writeFileSync(photo, Buffer.alloc(1000, 2));
    fs.writeFileSync(bill, Buffer.alloc(2000, 3));
    const photoWalk = Promise.withResolvers<void>();
    const billWalk = Promise.withResolvers<void>();
    indexer.gates.set(`${TRIPS}/${NANDU}`, photoWalk.promise);
    indexer.gates.set(`Rechnungen – 2026 #3/Rechnung Nr. 17 + 19% MwSt.txt`, billWalk.promise);
    changes.emit({ type: 'created', path: photo, isDirectory: false });
    changes.emit({ type: 'created', path: bill, isDirectory: false });
    assert.equal(figures(volume), { sizeBytes: 50_000, complete: false });
    assert.equal(figures(album), { sizeBytes: 50_000, complete: false });
    assert.equal(figures(docs), { sizeBytes: 0, complete: false });

    // The first flush takes both and walks the photo (slow: a loaded machine). A folder made
    // meanwhile is taken by a second flush, whose apply waits in line behind the photo's and
    // so goes before the bill's: the first flush asks for the bill's only once the photo's ended.
    const first = m.flush();
    await waitFor(() => indexer.walked.length, { what: "the photo's walk begun", until: (n) => n === 1 });
    const made = path.join(volume, 'Neu – Zoë 2009 #1');
    fs.mkdirSync(made);
    changes.emit({ type: 'created', path: made, isDirectory: true });
    const second = m.flush();
    photoWalk.resolve();
    await waitFor(() => indexer.figures(made), { what: 'the new folder counted', until: (f) => f.indexed });
    assert.equal(indexer.walked.slice(0, 2), [`${TRIPS}/${NANDU}`, 'Neu – Zoë 2009 #1']);
    assert.equal(figures(made), { sizeBytes: 0, complete: true }, 'nothing waits below the new folder');
    assert.equal(figures(album), { sizeBytes: 51_000, complete: true }, 'the photo applied');
    // The bill is still to be applied: the volume is not final (it answered final figures
    // without the bill, which an instance that had applied everything never matched).
    assert.equal(figures(volume), { sizeBytes: 51_000, complete: false });
    assert.equal(figures(docs), { sizeBytes: 0, complete: false });

    billWalk.resolve();
    await Promise.all([first, second]);
    assert.equal(figures(docs), { sizeBytes: 2000, complete: true });
    assert.equal(figures(volume), { sizeBytes: 53_000, complete: true });
    assert.is(indexer.figures(volume).entryCount, 6);
  } finally {
    m.stop();
    await indexer.stop();
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();

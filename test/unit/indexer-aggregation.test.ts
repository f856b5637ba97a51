// Size aggregation: what an entry adds to its ancestors, the subtree range, the two walkers'
// bottom-up totals on a real temporary tree (the same records from the synchronous and the
// guarded walk), and the index file: rows with their name index, and a rebuild when the file
// is missing, not a database, or of another format.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/db/database.ts';
import { createLogger } from '../../src/core/log.ts';
import { nodeFs, nodeSyncFs } from '../../src/indexer/fs-layer.ts';
import { INDEX_FORMAT, openIndexFile, closeIndexFile } from '../../src/indexer/index-db.ts';
import { IoGuard } from '../../src/indexer/io-guard.ts';
import type { EntryRecord, WalkJob } from '../../src/indexer/protocol.ts';
import { below, contribution, difference, IndexStore } from '../../src/indexer/store.ts';
import { walk } from '../../src/indexer/walker.ts';
import { walkSync } from '../../src/indexer/walker-sync.ts';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-idx-unit-'));
const quiet = createLogger('error', {}, () => {});

test('contribution and difference: files count once, folders with everything below them', () => {
  assert.equal(contribution(undefined), { size: 0, entries: 0, directSize: 0, directEntries: 0 });
  assert.equal(contribution({ is_dir: 0, size: 10, total_size: null, total_entries: null }), {
    size: 10,
    entries: 1,
    directSize: 10,
    directEntries: 1,
  });
  assert.equal(contribution({ is_dir: 1, size: 3, total_size: 100, total_entries: 7 }), {
    size: 100,
    entries: 8,
    directSize: 0,
    directEntries: 1,
  });
  const grown = difference(
    contribution({ is_dir: 0, size: 25, total_size: null, total_entries: null }),
    contribution({ is_dir: 0, size: 10, total_size: null, total_entries: null }),
  );
  assert.equal(grown, { size: 15, entries: 0, directSize: 15, directEntries: 0 });
});

test('below(): the folder itself and its descendants only (a/b, not a/bc)', () => {
  const b = below('a/b');
  assert.equal(b.params, ['a/b', 'a/b/', 'a/b0']);
  const inside = (dir: string) => dir === 'a/b' || (dir >= 'a/b/' && dir < 'a/b0');
  assert.ok(inside('a/b/c'));
  assert.ok(!inside('a/bc'));
  assert.ok(!inside('a/b.d'), "'.' sorts before '/', so a sibling a/b.d stays out");
  assert.equal(below(''), { sql: '1 = 1', params: [] });
});

function tree(): string {
  const root = tmp();
  const w = (rel: string, bytes: number) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), Buffer.alloc(bytes));
  };
  w('a/one.bin', 100);
  w('a/b/two.bin', 1000);
  w('a/b/c/three.bin', 5);
  w('top.txt', 7);
  w('skip/big.bin', 9999);
  w('.burrow/versions/x.bin', 4444); // Burrow's own folder: never content
  fs.mkdirSync(path.join(root, 'empty'));
  return root;
}

/** What a walk of `root` records; `beforeList(dir)` runs before each folder is listed (what it throws, the listing fails with). */
async function collect(
  kind: 'sync' | 'async',
  root: string,
  emit: WalkJob['emit'],
  beforeList: (dir: string) => void = () => {},
) {
  const records: EntryRecord[] = [];
  const sink = { entry: (r: EntryRecord) => records.push(r), doc: () => {} };
  const job: WalkJob = {
    id: 1,
    root,
    rel: '',
    concurrency: 2,
    batch: 0,
    pauseMs: 0,
    excludes: ['skip'],
    content: false,
    emit,
    sync: kind === 'sync',
  };
  const guard = new IoGuard(0, 1);
  const summary =
    kind === 'sync'
      ? await walkSync(job, sink, null, () => false, {
          readdir: (dir) => (beforeList(dir), nodeSyncFs.readdir(dir)),
          lstat: nodeSyncFs.lstat,
        })
      : await walk(
          job,
          {
            readdir: (dir, done) => {
              try {
                beforeList(dir);
              } catch (err) {
                return done(err as NodeJS.ErrnoException);
              }
              nodeFs.readdir(dir, done);
            },
            lstat: nodeFs.lstat,
          },
          guard,
          sink,
          null,
          () => false,
        );
  guard.close();
  const byRel = new Map(records.map((r) => [r.dir === '' ? r.name : `${r.dir}/${r.name}`, r]));
  return { summary, records, byRel };
}

for (const kind of ['sync', 'async'] as const) {
  test(`${kind} walk: recursive totals bottom-up, direct figures, exclusions and Burrow's folders left out`, async () => {
    const root = tree();
    try {
      const { summary, byRel } = await collect(kind, root, 'all');
      assert.is(summary.totalSize, 1112);
      assert.is(summary.files, 4);
      assert.is(summary.complete, true);
      const top = byRel.get('')!;
      assert.equal([top.size, top.entries, top.totalSize, top.totalEntries], [7, 3, 1112, 8]);
      const a = byRel.get('a')!;
      assert.equal([a.size, a.entries, a.totalSize, a.totalEntries], [100, 2, 1105, 5]);
      const b = byRel.get('a/b')!;
      assert.equal([b.size, b.entries, b.totalSize, b.totalEntries], [1000, 2, 1005, 3]);
      assert.equal([byRel.get('empty')!.totalSize, byRel.get('empty')!.totalEntries], [0, 0]);
      assert.is(byRel.get('a/b/c/three.bin')!.size, 5);
      assert.ok(![...byRel.keys()].some((k) => k.startsWith('skip') || k.startsWith('.burrow')));
      // Folder sizes first: the same folder figures without a record per file.
      const dirsOnly = await collect(kind, root, 'dirs');
      assert.ok(dirsOnly.records.every((r) => r.isDir));
      assert.is(dirsOnly.records.length, 5);
      assert.equal(dirsOnly.byRel.get('a'), a);
      assert.is(dirsOnly.summary.totalSize, 1112);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
}

for (const kind of ['sync', 'async'] as const) {
  test(`${kind} walk: a file placed in a folder after its parent listed it, before its own listing — the folder's row has the time that listing saw (a quota's placement is not counted twice)`, async () => {
    const root = tree();
    const a = path.join(root, 'a');
    const old = new Date('2021-06-01T12:00:00Z');
    fs.utimesSync(a, old, old);
    let placed: number | null = null;
    const place = (dir: string) => {
      if (dir !== a || placed !== null) return;
      // An upload lands here, between the parent's stat of the folder and the folder's listing.
      fs.writeFileSync(path.join(a, 'Urlaub 2025 – Strand.mov'), Buffer.alloc(4096));
      placed = Math.trunc(fs.statSync(a).mtimeMs);
    };
    try {
      const { byRel } = await collect(kind, root, 'dirs', place);
      const row = byRel.get('a')!;
      assert.ok(placed !== null);
      assert.is(row.totalSize, 1105 + 4096, 'the listing holds the placed file');
      assert.ok(
        row.mtime >= placed!,
        `the row's time ${row.mtime} is the one the listing saw (${placed}), not the parent's earlier stat`,
      );
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
}

for (const kind of ['sync', 'async'] as const) {
  test(`${kind} walk: a folder that changed while listed and cannot be listed again keeps its first listing, with the earlier time`, async () => {
    const root = tree();
    const a = path.join(root, 'a');
    const old = new Date('2021-06-01T12:00:00Z');
    fs.utimesSync(a, old, old);
    let lists = 0;
    const place = (dir: string) => {
      if (dir !== a) return;
      lists++;
      // The first listing sees an upload land; the second look is refused (permissions changed).
      if (lists === 1) fs.writeFileSync(path.join(a, 'Urlaub 2025 – Strand.mov'), Buffer.alloc(4096));
      else throw Object.assign(new Error(`EACCES: permission denied, scandir '${dir}'`), { code: 'EACCES' });
    };
    try {
      const { summary, byRel } = await collect(kind, root, 'dirs', place);
      const row = byRel.get('a')!;
      assert.is(lists, 2, 'listed again once, refused');
      assert.is(row.totalSize, 1105 + 4096, "the first listing's names are kept");
      assert.is(summary.complete, true);
      assert.is(row.mtime, old.getTime(), 'with the time read before that listing (never one after it)');
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
}

/** An index store on a fresh index file, with one root: `fn` runs on it, then everything goes. */
function withStore(fn: (store: IndexStore, root: number, db: Database) => void): void {
  const dir = tmp();
  try {
    const db = new Database(path.join(dir, 'main.db'));
    openIndexFile(db, path.join(dir, 'index.db'), quiet);
    const store = new IndexStore(db, true);
    fn(store, store.addRoot('/r', 0).id, db);
    closeIndexFile(db);
    db.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('store: bulk rows enter the name index; deleting a subtree takes its names along', () => {
  withStore((store, root, db) => {
    const rows: EntryRecord[] = [];
    for (let i = 0; i < 150; i++)
      rows.push({ dir: i < 100 ? 'keep' : 'gone', name: `report-${i}.txt`, isDir: false, size: i, mtime: 0 });
    rows.push(
      { dir: '', name: 'keep', isDir: true, size: 0, mtime: 0 },
      { dir: '', name: 'gone', isDir: true, size: 0, mtime: 0 },
    );
    store.write(root, rows, [], 1);
    const named = () =>
      db.get<{ n: number }>(`SELECT count(*) AS n FROM idx_names WHERE idx_names MATCH '"report"'`)!.n;
    assert.is(named(), 150);
    // Writing the same rows again updates them in place: no second name entry.
    store.write(root, [{ dir: 'keep', name: 'report-1.txt', isDir: false, size: 5, mtime: 0 }], [], 2);
    assert.is(named(), 150);
    while (!store.deleteChunk(root, 'gone', 7)) {
      /* chunk by chunk */
    }
    assert.is(named(), 100);
    assert.is(store.entry(root, 'gone'), undefined);
    assert.is(store.entry(root, 'keep/report-1.txt')!.size, 5);
  });
});

test('store: a walk begun in the millisecond rows were written is not taken for their writer', () => {
  withStore((store, root) => {
    const T = 1_780_000_000_000;
    const file = (name: string): EntryRecord => ({ dir: 'Fotos 2025', name, isDir: false, size: 1, mtime: 0 });
    // Written at T: an upload's row, and one the walk will not find (deleted on the disk meanwhile).
    store.write(root, [file('Strand #1.jpg'), file('gelöscht.jpg')], [], T);
    const since = store.begin(T);
    assert.ok(
      since > store.entry(root, 'Fotos 2025/Strand #1.jpg')!.checked_at!,
      'rows before the walk are stamped before it',
    );
    // The walk, in the same millisecond, writes what it finds.
    store.write(root, [file('Strand #1.jpg')], [], T);
    assert.ok(store.entry(root, 'Fotos 2025/Strand #1.jpg')!.checked_at! >= since, "the walk's rows are its own");
    while (!store.deleteUnseen(root, 'Fotos 2025', since)) {
      /* chunk by chunk */
    }
    assert.ok(store.entry(root, 'Fotos 2025/Strand #1.jpg'), 'what the walk found stays');
    assert.is(store.entry(root, 'Fotos 2025/gelöscht.jpg'), undefined, 'what it did not find goes');
    assert.ok(store.begin(T) > since, 'each walk begun has a stamp of its own');
  });
});

test('index file: kept when sound; rebuilt when missing, not a database, or of another format', () => {
  const dir = tmp();
  const file = path.join(dir, 'index.db');
  const open = () => {
    const db = new Database(path.join(dir, 'main.db'));
    const reason = openIndexFile(db, file, quiet);
    return { db, reason };
  };
  const close = (db: Database) => {
    closeIndexFile(db);
    db.close();
  };
  try {
    let { db, reason } = open();
    assert.is(reason, 'missing');
    new IndexStore(db).addRoot('/kept', 0);
    close(db);

    ({ db, reason } = open());
    assert.is(reason, null);
    assert.is(new IndexStore(db).roots().length, 1, 'rows survive a restart');
    db.run("UPDATE idx.idx_meta SET value = '0' WHERE key = 'format'");
    close(db);

    ({ db, reason } = open());
    assert.is(reason, 'format 0');
    assert.is(new IndexStore(db).roots().length, 0, 'another format starts empty');
    assert.is(
      db.get<{ value: string }>("SELECT value FROM idx_meta WHERE key = 'format'")!.value,
      String(INDEX_FORMAT),
    );
    close(db);

    fs.writeFileSync(file, Buffer.alloc(8192, 0x5a)); // not a database at all
    ({ db, reason } = open());
    assert.match(reason ?? '', /^unreadable/);
    new IndexStore(db).addRoot('/again', 0);
    close(db);

    fs.truncateSync(file, 1000); // cut mid-page: damaged
    ({ db, reason } = open());
    assert.ok(reason !== null, 'a truncated file is rebuilt');
    assert.is(new IndexStore(db).roots().length, 0);
    close(db);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();

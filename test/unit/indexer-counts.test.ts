// Whether the index's totals count what a write placed (Indexer.counts, what a quota's landed
// hold asks): a real indexer over a real folder, walked to the end. While a folder holding the
// placed file is walked again, the totals are the ones from before that walk: the file's row
// answers until the walk writes it again, and the totals count it again once the walk ends — a
// placement is neither counted twice (its landed hold and the totals) nor missed in between; and
// one gone before the index counted it stops counting once its folder is listed without it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/core/log.ts';
import { RequestLoad } from '../../src/core/load.ts';
import { Database } from '../../src/db/database.ts';
import { Indexer, type Placement } from '../../src/indexer/indexer.ts';
import { waitFor } from '../support/wait.ts';

const quiet = createLogger('error', {}, () => {});
const ALBUM = 'Holiday 2025 – Côte d’Azur';
const CLIP = 'Nizza + Promenade 🌊.mov';

test('a folder holding a placed file walked again: its row answers until the walk writes it, then the walk’s end', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-counts-'));
  const volume = path.join(dir, 'volumes', 'Family');
  fs.mkdirSync(path.join(volume, ALBUM), { recursive: true });
  const clip = path.join(volume, ALBUM, CLIP);
  fs.writeFileSync(clip, Buffer.alloc(50_000, 1));
  const env = {
    CONFIG_DIR: path.join(dir, 'config'),
    CACHE_DIR: path.join(dir, 'cache'),
    VOLUME_ROOT: path.dirname(volume),
    LOG_LEVEL: 'error',
    FOLDER_SIZE_MODE: 'full',
  };
  fs.mkdirSync(env.CACHE_DIR, { recursive: true });
  const db = new Database(path.join(env.CACHE_DIR, 'main.db'));
  const indexer = new Indexer({ config: loadConfig(env), db, log: quiet, load: new RequestLoad() });
  try {
    indexer.open();
    const ready = new Promise<void>((resolve) => indexer.onRootReady((r) => r.state === 'ready' && resolve()));
    indexer.discover();
    await ready;
    const st = fs.statSync(clip);
    const placed: Placement = {
      path: clip,
      size: st.size,
      mtime: Math.trunc(st.mtimeMs),
      dirMtime: Math.trunc(fs.statSync(path.dirname(clip)).mtimeMs),
    };
    const root = indexer.cover(clip)!.root;
    assert.is(indexer.figures(volume).sizeBytes, 50_000);
    assert.ok(indexer.counts(placed), 'the walked file is in the totals');

    // The album is walked again (a change told for it): the totals are still the ones that hold the clip.
    const rewrite = () =>
      indexer.store.write(
        root.id,
        [{ dir: ALBUM, name: CLIP, isDir: false, size: st.size, mtime: placed.mtime }],
        [],
        indexer.store.stamp(),
      );
    let walk = indexer.recounting(root.id, ALBUM);
    assert.is(indexer.figures(volume).sizeBytes, 50_000);
    assert.ok(indexer.counts(placed), 'counted by the totals from before the walk');
    // The walk writes the clip's row again: the album's listing before the walk held it (its time is the placement's or later).
    rewrite();
    assert.ok(indexer.counts(placed), "counted by the album's listing before the walk");
    // A file placed after that listing is not in the totals until the walk ends, whatever rows the walk wrote.
    const later = { ...placed, path: path.join(volume, ALBUM, 'Später – Möwe.jpg'), dirMtime: placed.dirMtime + 5000 };
    indexer.store.write(
      root.id,
      [{ dir: ALBUM, name: 'Später – Möwe.jpg', isDir: false, size: later.size, mtime: later.mtime }],
      [],
      indexer.store.stamp(),
    );
    assert.not.ok(indexer.counts(later), 'a placement newer than the listing, while the walk runs');
    walk.done();
    assert.ok(indexer.counts(placed), 'counted again once the walk ended');

    // The whole root walked again: once the walk wrote the clip's row, its old row is not known — not counted until the walk ends.
    // A walk treats a row stamped in the millisecond it began as its own (not counted): begin it after the clip's row's.
    const written = indexer.store.entry(root.id, `${ALBUM}/${CLIP}`)!.checked_at!;
    await waitFor(() => Date.now(), { what: "the clock past the clip row's stamp", until: (now) => now > written });
    walk = indexer.recounting(root.id, '');
    assert.ok(indexer.counts(placed), 'not written again yet');
    rewrite();
    assert.not.ok(indexer.counts(placed));
    walk.done();
    assert.ok(indexer.counts(placed), 'counted again once the walk ended');

    // A placement the index never saw is not counted, walk or no walk.
    const unseen = { ...placed, path: path.join(volume, ALBUM, 'Noch nicht gesehen.jpg') };
    assert.not.ok(indexer.counts(unseen));

    // A placement gone before the index counted it (deleted at once; on another instance, before
    // the change reached it): counted — nothing of it is in the totals nor will be — once its
    // folder was listed after a later change (the re-check writes the listing's time), not before.
    const album = indexer.store.entry(root.id, ALBUM)!;
    const gone = { ...placed, path: path.join(volume, ALBUM, 'Gleich wieder gelöscht.jpg'), dirMtime: album.mtime };
    assert.not.ok(indexer.counts(gone), 'its folder listed at its placement, not after');
    indexer.store.markChecked(root.id, ALBUM, album.mtime + 1, indexer.store.stamp());
    assert.ok(indexer.counts(gone), 'its folder listed after a later change, without it');
    assert.ok(indexer.counts(placed), 'the clip, whose row is there, as before');
  } finally {
    await indexer.stop();
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();

// The temporaries of the editor's save, of a version's restore and of a WebDAV Depth 0 COPY of a
// collection are on the work journal for as long as they exist: the row is written before the
// temporary is created and ended only once it took its name or was removed, also when the save
// fails half-way. So a crash at any point leaves it to the next start's recovery, never a hidden
// partial file in the folder. (Their windows are milliseconds: too short to kill a server in.)
import fs from 'node:fs';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createChangeSink } from '../../src/changes.ts';
import type { Caller } from '../../src/core/caller.ts';
import { createEditor } from '../../src/editor/service.ts';
import { withDirIn } from '../../src/files/confined.ts';
import { createItemLocks } from '../../src/files/locks.ts';
import { withTemporary } from '../../src/files/journal.ts';
import type { VersionService } from '../../src/versions/service.ts';
import type { DavContext } from '../../src/webdav/resources.ts';
import { createDavStore } from '../../src/webdav/store.ts';
import { copyOrMove } from '../../src/webdav/tree.ts';
import { journalled, recordingJournal } from '../support/journal.ts';
import { unitVersions, unitVolume } from '../support/unit-volume.ts';

const alice: Caller = { userId: 'u-alice', username: 'alice', roles: ['user'], isAdmin: false, via: 'session' };
const volume = unitVolume('burrow-journal-');
const { root, files, db, resolver, own } = volume;
const temporaries = () => fs.readdirSync(files).filter((n) => n.startsWith('.burrow-tmp-'));

/** The journal and the versions, with what the journal held (and what existed) each time a version was kept. */
function setup(keepFails = false) {
  const journal = recordingJournal();
  const versions = unitVersions(volume, journal);
  const atKeep: { open: string[]; existing: string[] }[] = [];
  // The version is kept while the new content waits under its temporary name: the moment a
  // crash would leave it behind.
  const watched: VersionService = {
    ...versions,
    async keep(...args) {
      const open = journal.open();
      atKeep.push({ open, existing: open.filter((p) => fs.existsSync(p)) });
      if (keepFails) throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
      return versions.keep(...args);
    },
  };
  const editor = createEditor({ resolver, versions: watched, changes: createChangeSink(), journal, maxBytes: 1 << 20 });
  return { journal, versions, editor, atKeep };
}

test.after(() => {
  db.close();
  fs.rmSync(root, { recursive: true, force: true });
});

test('withTemporary: a failing build loses what it left under the temporary, its row, and nothing else', async () => {
  const journal = recordingJournal();
  const failure = new Error('the build failed half-way');
  const before = fs.readdirSync(files).sort();
  const thrown = await withDirIn(files, files, (dir) =>
    withTemporary(journal, dir, async (temp) => {
      fs.mkdirSync(temp);
      fs.writeFileSync(path.join(temp, 'half.txt'), 'half');
      throw failure;
    }),
  ).catch((err: unknown) => err);
  assert.is(thrown, failure, "the build's own failure is what is thrown");
  assert.equal(fs.readdirSync(files).sort(), before, 'the half-built temporary is gone');
  assert.equal(journalled(journal), ['begin:false end:false']);
  assert.equal(journal.open(), []);
});

test('editor save: the temporary is journalled while it exists and the row ends once it took the name', async () => {
  fs.writeFileSync(path.join(files, 'notes.txt'), 'old text');
  const { journal, editor, atKeep } = setup();
  await editor.save(alice, 'Files/notes.txt', 'new text');
  assert.is(fs.readFileSync(path.join(files, 'notes.txt'), 'utf8'), 'new text');
  assert.is(atKeep.length, 1);
  assert.is(atKeep[0]!.open.length, 1, 'one row open while the new text waited');
  assert.is(path.dirname(atKeep[0]!.open[0]!), files, 'the row names the temporary beside the file');
  assert.equal(atKeep[0]!.existing, atKeep[0]!.open, 'the temporary of the open row existed');
  assert.equal(journalled(journal), ['begin:false end:false'], 'written before it existed, ended once gone');
  assert.equal(journal.open(), []);
  assert.equal(temporaries(), []);

  // A new file takes its name by a link: the same.
  await editor.save(alice, 'Files/new.txt', 'fresh');
  assert.is(fs.readFileSync(path.join(files, 'new.txt'), 'utf8'), 'fresh');
  assert.equal(journalled(journal), ['begin:false end:false', 'begin:false end:false']);
  assert.equal(journal.open(), []);
  assert.equal(temporaries(), []);
});

test('editor save failing half-way (the version cannot be kept): the temporary goes, then its row', async () => {
  fs.writeFileSync(path.join(files, 'kept.txt'), 'the old text');
  const { journal, editor, atKeep } = setup(true);
  try {
    await editor.save(alice, 'Files/kept.txt', 'never lands');
    assert.unreachable('the save should fail');
  } catch (err) {
    assert.is((err as NodeJS.ErrnoException).code, 'ENOSPC');
  }
  assert.is(fs.readFileSync(path.join(files, 'kept.txt'), 'utf8'), 'the old text');
  assert.equal(atKeep[0]!.existing.length, 1, 'the temporary existed under an open row when it failed');
  assert.equal(journalled(journal), ['begin:false end:false']);
  assert.equal(journal.open(), []);
  assert.equal(temporaries(), []);
});

test('version restore and restore as a copy: the copy of the old content is journalled until placed', async () => {
  fs.writeFileSync(path.join(files, 'plan.txt'), 'plan v1');
  const { journal, versions, atKeep } = setup();
  await versions.keep(path.join(files, 'plan.txt'), 'alice');
  fs.writeFileSync(path.join(files, 'plan.txt'), 'plan v2');
  const file = await resolver.resolveInside(alice, 'Files/plan.txt');
  const [v1] = versions.list(alice, file);
  assert.ok(v1);
  assert.equal(journal.steps, [], 'keeping a version needs no temporary in the folder');

  await versions.restore(alice, v1.id);
  assert.is(fs.readFileSync(path.join(files, 'plan.txt'), 'utf8'), 'plan v1');
  assert.equal(journalled(journal), ['begin:false end:false']);
  assert.equal(journal.open(), []);

  const copy = await versions.restoreAsCopy(alice, v1.id);
  assert.is(copy.name, 'plan (1).txt');
  assert.is(fs.readFileSync(path.join(files, 'plan (1).txt'), 'utf8'), 'plan v1');
  assert.equal(journalled(journal), ['begin:false end:false', 'begin:false end:false']);
  assert.ok(
    journal.steps.every((s) => path.dirname(s.temp) === files),
    'each row names the temporary beside the file',
  );
  assert.equal(journal.open(), []);
  assert.equal(temporaries(), []);
  assert.is(atKeep.length, 0, 'the restore keeps the current content through its own service');
});

test('WebDAV COPY of a collection with Depth 0: its empty folder is journalled until it took the name', async () => {
  fs.mkdirSync(path.join(files, 'Album'));
  fs.writeFileSync(path.join(files, 'Album', 'photo.jpg'), 'jpeg');
  const journal = recordingJournal();
  const ctx = {
    caller: alice,
    resolver,
    journal,
    store: createDavStore(db),
    changes: createChangeSink(),
    locks: createItemLocks({ webdav: () => [], office: () => [] }),
  } as unknown as DavContext;
  const req = {
    headers: { depth: '0', destination: '/dav/Files/Album%20copy', host: 'localhost' },
  } as unknown as IncomingMessage;
  const album = await resolver.resolve(alice, 'Files/Album');
  assert.is(await copyOrMove(ctx, req, album, 'copy'), 201);
  assert.equal(fs.readdirSync(path.join(files, 'Album copy')), [], 'the collection without its members');
  assert.equal(journalled(journal), ['begin:false end:false']);
  assert.is(path.dirname(journal.steps[0]!.temp), files, 'the row names the temporary beside the copy');
  assert.equal(journal.open(), []);
  assert.equal(temporaries(), []);
});

test.run();

// A selection into a new zip beside it: stored for compressed kinds, deflated otherwise,
// the name numbered when taken, and read back byte-exact by Debian's unzip.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openSources } from '../../src/downloads/zip.ts';
import { archiveFile, run, service, tmp, tree } from '../support/archives.ts';

test('a selection becomes a new zip; a taken name becomes name (1); unzip reads it back', async () => {
  const dir = tmp('create');
  const work = path.join(dir, 'work');
  fs.mkdirSync(path.join(work, 'photos', 'trip'), { recursive: true });
  fs.writeFileSync(path.join(work, 'photos', 'trip', 'a.jpg'), Buffer.alloc(50_000, 9));
  fs.writeFileSync(path.join(work, 'notes.txt'), 'n'.repeat(40_000));
  fs.writeFileSync(path.join(work, 'bundle.zip'), 'taken');
  const s = service();
  const sources = await openSources([
    { root: work, real: path.join(work, 'photos'), name: 'photos', isDirectory: true },
    { root: work, real: path.join(work, 'notes.txt'), name: 'notes.txt', isDirectory: false },
  ]);
  const made = await s.compress(sources, { path: work }, 'bundle.zip', { showHidden: false });
  assert.is(made.name, 'bundle (1).zip');
  assert.is(fs.readFileSync(path.join(work, 'bundle.zip'), 'utf8'), 'taken');
  run('unzip', ['-tq', made.path]);
  const listed = await s.list(archiveFile(made.path));
  assert.equal(
    listed.entries.map((e) => e.name),
    ['photos', 'notes.txt'],
  );
  const out = path.join(dir, 'out');
  fs.mkdirSync(out);
  run('unzip', ['-q', made.path, '-d', out]);
  const t = tree(out);
  assert.is(t['photos/trip/a.jpg'], Buffer.alloc(50_000, 9).toString('latin1'));
  assert.is(t['notes.txt'], 'n'.repeat(40_000));
  // Stored for a compressed kind, deflated (level 1; yazl does not mark the level) for text.
  const v = unzipOutput('unzip', ['-v', made.path]);
  assert.match(v, /50000\s+Stored\s+50000.*photos\/trip\/a\.jpg/);
  assert.match(v, /40000\s+Defl:\w\s.*notes\.txt/);
  assert.equal(
    fs.readdirSync(work).filter((n) => n.startsWith('.burrow')),
    [],
  );
  fs.rmSync(dir, { recursive: true, force: true });
});

function unzipOutput(cmd: string, args: string[]): string {
  return spawnSync(cmd, args, { encoding: 'utf8' }).stdout;
}

test.run();

import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  allocateFreeName,
  assertPlainName,
  candidateName,
  isPlainName,
  placeDirectory,
  placeFile,
  splitName,
} from '../../src/files/names.ts';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-names-'));

test('numbers go before the extension, one rule for files and folders', () => {
  assert.is(candidateName('notes.txt', 0), 'notes.txt');
  assert.is(candidateName('notes.txt', 1), 'notes (1).txt');
  assert.is(candidateName('notes.txt', 2), 'notes (2).txt');
  assert.is(candidateName('Photos', 1), 'Photos (1)');
  assert.is(candidateName('.bashrc', 1), '.bashrc (1)');
  assert.is(candidateName('backup.tar.gz', 1), 'backup (1).tar.gz');
  assert.is(candidateName('notes (1).txt', 1), 'notes (2).txt');
  assert.is(candidateName('trailing.', 1), 'trailing. (1)');
  assert.equal(splitName('a.b.c'), { stem: 'a.b', ext: '.c' });
});

test('plain names refuse separators, NUL, dots, reserved names and overlong names', () => {
  for (const bad of ['', ' ', 'a/b', 'a\\b', 'a\0b', '.', '..', '.burrow', '.burrow-tmp-x', 'x'.repeat(256)]) {
    assert.is(isPlainName(bad), false, JSON.stringify(bad));
  }
  for (const good of ['a', 'a b', '.hidden', 'ünïcødé.txt', '..a', 'x'.repeat(255)])
    assert.is(isPlainName(good), true, good);
  assert.throws(
    () => assertPlainName('a/b'),
    (e: any) => e.status === 400,
  );
});

test('parallel claims of one name each get their own name', async () => {
  const dir = tmp();
  try {
    const names = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        allocateFreeName(dir, 'report.pdf', async (candidate) => {
          const h = await fsp.open(candidate, 'wx');
          await h.writeFile(String(i));
          await h.close();
        }),
      ),
    );
    assert.is(new Set(names).size, 25);
    assert.ok(names.includes('report.pdf'));
    assert.ok(names.includes('report (24).pdf'));
    const contents = new Set(names.map((n) => fs.readFileSync(path.join(dir, n), 'utf8')));
    assert.is(contents.size, 25, 'no claim wrote over another');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('placeFile never overwrites, also in parallel, and removes the temporary', async () => {
  const dir = tmp();
  try {
    fs.writeFileSync(path.join(dir, 'a.txt'), 'original');
    const temps = Array.from({ length: 10 }, (_, i) => {
      const t = path.join(dir, `.burrow-tmp-${i}`);
      fs.writeFileSync(t, `copy ${i}`);
      return t;
    });
    const names = await Promise.all(temps.map((t) => placeFile(t, dir, 'a.txt')));
    assert.is(new Set(names).size, 10);
    assert.not.ok(names.includes('a.txt'));
    assert.is(fs.readFileSync(path.join(dir, 'a.txt'), 'utf8'), 'original');
    for (const t of temps) assert.not.ok(fs.existsSync(t));
    assert.is(fs.readdirSync(dir).length, 11);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('placeDirectory claims a free folder name and keeps the contents', async () => {
  const dir = tmp();
  try {
    fs.mkdirSync(path.join(dir, 'Docs'));
    fs.writeFileSync(path.join(dir, 'Docs', 'keep.txt'), 'keep');
    const temp = path.join(dir, '.burrow-tmp-d');
    fs.mkdirSync(temp);
    fs.writeFileSync(path.join(temp, 'new.txt'), 'new');
    const name = await placeDirectory(temp, dir, 'Docs');
    assert.is(name, 'Docs (1)');
    assert.is(fs.readFileSync(path.join(dir, 'Docs (1)', 'new.txt'), 'utf8'), 'new');
    assert.is(fs.readFileSync(path.join(dir, 'Docs', 'keep.txt'), 'utf8'), 'keep');
    assert.not.ok(fs.existsSync(temp));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();

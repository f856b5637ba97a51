// openRegularFileIn, the indexer's open (files/confined.ts): the file the walk met as a regular
// file inside its folder, or nothing. A link put in its place (to a file inside or outside),
// a folder on the way swapped for a link to another place, a folder or a FIFO in its place: each
// refused with its reason, the descriptor never handed out (a FIFO never hangs the open).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openRegularFileIn } from '../../src/files/confined.ts';

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-confined-'));
const root = path.join(base, 'Familie – Fotos & Scans #2');
const outside = path.join(base, 'Nachbar “privat” 🔒');
const NOTE = 'Einkaufsliste für Oma (100%).txt';

test.before(() => {
  fs.mkdirSync(path.join(root, 'Urlaub 2025'), { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(root, 'Urlaub 2025', NOTE), 'Milch, Brot, Käse');
  fs.writeFileSync(path.join(outside, 'Kontoauszug.txt'), 'geheim');
});
test.after(() => fs.rmSync(base, { recursive: true, force: true }));

async function refused(p: string): Promise<string> {
  try {
    const opened = await openRegularFileIn(root, p);
    await opened.close();
    return 'opened';
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
}

test('the regular file inside is opened, and its descriptor is the one checked', async () => {
  const opened = await openRegularFileIn(root, path.join(root, 'Urlaub 2025', NOTE));
  try {
    assert.is(fs.readFileSync(opened.path, 'utf8'), 'Milch, Brot, Käse');
    assert.is(opened.real, path.join(fs.realpathSync(root), 'Urlaub 2025', NOTE));
  } finally {
    await opened.close();
  }
});

test('a link in the file’s place is refused, whether it points outside or inside', async () => {
  const swapped = path.join(root, 'Urlaub 2025', 'Rechnung «Strom» #7.txt');
  fs.symlinkSync(path.join(outside, 'Kontoauszug.txt'), swapped);
  assert.is(await refused(swapped), 'ELOOP');
  const inside = path.join(root, 'Notiz → Einkauf.txt');
  fs.symlinkSync(path.join(root, 'Urlaub 2025', NOTE), inside);
  assert.is(await refused(inside), 'ELOOP');
});

test('a folder on the way swapped for a link to another place: PATH_OUTSIDE', async () => {
  const away = path.join(root, 'Scans 🗂');
  fs.symlinkSync(outside, away);
  assert.is(await refused(path.join(away, 'Kontoauszug.txt')), 'PATH_OUTSIDE');
});

test('a folder or a FIFO in the file’s place: NOT_A_FILE, and the FIFO does not hang the open', async () => {
  assert.is(await refused(path.join(root, 'Urlaub 2025')), 'NOT_A_FILE');
  const fifo = path.join(root, 'Pipe & Co.txt');
  execFileSync('mkfifo', [fifo]);
  assert.is(await refused(fifo), 'NOT_A_FILE');
});

test.run();

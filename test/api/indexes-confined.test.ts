// The indexer reads the file it met, inside its volume, or nothing (confined at use), through the
// real server. A volume holds a note, a PDF and a photo whose words and camera are found. Outside
// the volume lie a note and a PDF with words no other file has, and a photo from a camera no
// other photo names. After the walk, a rename makes the indexer read the renamed file again (the
// change is applied FOLDER_SIZE_FLUSH_MS later) and, in that window:
//  - the note and the PDF are swapped for links to the outside ones (a link met by the walk
//    counts as a file of its own, and was read through);
//  - the photo's folder is swapped for a link to an outside folder (the walk of the renamed
//    photo reaches it through the link).
// The outside words and camera are never found, and the log says which files were skipped.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Client } from '../support/client.ts';
import { setupAdmin } from '../support/auth.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';
import { pdfDocument } from '../support/world.ts';
import { cameraJpeg, type PhotoFacts } from '../support/media.ts';

let s: TestServer;
let admin: Client;
const vol = (...p: string[]) => path.join(s.dirs.volumes, 'Files', ...p);
const outside = (...p: string[]) => path.join(s.dirs.root, 'elsewhere', ...p);

const LENS = { lens: 'wide', exposure: 0.01, fNumber: 1.8, iso: 100, focalLength: 6 };
const INSIDE_CAMERA: PhotoFacts = { make: 'Google', model: 'Pixel 8 Pro', taken: '2023:12:24 18:00:00', ...LENS };
const OUTSIDE_CAMERA: PhotoFacts = { make: 'Hasselblad', model: 'X2D 100C', taken: '2021:05:01 10:00:00', ...LENS };

const NOTES = 'Notes & lists #1';
const NOTE = 'Einkaufsliste für Zoë.txt';
const PDF = 'Reçu + facture (2024).pdf';
const TRIP = 'Trip to Lisboa 🌊';
const PHOTO = 'Praia.jpg';

const search = (q: string) => admin.get(`/api/search?${new URLSearchParams({ q })}`);
const names = async (q: string) => {
  const r = await search(q);
  assert.is(r.status, 200, r.text);
  return r.json.items.map((i: { name: string }) => i.name.normalize('NFC'));
};
const skippedLines = () =>
  s.logs.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('the indexer skipped a file'));

function put(file: string, data: Buffer | string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data);
}

test.before(async () => {
  // The window between a rename and the indexer's read of it: wide, so a loaded machine still swaps inside it.
  s = await startServer({ env: { FOLDER_SIZE_FLUSH_MS: '8000' }, volumes: ['Files'] });
  put(vol(NOTES, NOTE), 'Brot, Milch, Äpfel und Pfirsichmarmelade');
  put(vol(NOTES, PDF), pdfDocument([['Quittung der Apotheke Zimtblume']]));
  put(vol(TRIP, PHOTO), await cameraJpeg(64, 48, INSIDE_CAMERA));
  // Longer than the inside files: a swapped file never looks unchanged to the walk.
  put(outside('shadow.txt'), 'quasselstrippe root:$6$secret:19000:0:99999:7::: quasselstrippe quasselstrippe');
  put(outside('other account.pdf'), pdfDocument([['Kontoauszug Geheimwort'], ['page two']]));
  put(outside('their photos', `${PHOTO.replace('.jpg', ' (2).jpg')}`), await cameraJpeg(96, 64, OUTSIDE_CAMERA));
  await s.restart({ FOLDER_SIZE_REBUILD: 'true' });
  admin = await setupAdmin(s);
  await waitFor(
    async () => [
      ...(await names('Pfirsichmarmelade')),
      ...(await names('Zimtblume')),
      ...(await names('camera:pixel')),
    ],
    {
      what: 'the note, the PDF and the photo read',
      until: (found) => found.length === 3,
      seen: (found) => found.join(', '),
      timeoutMs: 60_000,
    },
  );
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

/** Renames `name` in `folder` (the indexer reads it again FOLDER_SIZE_FLUSH_MS later) and runs `swap` at once. */
async function renameThen(folder: string, name: string, newName: string, swap: () => void): Promise<void> {
  const r = await admin.post('/api/files/rename', { path: `Files/${folder}`, name, newName });
  assert.is(r.status, 200, r.text);
  swap();
}

test('a file swapped for a link to a file outside the volume is not read for the index', async () => {
  const note = NOTE.replace('.txt', ' (alt).txt');
  const pdf = PDF.replace('.pdf', ' (alt).pdf');
  await renameThen(NOTES, NOTE, note, () => {
    fs.rmSync(vol(NOTES, note));
    fs.symlinkSync(outside('shadow.txt'), vol(NOTES, note));
  });
  await renameThen(NOTES, PDF, pdf, () => {
    fs.rmSync(vol(NOTES, pdf));
    fs.symlinkSync(outside('other account.pdf'), vol(NOTES, pdf));
  });
  // Either way the indexer ends: it logs the skips, or (the defect) it indexes the outside words.
  const leaks = async () => [...(await names('quasselstrippe')), ...(await names('Kontoauszug'))];
  await waitFor(async () => ({ lines: skippedLines(), leaked: await leaks() }), {
    what: 'both renamed files read again',
    timeoutMs: 60_000,
    until: (r) =>
      r.leaked.length > 0 ||
      (r.lines.some((l) => l.file?.endsWith(note)) && r.lines.some((l) => l.file?.endsWith(pdf))),
    seen: (r) => JSON.stringify(r),
  });
  assert.equal(await names('quasselstrippe'), [], 'the outside note is not searchable');
  assert.equal(await names('Kontoauszug'), [], 'the outside PDF is not searchable');
  assert.equal(await names('root'), []);
  const lines = skippedLines();
  assert.is(lines.find((l) => l.file?.endsWith(note))?.reason, 'ELOOP');
  assert.is(lines.find((l) => l.file?.endsWith(pdf))?.reason, 'ELOOP');
  assert.is(lines[0]!.level, 'warn');
});

test('a folder swapped for a link to a folder outside the volume is not read for the index', async () => {
  const photo = PHOTO.replace('.jpg', ' (2).jpg');
  await renameThen(TRIP, PHOTO, photo, () => {
    fs.renameSync(vol(TRIP), vol(`${TRIP} (was)`));
    fs.symlinkSync(outside('their photos'), vol(TRIP));
  });
  await waitFor(async () => ({ lines: skippedLines(), leaked: await names('camera:hasselblad') }), {
    what: 'the renamed photo read again',
    timeoutMs: 60_000,
    until: (r) => r.leaked.length > 0 || r.lines.some((l) => l.file?.endsWith(photo)),
    seen: (r) => JSON.stringify(r),
  });
  assert.equal(await names('camera:hasselblad'), [], 'the outside photo is not searchable by its camera');
  assert.equal(await names('camera:X2D'), []);
  assert.is(skippedLines().find((l) => l.file?.endsWith(photo))?.reason, 'PATH_OUTSIDE');
});

test.run();

// What a file says about itself (the metadata answer, a song's cover for its thumbnail) is read
// from the descriptor that was checked, never from its name again: here the name given beside
// each descriptor is another file's of the same kind — the state right after the name was
// swapped — and the facts are still the checked file's. A photo (EXIF and its size), a song (its
// tags, duration and cover), a PDF and an office document (title and author).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { coverPicture, readFileFacts } from '../../src/metadata/read.ts';
import { yazlZip } from '../support/archives.ts';
import { cameraJpeg, FUJI_X_T30, png, taggedMp3 } from '../support/media.ts';
import { pdfDocument } from '../support/world.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow facts — été & 100% #1 '));
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));

const CAMERA = FUJI_X_T30;

const TAGS = { album: 'Suite bergamasque', track: '3/4', date: '1905' };

/** `checked` opened (as confined.ts opens it), and the name beside it now another file's. */
function swapped(checked: string, other: string) {
  const fd = fs.openSync(checked, 'r');
  return { fd, path: other, size: fs.fstatSync(fd).size, close: () => fs.closeSync(fd) };
}

function docx(file: string, title: string, author: string) {
  return yazlZip(file, [
    { name: '[Content_Types].xml', data: '<?xml version="1.0"?><Types/>' },
    { name: 'word/document.xml', data: '<w:document><w:body/></w:document>' },
    {
      name: 'docProps/core.xml',
      data:
        '<?xml version="1.0" encoding="UTF-8"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/">' +
        `<dc:title>${title}</dc:title><dc:creator>${author}</dc:creator></cp:coreProperties>`,
    },
  ]);
}

test('a photo: its camera and size come from the checked descriptor', async () => {
  const mine = path.join(dir, 'Tour Eiffel + moi 🌅.jpg');
  const other = path.join(dir, 'Plage d’Étretat.jpg');
  fs.writeFileSync(mine, await cameraJpeg(640, 480, CAMERA));
  fs.writeFileSync(other, await cameraJpeg(320, 240, { ...CAMERA, make: 'Canon', model: 'Canon EOS R6' }));
  const f = swapped(mine, other);
  try {
    const facts = await readFileFacts(f, 'jpg', f.size);
    assert.is(facts.image?.cameraMake, 'FUJIFILM');
    assert.is(facts.image?.width, 640);
    assert.is(facts.image?.height, 480);
  } finally {
    f.close();
  }
});

test('a song: its tags and cover come from the checked descriptor', async () => {
  const mine = path.join(dir, '03 Clair de lune & co.mp3');
  const other = path.join(dir, '04 Passepied (no cover).mp3');
  fs.writeFileSync(
    mine,
    taggedMp3(2, { ...TAGS, title: 'Clair de lune', artist: 'Debussy & Friends' }, await png(90, 90)),
  );
  fs.writeFileSync(other, taggedMp3(1, { ...TAGS, title: 'Passepied', artist: 'Satie #1' }));
  const f = swapped(mine, other);
  try {
    const facts = await readFileFacts(f, 'mp3', f.size);
    assert.is(facts.audio?.title, 'Clair de lune');
    assert.is(facts.audio?.artist, 'Debussy & Friends');
    assert.is(facts.audio?.hasCover, true);
    assert.ok(Math.abs((facts.audio?.duration ?? 0) - 2) < 0.2, String(facts.audio?.duration));
    const cover = await coverPicture(f.fd, f.size);
    assert.ok(cover && cover.length > 0, 'the checked song has a cover');
  } finally {
    f.close();
  }
});

test('a PDF and an office document: title and author come from the checked descriptor', async () => {
  const pdf = path.join(dir, 'Déclaration 2024.pdf');
  const otherPdf = path.join(dir, 'Facture n°7 — 100%.pdf');
  fs.writeFileSync(
    pdf,
    pdfDocument([['Revenus'], ['Deductions']], { title: 'Déclaration 2024', author: 'Léa Müller' }),
  );
  fs.writeFileSync(otherPdf, pdfDocument([['Facture']], { title: 'Facture n°7', author: 'Garage & Fils' }));
  const doc = path.join(dir, 'Budget familial.docx');
  const otherDoc = path.join(dir, 'Lettre à Zoë.docx');
  await docx(doc, 'Budget &amp; dépenses 2025', 'Marc O’Brien');
  await docx(otherDoc, 'Lettre', 'Zoë');
  const p = swapped(pdf, otherPdf);
  const d = swapped(doc, otherDoc);
  try {
    assert.equal((await readFileFacts(p, 'pdf', p.size)).document, {
      pages: 2,
      title: 'Déclaration 2024',
      author: 'Léa Müller',
    });
    assert.equal((await readFileFacts(d, 'docx', d.size)).document, {
      title: 'Budget & dépenses 2025',
      author: 'Marc O’Brien',
    });
  } finally {
    p.close();
    d.close();
  }
});

test.run();

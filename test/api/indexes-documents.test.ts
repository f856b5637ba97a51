// Words inside documents, through the real server: a PDF's text layer (found with its page), an
// EPUB, an RTF and an HTML page, each holding a word no other file has; a PDF whose text is only
// a picture is not found and the index says it has no text layer; a hostile PDF (a stream that
// inflates without end), a truncated one, an encrypted one and a docx holding a zip bomb are
// skipped and counted in the index's state, the server stays up and the indexer goes on (a PDF
// uploaded afterwards is found). The index's state is for administrators only.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import yazl from 'yazl';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '../support/client.ts';
import { setupAdmin, createUser } from '../support/auth.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';
import { pdfDocument } from '../support/world.ts';
import { bombPdf, CATALOG, PAGES, pdfOf, spacesBomb, stream } from '../support/pdfs.ts';

let s: TestServer;
let admin: Client;
let bob: Client;
const vol = (...p: string[]) => path.join(s.dirs.volumes, 'Files', ...p);

const TAX = ['Documents', 'Taxes & Bills', 'Tax return 2024 (final).pdf'];
const SCAN = ['Documents', 'Scans', 'Reçu pharmacie 2019-03.pdf'];
const HOSTILE = ['Downloads', 'invoice #4471 (do not open).pdf'];
const TRUNCATED = ['Downloads', 'Contrat signé — partiel.pdf'];
const LOCKED = ['Documents', 'Bank statement 2025-01 🔒.pdf'];
const BOMB = ['Downloads', 'CV José Müller (2).docx'];
const BOOK = ['Books', 'Le Petit Prince — extrait.epub'];
const LETTER = ['Letters', 'Lettre à Zoé.rtf'];
const PAGE = ['Saved pages', 'Recipe – Grandma’s plum cake.html'];

function write(rel: string[], data: Buffer | string): void {
  fs.mkdirSync(path.dirname(vol(...rel)), { recursive: true });
  fs.writeFileSync(vol(...rel), data);
}

/** One page that draws a grey picture and nothing else: a scan never recognised. */
function scannedPdf(): Buffer {
  const pixels = Buffer.alloc(64 * 64);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 7) % 256;
  return pdfOf([
    CATALOG,
    PAGES,
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /XObject << /Im1 5 0 R >> >> >>',
    stream('', Buffer.from('q 400 0 0 400 100 300 cm /Im1 Do Q', 'latin1')),
    stream('/Type /XObject /Subtype /Image /Width 64 /Height 64 /ColorSpace /DeviceGray /BitsPerComponent 8', pixels),
  ]);
}

/** A PDF that needs a password (standard security handler; the empty password does not open it). */
function encryptedPdf(): Buffer {
  return pdfOf(
    [
      CATALOG,
      PAGES,
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>',
      `<< /Filter /Standard /V 1 /R 2 /O <${'ab'.repeat(32)}> /U <${'cd'.repeat(32)}> /P -4 >>`,
    ],
    `/Encrypt 4 0 R /ID [<${'5e'.repeat(16)}> <${'5e'.repeat(16)}>] `,
  );
}

async function zipOf(entries: { name: string; data: Buffer | string }[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const e of entries) zip.addBuffer(Buffer.from(e.data), e.name);
  zip.end();
  const out: Buffer[] = [];
  for await (const c of zip.outputStream) out.push(c as Buffer);
  return Buffer.concat(out);
}

/**
 * A docx whose document part unpacks to 1 GiB (a zip bomb), its headers claiming 4,000 bytes (the
 * local header and the central directory both say so), written as the zip format lays it out.
 */
function bombDocx(): Buffer {
  const { raw } = spacesBomb();
  const entries = [
    { name: '[Content_Types].xml', data: zlib.deflateRawSync('<?xml version="1.0"?><Types/>'), size: 29, crc: 0 },
    { name: 'word/document.xml', data: raw, size: 4000, crc: 0x1234abcd },
  ];
  entries[0]!.crc = zlib.crc32('<?xml version="1.0"?><Types/>');
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt32LE(e.crc, 14);
    local.writeUInt32LE(e.data.length, 18);
    local.writeUInt32LE(e.size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(e.crc, 16);
    central.writeUInt32LE(e.data.length, 20);
    central.writeUInt32LE(e.size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, e.data);
    centrals.push(central, name);
    offset += local.length + name.length + e.data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

async function epub(chapters: { title: string; body: string }[]): Promise<Buffer> {
  const manifest = chapters
    .map((_, i) => `<item id="c${i + 1}" href="Text/chapitre ${i + 1}.xhtml" media-type="application/xhtml+xml"/>`)
    .join('');
  const spine = chapters.map((_, i) => `<itemref idref="c${i + 1}"/>`).join('');
  return zipOf([
    { name: 'mimetype', data: 'application/epub+zip' },
    {
      name: 'META-INF/container.xml',
      data: '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>',
    },
    {
      name: 'OEBPS/content.opf',
      data: `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata/><manifest>${manifest}</manifest><spine>${spine}</spine></package>`,
    },
    ...chapters.map((c, i) => ({
      name: `OEBPS/Text/chapitre ${i + 1}.xhtml`,
      data: `<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>${c.title}</title></head><body><h1>${c.title}</h1><p>${c.body}</p></body></html>`,
    })),
  ]);
}

const search = (c: Client, q: string) => c.get(`/api/search?q=${encodeURIComponent(q)}&path=Files`);

function found(c: Client, q: string, name: string) {
  return waitFor(() => search(c, q), {
    what: `${name} to be found by ${q}`,
    timeoutMs: 60_000,
    until: (a) => a.json?.items?.some((x: any) => x.name === name),
    seen: (a) => a.json?.items?.map((x: any) => `${x.path}/${x.name}`) ?? a.text,
  });
}

const report = async () => (await admin.get('/api/admin/index')).json;
const stateOf = (r: any, name: string) => r?.notIndexed?.find((d: any) => d.name === name);

test.before(async () => {
  s = await startServer({ volumes: ['Files'] });
  write(
    TAX,
    pdfDocument([
      ['Tax return 2024', 'Refund due: 312.40 EUR'],
      ['Deductions: garden tools', 'Greenhouse for the quokkas, 1 200 EUR'],
    ]),
  );
  write(SCAN, scannedPdf());
  write(HOSTILE, bombPdf());
  const whole = pdfDocument([['Contrat de location', 'Signé à Lyon par les parties']]);
  write(TRUNCATED, whole.subarray(0, Math.floor(whole.length / 2)));
  write(LOCKED, encryptedPdf());
  write(BOMB, bombDocx());
  write(
    BOOK,
    await epub([
      { title: 'Chapitre I', body: 'Lorsque j’avais six ans j’ai vu, une fois, une magnifique image.' },
      { title: 'Chapitre II', body: 'J’ai ainsi vécu seul, sans personne avec qui parler, jusqu’au baobab.' },
    ]),
  );
  write(
    LETTER,
    "{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Times;}}{\\info{\\title Brouillon}}\\f0 Ch\\'e8re Zo\\'e9,\\par Les hortensias \\u8220?Endless Summer\\u8221? sont arriv\\'e9s.\\par}",
  );
  write(
    PAGE,
    '<!doctype html><html><head><title>Plum cake</title><script>var tracker = "snickerdoodle";</script></head>' +
      '<body><h1>Grandma&rsquo;s plum cake</h1><p>Bake with <em>damsons</em> &amp; cinnamon.</p></body></html>',
  );
  write(['Notes', 'Shopping list.md'], '- bread\n- marmalade\n');
  await s.restart({ FOLDER_SIZE_REBUILD: 'true' });
  admin = await setupAdmin(s);
  bob = await createUser(admin, s, { username: 'bob', password: 'bob-password-1' });
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test("a word only inside a PDF's text layer is found, with its passage and its page", async () => {
  const a = await found(admin, 'quokkas', 'Tax return 2024 (final).pdf');
  const hit = a.json.items.find((i: any) => i.name === 'Tax return 2024 (final).pdf');
  assert.is(hit.path, 'Files/Documents/Taxes & Bills');
  assert.is(hit.matchLine, 'Greenhouse for the quokkas, 1 200 EUR');
  assert.is(hit.matchPage, 2);
  assert.is(hit.matchLineNumber, 2);
  // A word on the first page says page 1.
  const first = (await found(admin, 'Refund', 'Tax return 2024 (final).pdf')).json.items.find(
    (i: any) => i.name === 'Tax return 2024 (final).pdf',
  );
  assert.is(first.matchPage, 1);
});

test('a word only inside an EPUB, an RTF letter or an HTML page is found, with its passage', async () => {
  const book = (await found(admin, 'baobab', 'Le Petit Prince — extrait.epub')).json.items[0];
  assert.ok(book.matchLine.includes('jusqu’au baobab'), book.matchLine);
  assert.is(book.matchPage, undefined, 'pages are for PDFs');
  const letter = (await found(admin, 'hortensias', 'Lettre à Zoé.rtf')).json.items[0];
  assert.is(letter.matchLine, 'Les hortensias “Endless Summer” sont arrivés.');
  await found(admin, 'Zoé', 'Lettre à Zoé.rtf');
  const page = (await found(admin, 'damsons', 'Recipe – Grandma’s plum cake.html')).json.items[0];
  assert.is(page.matchLine, 'Bake with damsons & cinnamon.');
  // What a reader never sees is not indexed: the script, the RTF's metadata.
  for (const hidden of ['snickerdoodle', 'Brouillon'])
    assert.equal((await search(admin, hidden)).json.items, [], hidden);
});

test('a PDF whose text is only a picture is not found, and the index says it has no text layer', async () => {
  const r = await waitFor(report, {
    what: 'the scan in the index state',
    timeoutMs: 60_000,
    until: (r) => stateOf(r, 'Reçu pharmacie 2019-03.pdf') !== undefined,
    seen: (r) => r,
  });
  const scan = stateOf(r, 'Reçu pharmacie 2019-03.pdf');
  assert.equal([scan.kind, scan.status, scan.pages], ['pdf', 'no-text-layer', 1]);
  assert.ok(scan.folder.endsWith(path.join('Files', 'Documents', 'Scans')), scan.folder);
  assert.equal(
    (await search(admin, 'pharmacie')).json.items.map((i: any) => i.name),
    ['Reçu pharmacie 2019-03.pdf'],
    'found by its name only',
  );
  assert.is((await search(admin, 'pharmacie')).json.items[0].matchLine, undefined);
});

test('a hostile, a truncated and an encrypted PDF and a docx holding a zip bomb are skipped and counted; the server and the indexer go on', async () => {
  const names = {
    'invoice #4471 (do not open).pdf': ['too-large', 'timed-out'],
    'Contrat signé — partiel.pdf': ['broken'],
    'Bank statement 2025-01 🔒.pdf': ['encrypted'],
    'CV José Müller (2).docx': ['too-large', 'broken'],
  } as Record<string, string[]>;
  const r = await waitFor(report, {
    what: 'every hostile document in the index state',
    timeoutMs: 120_000,
    until: (r) => Object.keys(names).every((n) => stateOf(r, n)),
    seen: (r) => r,
  });
  for (const [name, statuses] of Object.entries(names))
    assert.ok(statuses.includes(stateOf(r, name).status), `${name}: ${stateOf(r, name).status}`);
  const count = (kind: string, status: string) =>
    r.documents.find((d: any) => d.kind === kind && d.status === status)?.count ?? 0;
  assert.is(count('pdf', 'encrypted'), 1);
  assert.is(count('pdf', 'broken'), 1);
  assert.ok(count('pdf', 'indexed') >= 1);
  assert.is(count('epub', 'indexed'), 1);
  assert.is(count('rtf', 'indexed'), 1);
  assert.is(count('html', 'indexed'), 1);
  assert.is(r.enabled, true);
  assert.ok(r.roots.some((root: any) => root.state === 'ready'));
  // Alive, and still reading: a PDF uploaded now is found by a word of its own.
  assert.is((await admin.get('/healthz')).status, 200);
  const f = new FormData();
  f.append('uploadTo', 'Files/Downloads');
  f.append(
    'filedata',
    new Blob([new Uint8Array(pdfDocument([['Boarding pass'], ['Gate B12, seat 14C, zeppelin lounge']]))]),
    'Boarding pass — Zürich.pdf',
  );
  const up = await admin.request('POST', '/api/upload', f);
  assert.is(up.status, 201, up.text);
  const hit = (await found(admin, 'zeppelin', 'Boarding pass — Zürich.pdf')).json.items[0];
  assert.is(hit.matchPage, 2);
});

test('the index state is for administrators only', async () => {
  assert.is((await bob.get('/api/admin/index')).status, 403);
  assert.is((await new Client(s.url).get('/api/admin/index')).status, 401);
});

test('a renamed folder keeps its documents: found by their words at the new place, none read again', async () => {
  const statement = LOCKED[LOCKED.length - 1]!;
  const was = stateOf(
    await waitFor(report, {
      what: 'the encrypted statement in the index state',
      until: (r) => stateOf(r, statement) !== undefined,
      seen: (r) => r,
    }),
    statement,
  );
  const papers = 'Papiers 2025 — Zoë & Co 📁';
  const renamed = await admin.post('/api/files/rename', { path: 'Files', name: 'Documents', newName: papers });
  assert.is(renamed.status, 200, renamed.text);
  // The tax return's words find it at its new place (the emoji counted as one character).
  await waitFor(() => search(admin, 'quokkas'), {
    what: 'the tax return found at the renamed folder',
    until: (a) => a.json?.items?.some((i: any) => i.path === `Files/${papers}/Taxes & Bills`),
    seen: (a) => a.json?.items?.map((i: any) => `${i.path}/${i.name}`) ?? a.text,
  });
  // The statement is in the index state at its new place, read when it was read before.
  const now = await waitFor(report, {
    what: 'the statement at the renamed folder',
    until: (r) => stateOf(r, statement)?.folder.endsWith(path.join('Files', papers)),
    seen: (r) => stateOf(r, statement),
  });
  assert.is(stateOf(now, statement).at, was.at);
  assert.is(stateOf(now, statement).status, 'encrypted');
});

test.run();

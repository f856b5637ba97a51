// Search fields through the real server: kind:, ext:, size:, modified:, tag:, in: and quoted
// phrases, each alone and together, typed in `q` and as the API's own parameters, with every
// client's encoding (a browser's URLSearchParams, Python's urlencode, curl, the native app's raw
// `+`, encodeURIComponent); the answers come from the index once its walk is ready (waited on).
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, envelope } from '../support/client.ts';
import { createUser, setupAdmin } from '../support/auth.ts';
import { everyClientFinds, type SearchCase } from '../support/search-clients.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

let s: TestServer;
let admin: Client;
let bob: Client;
const VOL = 'Family & Friends';
const vol = (...p: string[]) => path.join(s.dirs.volumes, VOL, ...p);
const TAG = 'Belege & Quittungen #1';
const at = (iso: string) => new Date(iso);

function put(rel: string, body: string | number, modified: string): void {
  const file = vol(...rel.split('/'));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  if (typeof body === 'number') {
    fs.writeFileSync(file, '');
    fs.truncateSync(file, body); // sparse: the size a film has, none of its disk
  } else fs.writeFileSync(file, body);
  fs.utimesSync(file, at(modified), at(modified));
}

const FILES: [string, string | number, string][] = [
  ['Family Photos/2024/Strand am Meer.jpg', 'jpeg bytes of the beach', '2024-03-10T12:00:00Z'],
  ['Family Photos/Oma 80. Geburtstag.png', 'png bytes of the party', '2025-06-01T12:00:00Z'],
  ['Fotos + Filme/Urlaub Film.mp4', 150 * 1024 * 1024, '2025-08-20T12:00:00Z'],
  ['Fotos + Filme/Strand Zoë.jpg'.normalize('NFD'), 'jpeg bytes of the dune', '2023-08-20T12:00:00Z'],
  ['Documents/Steuer 2023 Belege.pdf', '%PDF-1.4 tax', '2023-05-01T12:00:00Z'],
  [
    'Documents/annual report 2024.txt',
    'The annual report of the garden club.\nStrand cleaning day.',
    '2024-07-01T12:00:00Z',
  ],
  ['Documents/Receipts & Bills #3/Café receipt.pdf', '%PDF-1.4 coffee', '2024-06-15T12:00:00Z'],
];

/** The names a search answers, sorted. */
async function names(c: Client, query: string): Promise<string[]> {
  const a = await c.get(`/api/search?${query}`);
  assert.is(a.status, 200, `${query}: ${a.text}`);
  return a.json.items.map((i: { name: string }) => i.name.normalize('NFC')).sort();
}
const same = (got: string[], want: string[], what?: string) => assert.equal(got, [...want].sort(), what);
const box = (q: string) => new URLSearchParams({ q }).toString();

test.before(async () => {
  s = await startServer({ env: { FOLDER_SIZE_FLUSH_MS: '20' }, volumes: [VOL] });
  for (const [rel, body, modified] of FILES) put(rel, body, modified);
  await s.restart({ FOLDER_SIZE_REBUILD: 'true' });
  admin = await setupAdmin(s);
  bob = await createUser(admin, s, { username: 'bob', password: 'bob-password-1' });
  // The index's walk is done when its report says the volume is ready and a word inside the
  // text file is found (documents are read after the walk).
  await waitFor(() => admin.get('/api/admin/index'), {
    what: 'the volume indexed',
    until: (a) => a.json?.roots?.length > 0 && a.json.roots.every((r: { state: string }) => r.state === 'ready'),
    seen: (a) => a.text,
  });
  await waitFor(() => admin.get('/api/search?q=garden'), {
    what: 'the report found by a word inside it',
    until: (a) => a.json?.items?.some((i: { name: string }) => i.name === 'annual report 2024.txt'),
    seen: (a) => a.text,
  });
  const tagged = await admin.post('/api/tags/apply', {
    paths: [`${VOL}/Documents/Steuer 2023 Belege.pdf`, `${VOL}/Family Photos/Oma 80. Geburtstag.png`],
    add: [TAG],
  });
  assert.is(tagged.status, 200, tagged.text);
  assert.is((await bob.post('/api/tags/apply', { paths: [`${VOL}/Fotos + Filme`], add: [TAG] })).status, 200);
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('each field alone', async () => {
  same(await names(admin, box('kind:photo')), ['Oma 80. Geburtstag.png', 'Strand am Meer.jpg', 'Strand Zoë.jpg']);
  same(await names(admin, box('ext:pdf')), ['Café receipt.pdf', 'Steuer 2023 Belege.pdf']);
  same(await names(admin, box('size:>100MB')), ['Urlaub Film.mp4']);
  same(await names(admin, box('modified:<2024-06')), [
    'Steuer 2023 Belege.pdf',
    'Strand am Meer.jpg',
    'Strand Zoë.jpg',
  ]);
  same(await names(admin, box(`tag:"${TAG}"`)), ['Oma 80. Geburtstag.png', 'Steuer 2023 Belege.pdf']);
  same(await names(admin, box('in:"Family Photos"')), ['2024', 'Oma 80. Geburtstag.png', 'Strand am Meer.jpg']);
  same(await names(admin, box('kind:folder in:"Family Photos"')), ['2024']);
  // A phrase: the words together, in names and inside documents.
  const phrase = await admin.get(`/api/search?${box('"annual report" kind:document')}`);
  assert.equal(
    phrase.json.items.map((i: { name: string }) => i.name),
    ['annual report 2024.txt'],
  );
});

test('fields together, with words and a phrase', async () => {
  same(await names(admin, box('kind:photo in:"Family Photos" modified:2024')), ['Strand am Meer.jpg']);
  same(await names(admin, box(`tag:"${TAG}" ext:pdf`)), ['Steuer 2023 Belege.pdf']);
  same(await names(admin, box('Strand kind:photo')), ['Strand am Meer.jpg', 'Strand Zoë.jpg']);
  same(await names(admin, box('Strand kind:photo size:<1KB modified:2023')), ['Strand Zoë.jpg']);
  // "Strand" is also a word inside the report: found as a document unless the kind says photo.
  same(await names(admin, box('Strand ext:txt')), ['annual report 2024.txt']);
  same(await names(admin, box('receipt in:"Receipts & Bills #3" ext:pdf')), ['Café receipt.pdf']);
  same(await names(admin, box('kind:video size:10MB..1GB modified:>=2025')), ['Urlaub Film.mp4']);
  same(await names(admin, box('kind:photo size:>100MB')), []);
  // A word that looks like a field is a word: "Re:" and "10:30" are searched as written.
  assert.is((await admin.get(`/api/search?${box('Re: 10:30 meeting')}`)).status, 200);
});

test('the API parameters, with every client encoding (the native app sends + raw)', async () => {
  const cases: SearchCase[] = [
    { fields: [['in', 'Fotos + Filme']], want: ['Strand Zoë.jpg', 'Urlaub Film.mp4'] },
    { fields: [['q', 'kind:photo in:"Fotos + Filme"']], want: ['Strand Zoë.jpg'] },
    {
      fields: [
        ['q', 'Strand'],
        ['kind', 'photo'],
        ['modified', '<2024-06'],
      ],
      want: ['Strand am Meer.jpg', 'Strand Zoë.jpg'],
    },
    { fields: [['size', '>100MB']], want: ['Urlaub Film.mp4'] },
    {
      fields: [
        ['tag', TAG],
        ['ext', 'pdf,png'],
      ],
      want: ['Oma 80. Geburtstag.png', 'Steuer 2023 Belege.pdf'],
    },
    { fields: [['q', `tag:"${TAG}" size:<1KB`]], want: ['Oma 80. Geburtstag.png', 'Steuer 2023 Belege.pdf'] },
  ];
  await everyClientFinds(s.url, admin.cookieHeader, cases);
});

test("a tag is the asker's own; fields that cannot be read are refused with the envelope", async () => {
  same(await names(bob, box(`tag:"${TAG}"`)), ['Fotos + Filme']);
  same(await names(bob, box(`tag:"${TAG}" kind:photo`)), []);
  same(await names(admin, box('tag:"Nobody uses this"')), []);
  for (const bad of [
    'kind:spaceship',
    'size:>lots',
    'size:',
    'modified:2024-13',
    'modified:yesterday',
    'ext:p/df',
    'kind:folder ext:pdf',
  ]) {
    const r = await admin.get(`/api/search?${box(bad)}`);
    assert.is(r.status, 400, `${bad}: ${r.text}`);
    assert.is(envelope(r).code, 'SEARCH_FIELD_INVALID', bad);
  }
  for (const bad of ['kind=spaceship', 'size=huge', 'modified=June']) {
    const r = await admin.get(`/api/search?${bad}`);
    assert.is(r.status, 400, `${bad}: ${r.text}`);
    assert.is(envelope(r).code, 'SEARCH_FIELD_INVALID', bad);
  }
  // Words shorter than three characters are still refused beside a field.
  assert.is((await admin.get(`/api/search?${box('ab kind:photo')}`)).status, 400);
});

test.run();

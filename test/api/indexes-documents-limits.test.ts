// The document reader's limits, each set low through its variable and seen through the real
// server: pages per PDF (SEARCH_EXTRACT_MAX_PAGES: a word on a later page is not found, one on an
// earlier page is, with its page), bytes per document (SEARCH_EXTRACT_MAX_SIZE: a larger PDF is
// counted too large and nothing of it is found), and the reader's time per walk
// (SEARCH_EXTRACT_RUN_MS: past it the walk's other documents are counted deferred, not found,
// and read at a later walk). Names with spaces, accents, &, #, quotes and emoji.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Client } from '../support/client.ts';
import { setupAdmin } from '../support/auth.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';
import { pdfDocument } from '../support/world.ts';

let s: TestServer;
let admin: Client;
const vol = (...p: string[]) => path.join(s.dirs.volumes, 'Files', ...p);

const LONG = ['Archives 2025 & #1', 'Rapport annuel — 3 pages.pdf'];
const BIG = ['Archives 2025 & #1', 'Grand livre « lourd » 📚.pdf'];
/** Four letters read in one walk, each with a word of its own. */
const MAIL = ['Courrier à trier', 'Lettre n°1.pdf', 'Lettre n°2.pdf', 'Lettre n°3.pdf', 'Lettre n°4.pdf'] as const;
const MAIL_WORDS = ['ocelot', 'pangolin', 'tapir', 'wombat'];

function write(rel: string[], data: Buffer): void {
  fs.mkdirSync(path.dirname(vol(...rel)), { recursive: true });
  fs.writeFileSync(vol(...rel), data);
}

const search = (q: string) => admin.get(`/api/search?q=${encodeURIComponent(q)}&path=Files`);
const names = async (q: string) => (await search(q)).json.items.map((i: { name: string }) => i.name) as string[];
const report = async () => (await admin.get('/api/admin/index')).json;
const stateOf = (r: any, name: string) => r?.notIndexed?.find((d: any) => d.name === name);

function found(q: string, name: string) {
  return waitFor(() => search(q), {
    what: `${name} to be found by ${q}`,
    timeoutMs: 60_000,
    until: (a) => a.json?.items?.some((x: any) => x.name === name),
    seen: (a) => a.json?.items?.map((x: any) => `${x.path}/${x.name}`) ?? a.text,
  });
}

test.before(async () => {
  s = await startServer({ volumes: ['Files'], env: { SEARCH_EXTRACT_MAX_PAGES: '2', SEARCH_EXTRACT_MAX_SIZE: '64K' } });
  write(LONG, pdfDocument([['Rapport annuel 2025'], ['Chapitre deux', 'quokka'], ['Chapitre trois', 'narwhal']]));
  // A small document made large: 100 kB of a comment after its end (PDF readers read past it).
  const ledger = pdfDocument([['Grand livre', 'axolotl']]);
  write(BIG, Buffer.concat([ledger, Buffer.from(`%${' '.repeat(100 * 1024)}\n`, 'latin1')]));
  admin = await setupAdmin(s);
});

test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('SEARCH_EXTRACT_MAX_PAGES: the pages past it are not read; a word on an earlier page is found with its page', async () => {
  const hit = (await found('quokka', LONG[1])).json.items[0];
  assert.is(hit.matchPage, 2);
  assert.equal(await names('narwhal'), []);
  // The name still finds it: only its later pages' words are left out.
  assert.ok((await names('Rapport annuel')).includes(LONG[1]));
});

test('SEARCH_EXTRACT_MAX_SIZE: a larger document is counted too large and none of its words are found', async () => {
  const r = await waitFor(report, {
    what: 'the large PDF in the index state',
    timeoutMs: 60_000,
    until: (r) => stateOf(r, BIG[1]) !== undefined,
    seen: (r) => r,
  });
  assert.equal([stateOf(r, BIG[1]).kind, stateOf(r, BIG[1]).status], ['pdf', 'too-large']);
  assert.equal(await names('axolotl'), []);
});

test('SEARCH_EXTRACT_RUN_MS: past the walk’s time the other documents are deferred, then read at a later walk', async () => {
  MAIL.slice(1).forEach((name, i) =>
    write([MAIL[0], name], pdfDocument([[`Lettre ${i + 1}`, `Au sujet du ${MAIL_WORDS[i]}`]])),
  );
  // A millisecond per walk: the first document read spends it, the walk's others wait (the
  // volume walked again from its top).
  await s.restart({ SEARCH_EXTRACT_RUN_MS: '1', FOLDER_SIZE_REBUILD: 'true' });
  const letters = MAIL.slice(1);
  const r = await waitFor(report, {
    what: 'letters deferred in the index state',
    timeoutMs: 60_000,
    until: (r) => letters.some((n) => stateOf(r, n)?.status === 'deferred'),
    seen: (r) => r,
  });
  const deferred = letters.filter((n) => stateOf(r, n)?.status === 'deferred');
  assert.ok(deferred.length >= 1, deferred.join(', '));
  for (const n of deferred) assert.equal(await names(MAIL_WORDS[letters.indexOf(n)]!), [], n);
  // No limit any more: the next walk reads what was deferred.
  await s.restart({ SEARCH_EXTRACT_RUN_MS: '0', FOLDER_SIZE_REBUILD: 'true' });
  for (const [i, n] of letters.entries()) await found(MAIL_WORDS[i]!, n);
  const after = await report();
  assert.equal(
    letters.filter((n) => stateOf(after, n)),
    [],
    'nothing left deferred',
  );
});

test.run();

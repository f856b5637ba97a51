// The document reader's limits, each set low through its variable and seen through the real
// server: pages per PDF (SEARCH_EXTRACT_MAX_PAGES: a word on a later page is not found, one on an
// earlier page is, with its page), bytes per document (SEARCH_EXTRACT_MAX_SIZE: a larger PDF is
// counted too large and nothing of it is found), and the reader's time per walk
// (SEARCH_EXTRACT_RUN_MS: past it the walk's other documents are counted deferred, not found,
// and read at a later walk), and the time per document (SEARCH_EXTRACT_TIMEOUT_MS: a PDF whose
// content inflates to 1 GiB is stopped, counted timed out, its reader thread ended, and the walk
// goes on to the next file). Names with spaces, accents, &, #, quotes and emoji.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Client } from '../support/client.ts';
import { setupAdmin } from '../support/auth.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';
import { pdfDocument } from '../support/world.ts';
import { bombPdf } from '../support/pdfs.ts';

let s: TestServer;
let admin: Client;
const vol = (...p: string[]) => path.join(s.dirs.volumes, 'Files', ...p);

const LONG = ['Archives 2025 & #1', 'Rapport annuel — 3 pages.pdf'];
const BIG = ['Archives 2025 & #1', 'Grand livre « lourd » 📚.pdf'];
/** Four letters read in one walk, each with a word of its own. */
const MAIL = ['Courrier à trier', 'Lettre n°1.pdf', 'Lettre n°2.pdf', 'Lettre n°3.pdf', 'Lettre n°4.pdf'] as const;
const MAIL_WORDS = ['ocelot', 'pangolin', 'tapir', 'wombat'];
/** A slow document, then a plain one after it in the same folder. */
const SLOW = ['Boîte « lente » #2', 'facture 100% à vérifier 🧾.pdf'];
const AFTER = ['Boîte « lente » #2', 'zz notes & suite.txt'];

/** The server's document-reader threads now (/proc/<pid>/task/<tid>/comm; extract-pool.ts names them). */
function readerThreads(): number {
  const dir = `/proc/${s.pid()}/task`;
  return fs.readdirSync(dir).filter((t) => {
    try {
      return fs.readFileSync(`${dir}/${t}/comm`, 'utf8').trim() === 'doc-reader';
    } catch {
      return false; // the thread ended while listed
    }
  }).length;
}

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

test('SEARCH_EXTRACT_TIMEOUT_MS: a document past it is skipped and counted timed out, its reader thread ended; the walk goes on', async () => {
  // 1 MB on disk (under the size and page limits), 1 GiB of content to inflate: the reader is
  // still at it when its 100 ms are up (its memory limit would stop it far later: too-large).
  write(SLOW, bombPdf());
  write(AFTER, Buffer.from('Notes after the slow invoice: capybara\n'));
  await s.restart({
    SEARCH_EXTRACT_TIMEOUT_MS: '100',
    SEARCH_EXTRACT_MAX_SIZE: '4M',
    SEARCH_EXTRACT_RUN_MS: '0',
    FOLDER_SIZE_REBUILD: 'true',
  });
  const r = await waitFor(report, {
    what: 'the slow PDF in the index state',
    timeoutMs: 60_000,
    until: (r) => stateOf(r, SLOW[1]) !== undefined,
    seen: (r) => r,
  });
  assert.equal([stateOf(r, SLOW[1]).kind, stateOf(r, SLOW[1]).status], ['pdf', 'timed-out']);
  assert.ok(
    r.documents.some((d: any) => d.kind === 'pdf' && d.status === 'timed-out' && d.count >= 1),
    JSON.stringify(r.documents),
  );
  // The walk went on past it: the next file's word is found.
  await found('capybara', AFTER[1]);
  // The thread that was reading it was ended, not left inflating: no reader thread remains
  // while the walker thread (which a reader thread lives in) is kept busy — each ask views the
  // folder, whose re-check is a job of the walker, so it never retires idle and takes a left
  // reader thread with it.
  await waitFor(
    async () => {
      const viewed = await admin.get(`/api/folder-size/Files/${encodeURIComponent(SLOW[0]!)}`);
      assert.is(viewed.status, 200, viewed.text);
      return readerThreads();
    },
    {
      what: 'no document-reader thread left',
      timeoutMs: 60_000,
      until: (n) => n === 0,
      seen: (n) => `${n} reader threads`,
    },
  );
  // The server answers.
  assert.is((await admin.get('/api/admin/index')).status, 200);
  assert.ok((await names('capybara')).includes(AFTER[1]));
});

test.run();

// The upload queue handed to the browser's Background Fetch (Chromium) when the page is hidden:
// a photo being sent by the page's own TUS upload (its second PATCH held by the network gate) is
// handed over when the page goes hidden — the page stops its upload, reads the server's offset
// and the browser sends the rest as one PATCH from there — and the page is closed. The file lands
// byte for byte and the kept upload is forgotten (service worker, on the server's 204). A fetch
// aborted through its registration leaves the upload kept; the next page goes on by TUS from the
// server's offset (no upload made a second time). Every wait is for what the server answered,
// what is on its disk or what the browser holds, never for time passing.
import crypto, { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import * as assert from 'uvu/assert';
import type { BrowserContext, Page, Worker } from 'playwright-core';
import { HOME, filesAddress, journey, onDisk, type Step } from './harness.ts';
import { controlled, networkGate, type Asked, type NetworkGate } from './gate.ts';

const j = journey(import.meta.url, { env: { UPLOAD_CHUNKED_ENABLED: 'true' } });
const MiB = 1024 * 1024;
const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');
/** Every PATCH past a file's first 8 MiB (the page's first PATCH goes through). */
const later = (r: Asked) => r.method === 'PATCH' && r.from > 0;

/** A photo as a camera names it: JPEG's first bytes, then noise. */
const photo = (size: number) => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(size - 4)]);

interface Opened {
  context: BrowserContext;
  page: Page;
  gate: NetworkGate;
  address: string;
  worker(): Promise<Worker>;
}

async function open(s: Step, folder: string): Promise<Opened> {
  fs.mkdirSync(s.disk(folder), { recursive: true });
  const gate = await networkGate(s.server.url);
  const { context, page } = await s.anonymous();
  const address = `${gate.address}${filesAddress(HOME, folder)}`;
  try {
    await page.goto(address, { waitUntil: 'domcontentloaded' });
    await s.signIn(page);
    await page.goto(address, { waitUntil: 'domcontentloaded' });
    await page.getByRole('region', { name: `Folder ${HOME}/${folder}`, exact: true }).waitFor();
    await controlled(page);
  } catch (err) {
    // The gate's listening socket would keep the test process alive after the run.
    await context.close().catch(() => undefined);
    await gate.close();
    throw err;
  }
  const worker = async () => {
    await s.eventually('the service worker seen', () => context.serviceWorkers().length > 0);
    return context.serviceWorkers()[0]!;
  };
  return { context, page, gate, address, worker };
}

/** Runs `body` on the folder opened in a new context behind a network gate; the context and the gate are closed after, whatever happened. */
async function opened(s: Step, folder: string, body: (o: Opened) => Promise<void>): Promise<void> {
  const o = await open(s, folder);
  try {
    await body(o);
  } finally {
    await o.context.close().catch(() => undefined);
    await o.gate.close();
  }
}

/** `rel` on the disk at its whole size and byte for byte, then the kept upload forgotten by the browser. */
async function landed(s: Step, w: Worker, rel: string, bytes: Buffer): Promise<void> {
  await s.eventually(
    `${rel} on the disk, whole`,
    () => s.exists(rel) && fs.statSync(s.disk(rel)).size === bytes.length,
  );
  assert.is(sha(fs.readFileSync(s.disk(rel))), sha(bytes), 'byte for byte');
  await s.eventually('the kept upload forgotten', async () => (await keptCount(w)) === 0);
}

/** The Background Fetch ids active now (asked in the service worker). */
const fetches = (w: Worker) =>
  w.evaluate(() =>
    (
      self as unknown as { registration: { backgroundFetch: { getIds(): Promise<string[]> } } }
    ).registration.backgroundFetch.getIds(),
  );
/** How many uploads the browser keeps (IndexedDB, read in the service worker). */
const keptCount = (w: Worker) =>
  w.evaluate(
    () =>
      new Promise<number>((resolve, reject) => {
        const req = indexedDB.open('burrow-uploads');
        req.onerror = () => reject(req.error);
        req.onsuccess = () => {
          const all = req.result.transaction('uploads').objectStore('uploads').getAll();
          all.onsuccess = () => {
            resolve(all.result.length);
            req.result.close();
          };
        };
      }),
  );

/**
 * The page goes hidden (the tab left, the phone's screen off): its visibility, as the browser
 * would change it. `unloading`: as Chromium unloads a document (a reload, another address, a
 * closed tab) — 'pagehide' while still visible, then hidden.
 */
const hide = (page: Page, unloading = false) =>
  page.evaluate((unloading) => {
    if (unloading) window.dispatchEvent(new PageTransitionEvent('pagehide', { persisted: false }));
    Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
    Object.defineProperty(document, 'hidden', { value: true, configurable: true });
    document.dispatchEvent(new Event('visibilitychange'));
  }, unloading);

/** Uploads the photo with its first PATCH let through and its second held; the held one. */
async function uploadHeld(s: Step, o: Opened, name: string, bytes: Buffer): Promise<Asked> {
  o.gate.rule((r) => (later(r) ? 'hold' : 'pass'));
  const chooser = o.page.waitForEvent('filechooser');
  await s.tap(
    o.page.getByRole('toolbar', { name: 'Folder actions' }).getByRole('button', { name: 'Upload', exact: true }),
  );
  await (await chooser).setFiles(onDisk(name, bytes));
  await s.eventually('the page’s second PATCH held', () => o.gate.held().length === 1);
  return o.gate.held()[0]!;
}

/** Uploads the photo, lets its first PATCH through and holds the second; hides the page; waits for the hand-over's PATCH, held. */
async function handedOver(s: Step, o: Opened, name: string, bytes: Buffer): Promise<Worker> {
  const pages = await uploadHeld(s, o, name, bytes);
  assert.is(o.gate.tus().offsets.get(name), 8 * MiB, 'the server holds the first 8 MiB');
  const w = await o.worker();
  await hide(o.page);
  await s.eventually('the upload handed to Background Fetch', async () => (await fetches(w)).length === 1);
  // The page stopped its own PATCH before the hand-over: it is let go (nothing of it reached the
  // server); from now on a PATCH from the server's offset is the browser's.
  o.gate.rule((r) => (r === pages ? 'cut' : later(r) ? 'hold' : 'pass'));
  await s.eventually('the browser’s PATCH from the server’s offset, held', () =>
    o.gate.held().some((r) => r !== pages && r.from === 8 * MiB),
  );
  const heads = o.gate.tus().all.filter((e) => e.method === 'HEAD' && e.status === 200);
  assert.ok(
    heads.some((e) => e.offset === 8 * MiB),
    'the offset was read from the server before the hand-over',
  );
  return w;
}

j.step(
  'a photo handed to Background Fetch when the page is hidden lands byte for byte with the page closed',
  async (s) => {
    const name = 'Strand – Zoë & Ben #1 100% 🌅.jpg';
    const bytes = photo(12 * MiB);
    await opened(s, 'Urlaub an der Ostsee – Juli #1', async (o) => {
      const w = await handedOver(s, o, name, bytes);
      await o.page.close();
      o.gate.rule(() => 'pass');
      const rel = `Urlaub an der Ostsee – Juli #1/${name}`;
      await landed(s, w, rel, bytes);
      const tus = o.gate.tus().all;
      assert.is(tus.filter((e) => e.method === 'POST').length, 1, 'made once');
      assert.ok(
        tus.some((e) => e.method === 'PATCH' && e.from === 8 * MiB && e.status === 204 && e.offset === bytes.length),
        'the rest in one PATCH from the server’s offset, answered 204',
      );
    });
  },
);

j.step(
  'a Background Fetch aborted through its registration leaves the upload kept; the next page goes on by TUS from the server’s offset',
  async (s) => {
    const name = `${'Großmutters 90. Geburtstag – “die Torte”'.normalize('NFD')}.jpg`;
    const bytes = photo(12 * MiB);
    await opened(s, 'Familie & Freunde', async (o) => {
      const w = await handedOver(s, o, name, bytes);
      // The page is gone (closed, or frozen by a phone) when the fetch fails.
      await o.page.close();
      await w.evaluate(async () => {
        const bg = (
          self as unknown as {
            registration: {
              backgroundFetch: { getIds(): Promise<string[]>; get(id: string): Promise<{ abort(): Promise<boolean> }> };
            };
          }
        ).registration.backgroundFetch;
        const [id] = await bg.getIds();
        await (await bg.get(id!)).abort();
      });
      await s.eventually('the fetch ended', async () => (await fetches(w)).length === 0);
      await s.eventually('its PATCH given up', () => o.gate.held().length === 0);
      assert.is(await keptCount(w), 1, 'still kept');
      o.gate.rule(() => 'pass');
      const page = await o.context.newPage();
      await page.goto(o.address, { waitUntil: 'domcontentloaded' });
      const rel = `Familie & Freunde/${name}`;
      await landed(s, w, rel, bytes);
      const tus = o.gate.tus().all;
      assert.is(tus.filter((e) => e.method === 'POST').length, 1, 'made once');
      assert.ok(
        tus.some((e) => e.method === 'PATCH' && e.from === 8 * MiB && e.status === 204),
        'the next page’s TUS went on from the server’s offset',
      );
    });
  },
);

j.step(
  'a page opened while the upload’s Background Fetch is active sends no PATCH of it; it follows the fetch to its end',
  async (s) => {
    const name = 'Sommerfest „Café Müller“ – Tanz.jpg';
    const bytes = photo(12 * MiB);
    await opened(s, 'Fotos 2026', async (o) => {
      const w = await handedOver(s, o, name, bytes);
      await o.page.close();
      // A page opened again while the browser's PATCH is still held: it takes the kept upload up,
      // asks for its fetch and finds it active.
      const page = await o.context.newPage();
      await page.goto(o.address, { waitUntil: 'domcontentloaded' });
      await page.locator('.tray li.upload').filter({ hasText: name }).waitFor();
      o.gate.rule(() => 'pass');
      const rel = `Fotos 2026/${name}`;
      await landed(s, w, rel, bytes);
      // Once the fetch ended the page asked the server (HEAD) and heard the upload complete.
      await s.eventually('the page heard it complete', () =>
        o.gate.tus().all.some((e) => e.method === 'HEAD' && e.offset === bytes.length),
      );
      // (The first page's own PATCH, stopped at the hand-over, was never answered.)
      const patches = o.gate.tus().all.filter((e) => e.method === 'PATCH' && e.status !== undefined);
      assert.equal(
        patches.map((e) => [e.from, e.status]),
        [
          [0, 204],
          [8 * MiB, 204],
        ],
        'the first 8 MiB by the page, the rest by the browser, and no PATCH of the second page',
      );
    });
  },
);

j.step(
  'a page being unloaded hands nothing over: its own upload goes on, read from nowhere else and sent once',
  async (s) => {
    const name = 'Kindergeburtstag – Lea & Tom #2.jpg';
    const bytes = photo(12 * MiB);
    await opened(s, 'Fotos 2026 – Juni', async (o) => {
      await uploadHeld(s, o, name, bytes);
      // The document here lives on as it is unloaded, so a hand-over begun now would run whole
      // and be seen at the gate.
      await hide(o.page, true);
      // A hand-over's first steps (the worker's registration, stopping the page's upload, a HEAD)
      // would be under way once the page has had two answers from its worker and one from the server.
      await o.page.evaluate(async () => {
        await navigator.serviceWorker.getRegistration();
        await navigator.serviceWorker.getRegistration();
        await fetch('/api/auth/status', { cache: 'no-store' });
      });
      const w = await o.worker();
      assert.equal(await fetches(w), [], 'no Background Fetch');
      assert.is(o.gate.tus().all.filter((e) => e.method === 'HEAD').length, 0, 'no offset asked for a hand-over');
      o.gate.rule(() => 'pass');
      await landed(s, w, `Fotos 2026 – Juni/${name}`, bytes);
      const tus = o.gate.tus().all;
      assert.equal(
        tus.filter((e) => e.method !== 'HEAD').map((e) => [e.method, e.from, e.status]),
        [
          ['POST', NaN, 201],
          ['PATCH', 0, 204],
          ['PATCH', 8 * MiB, 204],
        ],
        'made once, sent by the page alone: its held PATCH went on',
      );
      assert.equal(await fetches(w), [], 'still no Background Fetch');
    });
  },
);

j.run();

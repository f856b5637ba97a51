// An upload queue that survives: three photos queued from a phone, the page reloaded while the
// second is half sent — the page takes the queue up again from the browser's own storage
// (IndexedDB), each upload goes on by TUS from where the server stopped (no upload made a second
// time), and all three land byte for byte (SHA-256 of the files on the server's disk). Offline,
// the tray says so instead of spinning, and the uploads go on when the network is back. An
// upload that failed (the network gone past its retries, the folder gone when the last byte came)
// stays in the list across a reload with its reason: Retry goes on from what the server holds,
// Remove ends it and leaves nothing behind. Where the browser has Background Sync, a page left
// while offline is not needed: once the network is back the browser wakes the service worker,
// which goes on with the upload from the server's offset. What must fall mid-file (a reload, a
// lost network, a folder moved away) waits on PATCHes held unanswered, not on how fast the
// machine is. Over a quota, an upload is refused before a byte with the server's reason and kept.
// The screen is held on while uploads run.
import crypto, { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import * as assert from 'uvu/assert';
import type { BrowserContext, Request, Response } from 'playwright-core';
import { HOME, W, filesAddress, journey, onDisk, partFiles, type Step } from './harness.ts';

// Quotas are measured by the folder-size index, which needs folder sizes in full mode.
const j = journey(import.meta.url, { env: { UPLOAD_CHUNKED_ENABLED: 'true', FOLDER_SIZE_MODE: 'full' } });
const MiB = 1024 * 1024;
const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

/** What the browser (its pages and service worker) asked the server's TUS routes and what it answered, by file name. */
function watchTus(page: BrowserContext, only?: 'worker') {
  // Which upload address is which file (its creation's metadata).
  const where = new Map<string, string>();
  const created: string[] = [];
  /** The offset each file's last answered PATCH reached. */
  const offsets = new Map<string, number>();
  const heads: { name: string; offset: number }[] = [];
  /** Creations the server refused: the file and the error it answered. */
  const refused: { name: string; code: string; message: string }[] = [];
  /** Every PATCH sent, in order, with the offset it began at. */
  const patches: { name: string; from: number }[] = [];
  const nameOf = (req: Request) => {
    const meta = req.headers()['upload-metadata'] ?? '';
    const pair = meta.split(',').find((p) => p.trim().startsWith('filename '));
    return pair ? Buffer.from(pair.trim().split(' ')[1]!, 'base64').toString('utf8') : '';
  };
  const isTus = (req: Request) =>
    new URL(req.url()).pathname.startsWith('/api/upload/tus') && (only !== 'worker' || req.serviceWorker() !== null);
  const sent = (req: Request) => {
    if (!isTus(req)) return;
    const name = where.get(new URL(req.url()).pathname);
    if (name && req.method() === 'PATCH') patches.push({ name, from: Number(req.headers()['upload-offset']) });
  };
  const seen = (r: Response) => {
    const req = r.request();
    if (!isTus(req)) return;
    const url = new URL(req.url());
    if (req.method() === 'POST' && r.status() >= 400)
      void r
        .json()
        .then((body: { error: { code: string; message: string } }) =>
          refused.push({ name: nameOf(req), ...body.error }),
        )
        .catch(() => undefined);
    if (req.method() === 'POST' && r.status() === 201) {
      const at = new URL(r.headers()['location']!, url).pathname;
      where.set(at, nameOf(req));
      created.push(nameOf(req));
    }
    const name = where.get(url.pathname);
    if (!name) return;
    const offset = Number(r.headers()['upload-offset'] ?? NaN);
    if (req.method() === 'PATCH' && r.status() === 204) offsets.set(name, offset);
    if (req.method() === 'HEAD' && r.status() === 200) heads.push({ name, offset });
  };
  page.on('request', sent);
  page.on('response', seen);
  return {
    /** Upload addresses made elsewhere (by a page), with their file names. */
    know(made: Map<string, string>) {
      for (const [at, name] of made) where.set(at, name);
    },
    created,
    refused,
    offsets,
    heads,
    patches,
    stop() {
      page.off('request', sent);
      page.off('response', seen);
    },
  };
}

// The page's own upload requests (tus-js-client's XMLHttpRequests), seen and steered in the page:
// a page under its service worker's control sends them past what DevTools reports and intercepts
// for the page, so neither Playwright's routes nor its request events see them all. Kept in the
// tab's sessionStorage, so a reload keeps both the record and the steering.
type Steer = '' | 'hold-later' | 'hold-all' | 'cut-later';
interface Sent {
  kind: 'sent' | 'answered';
  method: string;
  path: string;
  /** Upload-Offset sent (a PATCH's start) or answered (a PATCH's end, a HEAD's answer). */
  offset: number;
  status?: number;
  location?: string;
  filename?: string;
  body?: string;
}
function steerTus(): void {
  const w = window as unknown as { tusSteer?: { release(): void } };
  if (w.tusSteer || !location.protocol.startsWith('http')) return; // about:blank has no storage of its own
  const store = window.sessionStorage;
  const record = (e: Sent) =>
    store.setItem('tus-log', JSON.stringify([...JSON.parse(store.getItem('tus-log') ?? '[]'), e]));
  const waiting: (() => void)[] = [];
  w.tusSteer = {
    release() {
      store.setItem('tus-steer', '');
      for (const go of waiting.splice(0)) go();
    },
  };
  type Seen = XMLHttpRequest & { tus?: { method: string; url: URL; headers: Record<string, string> } };
  const { open, setRequestHeader, send } = XMLHttpRequest.prototype;
  XMLHttpRequest.prototype.open = function (this: Seen, method: string, url: string | URL, ...rest: unknown[]) {
    this.tus = { method: method.toUpperCase(), url: new URL(url, location.href), headers: {} };
    return (open as (...a: unknown[]) => void).call(this, method, url, ...rest);
  } as typeof open;
  XMLHttpRequest.prototype.setRequestHeader = function (this: Seen, name: string, value: string) {
    if (this.tus) this.tus.headers[name.toLowerCase()] = value;
    return setRequestHeader.call(this, name, value);
  };
  XMLHttpRequest.prototype.send = function (this: Seen, body?: Document | XMLHttpRequestBodyInit | null) {
    const t = this.tus;
    if (!t || !t.url.pathname.startsWith('/api/upload/tus')) return send.call(this, body);
    const from = Number(t.headers['upload-offset'] ?? NaN);
    const meta = (t.headers['upload-metadata'] ?? '').split(',').find((p) => p.startsWith('filename '));
    const filename = meta
      ? new TextDecoder().decode(Uint8Array.from(atob(meta.split(' ')[1]!), (c) => c.charCodeAt(0)))
      : undefined;
    const steer = (store.getItem('tus-steer') ?? '') as Steer;
    const later = t.method === 'HEAD' || (t.method === 'PATCH' && from > 0);
    record({ kind: 'sent', method: t.method, path: t.url.pathname, offset: from, filename });
    this.addEventListener('loadend', () =>
      record({
        kind: 'answered',
        method: t.method,
        path: t.url.pathname,
        offset: Number(this.getResponseHeader('Upload-Offset') ?? NaN),
        status: this.status,
        location: this.getResponseHeader('Location') ?? undefined,
        filename,
        body: this.status >= 400 ? this.responseText : undefined,
      }),
    );
    // The network lost past a file's first PATCH: a real refused connection.
    if (steer === 'cut-later' && later) {
      (open as (...a: unknown[]) => void).call(this, t.method, 'http://127.0.0.1:9/');
      return send.call(this, body);
    }
    const held = t.method === 'PATCH' && (steer === 'hold-all' || (steer === 'hold-later' && from > 0));
    if (!held) return send.call(this, body);
    waiting.push(() => {
      try {
        send.call(this, body);
      } catch {
        /* given up on by the page meanwhile */
      }
    });
  };
}

/** The page's upload requests from now on (tus-js-client's, steered and recorded in the page). */
async function pageTus(s: Step, steer: Steer = '') {
  await s.page.addInitScript(steerTus);
  await s.page.evaluate(steerTus);
  await s.page.evaluate(
    ([how]) => {
      sessionStorage.setItem('tus-steer', how!);
      sessionStorage.removeItem('tus-log');
    },
    [steer],
  );
  const log = async () =>
    s.page.evaluate(() => JSON.parse(sessionStorage.getItem('tus-log') ?? '[]')) as Promise<Sent[]>;
  /** What the page asked and was answered, by file name. */
  const seen = async () => {
    const all = await log();
    const where = new Map<string, string>();
    const created: string[] = [];
    const refused: { name: string; code: string; message: string }[] = [];
    const offsets = new Map<string, number>();
    const heads: { name: string; offset: number }[] = [];
    const patches: { name: string; from: number }[] = [];
    // A creation's answer is recorded at its loadend, after its first PATCH was sent: addresses first.
    for (const e of all) {
      if (e.method === 'POST' && e.kind === 'answered' && e.status === 201) {
        where.set(new URL(e.location!, s.base).pathname, e.filename!);
        created.push(e.filename!);
      }
    }
    for (const e of all) {
      if (e.method === 'POST' && e.kind === 'answered' && e.status! >= 400)
        refused.push({
          name: e.filename!,
          ...(JSON.parse(e.body!) as { error: { code: string; message: string } }).error,
        });
      const name = where.get(e.path);
      if (!name) continue;
      if (e.method === 'PATCH' && e.kind === 'sent') patches.push({ name, from: e.offset });
      if (e.method === 'PATCH' && e.kind === 'answered' && e.status === 204) offsets.set(name, e.offset);
      if (e.method === 'HEAD' && e.kind === 'answered' && e.status === 200) heads.push({ name, offset: e.offset });
    }
    return { where, created, refused, offsets, heads, patches };
  };
  return {
    seen,
    /** From now on, how the page's upload requests go (persists across reloads). */
    steer: (how: Steer) => s.page.evaluate((h) => sessionStorage.setItem('tus-steer', h), how),
    /** Held PATCHes go, and no more are held. */
    release: () => s.page.evaluate(() => (window as unknown as { tusSteer?: { release(): void } }).tusSteer?.release()),
  };
}

/** How many uploads the browser keeps for later (IndexedDB, ui/src/upload/kept.ts). */
const keptCount = (s: Step) =>
  s.page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        const open = indexedDB.open('burrow-uploads');
        open.onsuccess = () => {
          const count = open.result.transaction('uploads').objectStore('uploads').count();
          count.onsuccess = () => resolve(count.result);
        };
      }),
  );

/** How many of them the browser keeps as failed (with their reason). */
const keptFailed = (s: Step) =>
  s.page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        const open = indexedDB.open('burrow-uploads');
        open.onsuccess = () => {
          const all = open.result.transaction('uploads').objectStore('uploads').getAll();
          all.onsuccess = () => resolve((all.result as { failed?: unknown }[]).filter((k) => k.failed).length);
        };
      }),
  );

const row = (s: Step, name: string) => s.page.locator('.tray li.upload').filter({ hasText: name });

j.step(
  'three photos queued, the page reloaded in the middle of the second: all three land byte for byte',
  async (s) => {
    const files = [
      { name: 'Strand – Zoë & Ben #1.jpg', bytes: randomBytes(12 * MiB) },
      { name: 'Sonnenuntergang 100% 🌅.jpg', bytes: randomBytes(12 * MiB) },
      { name: `${'Großmutters 90. Geburtstag – “die Torte”'.normalize('NFD')}.jpg`, bytes: randomBytes(12 * MiB) },
    ];
    await s.goto(filesAddress(HOME, W.inbox));
    await s.folder(`${HOME}/${W.inbox}`);
    // Each photo's second PATCH held (a network that stalls): the reload falls in the middle of
    // every file. After it, every PATCH: the uploads are running when the network goes.
    const tus = await pageTus(s, 'hold-later');
    try {
      await s.upload(files.map((f) => onDisk(f.name, f.bytes)));
      await s.eventually('each photo’s first PATCH answered and its second sent', async () => {
        const { offsets, patches } = await tus.seen();
        return files.every(
          (f) => offsets.get(f.name) === 8 * MiB && patches.some((p) => p.name === f.name && p.from > 0),
        );
      });
      await tus.steer('hold-all');
      await s.page.reload();
      // The page takes the queue up again by itself, each from the server's offset.
      await s.page.getByText('Going on with 3 uploads from before').waitFor();
      await s.eventually('each photo asked where to go on and sent on from there', async () => {
        const { heads, patches } = await tus.seen();
        return files.every(
          (f) =>
            heads.some((h) => h.name === f.name && h.offset === 8 * MiB) &&
            patches.filter((p) => p.name === f.name && p.from === 8 * MiB).length === 2,
        );
      });
      // Offline: the tray says so for each; back online, they go on.
      await s.context.setOffline(true);
      for (const f of files) await row(s, f.name).getByText('Offline: it goes on when the network is back.').waitFor();
      await tus.steer('');
      await s.context.setOffline(false);
      for (const f of files) {
        await s.eventually(`${f.name} on disk`, () => s.exists(`${W.inbox}/${f.name}`), 60_000);
        await s.eventually(
          `${f.name} whole`,
          () => fs.statSync(s.disk(`${W.inbox}/${f.name}`)).size === f.bytes.length,
        );
        assert.is(sha(fs.readFileSync(s.disk(`${W.inbox}/${f.name}`))), sha(f.bytes), `${f.name} byte for byte`);
      }
      // Resumed, not sent again: one upload made per photo, each sent from the start once.
      const { created, patches } = await tus.seen();
      assert.equal([...created].sort(), files.map((f) => f.name).sort(), `one upload each: ${JSON.stringify(created)}`);
      for (const f of files)
        assert.is(
          patches.filter((p) => p.name === f.name && p.from === 0).length,
          1,
          `${f.name} sent from the start once`,
        );
      assert.equal(partFiles(s), [], 'no part file left');
      // Nothing is kept in the browser once they are done.
      await s.eventually('the kept queue emptied', async () => (await keptCount(s)) === 0);
    } finally {
      await tus.steer('');
      await s.context.setOffline(false);
    }
  },
);

j.step(
  'uploads the network lost past their retries stay failed across a reload: Retry goes on from the server’s offset, Remove leaves nothing',
  async (s) => {
    const film = {
      name: `${'Zoë’s Geburtstag – "die Überraschung" 🎉'.normalize('NFD')}.mov`,
      bytes: randomBytes(24 * MiB),
    };
    const other = { name: "Hochzeit Jana & Luis #2 – 'der Tanz' 💍.mp4", bytes: randomBytes(24 * MiB) };
    const both = [film, other];
    await s.goto(filesAddress(HOME, 'Videos'));
    await s.folder(`${HOME}/Videos`);
    // The network goes after the first PATCH of each while the page believes it is online (a
    // router that lost its line): every later request of the uploads is refused a connection,
    // the browser's retries run out.
    const tus = await pageTus(s, 'cut-later');
    try {
      await s.upload(both.map((f) => onDisk(f.name, f.bytes)));
      for (const f of both) {
        await row(s, f.name).getByText('failed', { exact: true }).waitFor({ timeout: 60_000 });
        await row(s, f.name).getByRole('alert').getByText('The server cannot be reached.').waitFor();
      }
      // The server holds what reached it of each: its first PATCH.
      const held = partFiles(s);
      assert.is(held.length, 2, `a part file of each: ${JSON.stringify(held)}`);
      assert.ok(
        held.every((p) => fs.statSync(p).size === 8 * MiB),
        'the first PATCH of each on the disk',
      );

      await s.eventually('both kept failed in the browser', async () => (await keptFailed(s)) === 2);
      // The network is back; the next page shows both failed with their reason, says so, and
      // takes neither up again by itself.
      await tus.steer('');
      const before = await tus.seen();
      await s.page.reload();
      await s.page.getByText('2 uploads from before failed: Retry or Remove them in the uploads list').waitFor();
      for (const f of both) {
        await row(s, f.name).getByText('failed', { exact: true }).waitFor();
        await row(s, f.name).getByRole('alert').getByText('The server cannot be reached.').waitFor();
      }
      assert.is(await s.page.getByText(/Going on with/).count(), 0, 'nothing goes on by itself');
      const untouched = await tus.seen();
      assert.equal(untouched.patches, before.patches, 'no byte sent by itself');
      assert.equal(untouched.heads, before.heads, 'the server not asked by itself');

      // Remove ends the server's upload of it: its part file goes, nothing lands.
      await s.tap(row(s, other.name).getByRole('button', { name: 'Remove' }));
      await row(s, other.name).waitFor({ state: 'detached' });
      await s.eventually('the removed upload’s part file gone', () => partFiles(s).length === 1);
      // Retry goes on from where the server stopped.
      await s.tap(row(s, film.name).getByRole('button', { name: 'Retry' }));
      await row(s, film.name).getByText('done', { exact: true }).waitFor({ timeout: 30_000 });
      assert.is(sha(fs.readFileSync(s.disk(`Videos/${film.name}`))), sha(film.bytes), 'the film byte for byte');
      assert.not.ok(s.exists(`Videos/${other.name}`), 'the removed one did not land');
      const { created, heads, patches } = await tus.seen();
      assert.equal([...created].sort(), both.map((f) => f.name).sort(), `one upload each: ${JSON.stringify(created)}`);
      const asked = heads.filter((h) => h.name === film.name).at(-1);
      assert.is(asked?.offset, 8 * MiB, `Retry asked the server where to go on: ${JSON.stringify(heads)}`);
      const after = patches.slice(before.patches.length).filter((p) => p.name === film.name);
      assert.is(after[0]?.from, 8 * MiB, `the next PATCH began there: ${JSON.stringify(after)}`);
      assert.is(patches.filter((p) => p.name === film.name && p.from === 0).length, 1, 'sent from the start once');
      assert.equal(partFiles(s), [], 'no part file left');

      // Neither comes back on the next page: the done one and the removed one are forgotten.
      await s.eventually('the kept queue emptied', async () => (await keptCount(s)) === 0);
      await s.page.reload();
      await s.folder(`${HOME}/Videos`);
      assert.is(await row(s, other.name).count(), 0, 'the removed upload not back');
    } finally {
      await tus.steer('');
    }
  },
);

j.step(
  'the folder moved away while a photo was uploading: its reason stays across a reload, and Retry places it without sending it again',
  async (s) => {
    const folder = 'Fotos – Sommerfest „2025“ & Grillen';
    const photo = {
      name: `${'Omas 80. – "Alle zusammen" im Café 🎂'.normalize('NFD')}.jpg`,
      bytes: randomBytes(16 * MiB),
    };
    fs.mkdirSync(s.disk(folder));
    await s.goto(filesAddress(HOME, folder));
    await s.folder(`${HOME}/${folder}`);
    const tus = await pageTus(s, 'hold-later');
    try {
      await s.upload([onDisk(photo.name, photo.bytes)]);
      await s.eventually('its first PATCH answered, its last sent', async () => {
        const { offsets, patches } = await tus.seen();
        return offsets.get(photo.name) === 8 * MiB && patches.some((p) => p.name === photo.name && p.from > 0);
      });
      // Another device moves the folder away before the last byte arrives: the server holds the
      // whole upload and cannot place it.
      fs.renameSync(s.disk(folder), s.disk(`${folder} (alt)`));
      await tus.release();
      const reason = 'The upload is complete but could not be placed: the destination folder no longer exists.';
      await row(s, photo.name).getByText('failed', { exact: true }).waitFor({ timeout: 30_000 });
      await row(s, photo.name).getByRole('alert').getByText(reason).waitFor();
      assert.is((await tus.seen()).offsets.get(photo.name), 8 * MiB, 'the last PATCH was refused');
      await s.eventually('kept failed in the browser', async () => (await keptFailed(s)) === 1);

      await s.page.reload();
      await s.page.getByText('An upload from before failed: Retry or Remove it in the uploads list').waitFor();
      await row(s, photo.name).getByRole('alert').getByText(reason).waitFor();
      // The folder is back; Retry asks the server, which places what it holds: nothing is sent again.
      fs.renameSync(s.disk(`${folder} (alt)`), s.disk(folder));
      const before = (await tus.seen()).patches.length;
      await s.tap(row(s, photo.name).getByRole('button', { name: 'Retry' }));
      await row(s, photo.name).getByText('done', { exact: true }).waitFor({ timeout: 30_000 });
      assert.is(sha(fs.readFileSync(s.disk(`${folder}/${photo.name}`))), sha(photo.bytes), 'the photo byte for byte');
      const { created, patches } = await tus.seen();
      assert.equal(patches.slice(before), [], 'no byte sent again');
      assert.equal(created, [photo.name], 'one upload');
      assert.equal(partFiles(s), [], 'no part file left');
      await s.eventually('the kept queue emptied', async () => (await keptCount(s)) === 0);
    } finally {
      await tus.release();
    }
  },
);

j.step(
  'the page left while offline: Background Sync wakes the service worker once the network is back, and it goes on with the upload',
  async (s) => {
    const film = {
      name: `${'Ausflug an den Königssee – "mit Opa" 🚣'.normalize('NFD')}.mp4`,
      bytes: randomBytes(24 * MiB),
    };
    await s.goto(filesAddress(HOME, W.inbox));
    await s.folder(`${HOME}/${W.inbox}`);
    await s.eventually('the page in the service worker’s hands', () =>
      s.page.evaluate(() => navigator.serviceWorker.controller !== null),
    );
    // Its second PATCH held (a network about to go): the page is mid-file when it goes.
    const page = await pageTus(s, 'hold-later');
    // What the service worker asks the server (its fetches are its own, which DevTools reports).
    const worker = watchTus(s.context, 'worker');
    try {
      await s.upload([onDisk(film.name, film.bytes)]);
      await s.eventually('its first PATCH answered and its second sent', async () => {
        const { offsets, patches } = await page.seen();
        return offsets.get(film.name) === 8 * MiB && patches.some((p) => p.name === film.name && p.from > 0);
      });
      const made = await page.seen();
      assert.equal(made.created, [film.name], 'one upload made by the page');
      worker.know(made.where);
      await s.context.setOffline(true);
      await row(s, film.name).getByText('Offline: it goes on when the network is back.').waitFor();
      // A sync the browser fired before it knew of the lost network was spent while the page was
      // still offline: the page registered it again rather than going on (it would only fail).
      await s.eventually('a sync registered for when the network is back', async () => {
        const tags = await s.page.evaluate(async () => {
          const reg = (await navigator.serviceWorker.ready) as ServiceWorkerRegistration & {
            sync: { getTags(): Promise<string[]> };
          };
          return reg.sync.getTags();
        });
        return tags.length === 1 && tags[0] === 'burrow-uploads';
      });
      await row(s, film.name).getByText('Offline: it goes on when the network is back.').waitFor();
      // The person leaves Burrow (the tab goes elsewhere); then the network comes back, and the
      // browser wakes the service worker, with no Burrow page open.
      await page.steer('');
      await s.page.goto('about:blank');
      await s.context.setOffline(false);
      await s.eventually(
        'the film on disk, whole',
        () =>
          s.exists(`${W.inbox}/${film.name}`) &&
          fs.statSync(s.disk(`${W.inbox}/${film.name}`)).size === film.bytes.length,
        60_000,
      );
      assert.is(sha(fs.readFileSync(s.disk(`${W.inbox}/${film.name}`))), sha(film.bytes), 'the film byte for byte');
      // The worker went on with the page's upload: asked the server where, and sent the rest.
      assert.equal(worker.created, [], `no upload made again: ${JSON.stringify(worker.created)}`);
      const asked = worker.heads.filter((h) => h.name === film.name).at(-1);
      assert.is(asked?.offset, 8 * MiB, `asked the server where to go on: ${JSON.stringify(worker.heads)}`);
      assert.is(worker.patches[0]?.from, 8 * MiB, `sent on from there: ${JSON.stringify(worker.patches)}`);
      assert.equal(partFiles(s), [], 'no part file left');
      // Nothing is left for the next page to take up again.
      await s.goto(filesAddress(HOME, W.inbox));
      await s.entry(film.name);
      await s.eventually('the kept queue emptied', async () => (await keptCount(s)) === 0);
      assert.is(await s.page.getByText(/Going on with/).count(), 0, 'nothing taken up again');
    } finally {
      worker.stop();
      await s.context.setOffline(false);
    }
  },
);

j.step(
  'over the volume’s quota: the upload is refused with the server’s reason and kept, nothing is left on the server; with room again, Retry lands it',
  async (s) => {
    const folder = 'Fotos – Jonas & Mia #7';
    const photo = {
      name: `${'Zoë & Jürgen – „die Hochzeitstorte“ #3 🎂'.normalize('NFD')}.jpg`,
      bytes: randomBytes(12 * MiB),
    };
    fs.mkdirSync(s.disk(folder));
    const home = async () =>
      (
        (await s.api('GET', '/api/admin/quotas')).json as {
          volumes: { volume: string; measured: boolean; usedBytes: number }[];
        }
      ).volumes.find((v) => v.volume === 'Home');
    await s.eventually(
      'the Home volume measured by the folder-size index',
      async () => (await home())?.measured === true,
      60_000,
    );
    try {
      // Nearly full: room for 4 MiB more.
      const set = await s.api('PUT', '/api/admin/quotas/volumes/Home', {
        limitBytes: (await home())!.usedBytes + 4 * MiB,
      });
      assert.is(set.status, 200, set.text);
      await s.goto(filesAddress(HOME, folder));
      await s.folder(`${HOME}/${folder}`);
      const tus = await pageTus(s);
      await s.upload([onDisk(photo.name, photo.bytes)]);
      await row(s, photo.name).getByText('failed', { exact: true }).waitFor({ timeout: 30_000 });
      const { refused, created, patches } = await tus.seen();
      assert.is(refused.length, 1, `refused once, not tried again: ${JSON.stringify(refused)}`);
      const refusal = refused[0]!;
      assert.is(refusal.name, photo.name);
      assert.is(refusal.code, 'QUOTA_EXCEEDED');
      const reason = `Over quota: ${refusal.message}`;
      await row(s, photo.name).getByRole('alert').getByText(reason).waitFor();
      // Refused before a byte: nothing made, nothing on the disk; the browser keeps it.
      assert.equal(created, [], 'no upload made');
      assert.equal(patches, [], 'no byte sent');
      assert.equal(partFiles(s), [], 'no part file');
      assert.equal(fs.readdirSync(s.disk(folder)), [], 'nothing in the folder');
      await s.eventually('kept failed in the browser', async () => (await keptFailed(s)) === 1);
      assert.is(await keptCount(s), 1, 'kept in the browser');

      await s.page.reload();
      await s.page.getByText('An upload from before failed: Retry or Remove it in the uploads list').waitFor();
      await row(s, photo.name).getByRole('alert').getByText(reason).waitFor();
      // Room again (the administrator lifts the quota): Retry sends it.
      const lifted = await s.api('PUT', '/api/admin/quotas/volumes/Home', { limitBytes: null });
      assert.is(lifted.status, 200, lifted.text);
      await s.tap(row(s, photo.name).getByRole('button', { name: 'Retry' }));
      await row(s, photo.name).getByText('done', { exact: true }).waitFor({ timeout: 30_000 });
      assert.is(sha(fs.readFileSync(s.disk(`${folder}/${photo.name}`))), sha(photo.bytes), 'the photo byte for byte');
      assert.equal((await tus.seen()).created, [photo.name], 'one upload');
      assert.equal(partFiles(s), [], 'no part file left');
      await s.eventually('the kept queue emptied', async () => (await keptCount(s)) === 0);
    } finally {
      await s.api('PUT', '/api/admin/quotas/volumes/Home', { limitBytes: null });
    }
  },
);

j.step('the screen is held on while an upload runs, and let go once it is done', async (s) => {
  const film = { name: `${'Kinderfest – „Löwenzahn & Co.“ #4 🦁'.normalize('NFD')}.mp4`, bytes: randomBytes(16 * MiB) };
  // The page's screen wake locks, as the browser hands them out (WakeLockSentinel.released is the browser's).
  await s.page.addInitScript(() => {
    const held: WakeLockSentinel[] = [];
    (window as unknown as { wakeLocks: WakeLockSentinel[] }).wakeLocks = held;
    const request = WakeLock.prototype.request;
    WakeLock.prototype.request = async function (this: WakeLock, type?: 'screen') {
      const lock = await request.call(this, type);
      held.push(lock);
      return lock;
    };
  });
  const locks = () =>
    s.page.evaluate(() =>
      (window as unknown as { wakeLocks: WakeLockSentinel[] }).wakeLocks.map((l) => ({
        type: l.type,
        released: l.released,
      })),
    );
  await s.goto(filesAddress(HOME, W.inbox));
  await s.folder(`${HOME}/${W.inbox}`);
  // Its second PATCH held: the upload runs for as long as the step looks.
  const tus = await pageTus(s, 'hold-later');
  try {
    assert.equal(await locks(), [], 'no wake lock before an upload');
    await s.upload([onDisk(film.name, film.bytes)]);
    await s.eventually('its second PATCH sent', async () =>
      (await tus.seen()).patches.some((p) => p.name === film.name && p.from > 0),
    );
    await s.eventually('the screen held on while it runs', async () => {
      const now = await locks();
      return now.length === 1 && now[0]!.type === 'screen' && !now[0]!.released;
    });
    await tus.release();
    await row(s, film.name).getByText('done', { exact: true }).waitFor({ timeout: 30_000 });
    await s.eventually('the screen let go once it is done', async () => (await locks()).every((l) => l.released));
    assert.is((await locks()).length, 1, 'one wake lock for the upload');
    assert.is(sha(fs.readFileSync(s.disk(`${W.inbox}/${film.name}`))), sha(film.bytes), 'the film byte for byte');
  } finally {
    await tus.release();
  }
});

j.run();

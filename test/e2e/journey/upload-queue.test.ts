// An upload queue that survives: three photos queued from a phone, the page reloaded while the
// second is half sent — the page takes the queue up again from the browser's own storage
// (IndexedDB), each upload goes on by TUS from where the server stopped (no upload made a second
// time), and all three land byte for byte (SHA-256 of the files on the server's disk). Offline,
// the tray says so instead of spinning, and the uploads go on when the network is back. An
// upload that failed (the network gone past its retries, the folder gone when the last byte came)
// stays in the list across a reload with its reason: Retry goes on from what the server holds,
// Remove ends it and leaves nothing behind. The browser's bandwidth is held low (DevTools network
// emulation) so the reload falls mid-file.
import crypto, { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import * as assert from 'uvu/assert';
import type { CDPSession, Page, Request, Response, Route } from 'playwright-core';
import { HOME, W, filesAddress, journey, onDisk, partFiles, type Step } from './harness.ts';

const j = journey(import.meta.url, { env: { UPLOAD_CHUNKED_ENABLED: 'true' } });
const MiB = 1024 * 1024;
const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

/** What the page asked the server's TUS routes and what it answered, by file name. */
function watchTus(page: Page) {
  // Which upload address is which file (its creation's metadata).
  const where = new Map<string, string>();
  const created: string[] = [];
  /** The offset each file's last answered PATCH reached. */
  const offsets = new Map<string, number>();
  const heads: { name: string; offset: number }[] = [];
  /** Every PATCH sent, in order, with the offset it began at. */
  const patches: { name: string; from: number }[] = [];
  const nameOf = (req: Request) => {
    const meta = req.headers()['upload-metadata'] ?? '';
    const pair = meta.split(',').find((p) => p.trim().startsWith('filename '));
    return pair ? Buffer.from(pair.trim().split(' ')[1]!, 'base64').toString('utf8') : '';
  };
  const isTus = (req: Request) => new URL(req.url()).pathname.startsWith('/api/upload/tus');
  const sent = (req: Request) => {
    const name = where.get(new URL(req.url()).pathname);
    if (name && req.method() === 'PATCH') patches.push({ name, from: Number(req.headers()['upload-offset']) });
  };
  const seen = (r: Response) => {
    const req = r.request();
    if (!isTus(req)) return;
    const url = new URL(req.url());
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
    created,
    offsets,
    heads,
    patches,
    stop() {
      page.off('request', sent);
      page.off('response', seen);
    },
  };
}

const sessions = new WeakMap<Page, CDPSession>();
/** The page's upload bandwidth held at `bytesPerSecond` (-1: unlimited), by DevTools network emulation. */
async function limitUpload(s: Step, bytesPerSecond: number): Promise<void> {
  // One DevTools session per page, so a later limit replaces the earlier one.
  let cdp = sessions.get(s.page);
  if (!cdp) {
    cdp = await s.context.newCDPSession(s.page);
    await cdp.send('Network.enable');
    sessions.set(s.page, cdp);
  }
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: bytesPerSecond,
  });
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

const row = (s: Step, name: string) => s.page.locator('.tray li.upload').filter({ hasText: name });

j.step(
  'three photos queued, the page reloaded in the middle of the second: all three land byte for byte',
  async (s) => {
    const files = [
      { name: 'Strand – Zoë & Ben #1.jpg', bytes: randomBytes(12 * MiB) },
      { name: 'Sonnenuntergang 100% 🌅.jpg', bytes: randomBytes(12 * MiB) },
      { name: `${'Großmutters 90. Geburtstag – “die Torte”'.normalize('NFD')}.jpg`, bytes: randomBytes(12 * MiB) },
    ];
    const tus = watchTus(s.page);
    const { created, offsets, heads } = tus;
    const throttle = (bytesPerSecond: number) => limitUpload(s, bytesPerSecond);
    try {
      await s.goto(filesAddress(HOME, W.inbox));
      await s.folder(`${HOME}/${W.inbox}`);
      await throttle(6 * MiB);
      await s.upload(files.map((f) => onDisk(f.name, f.bytes)));
      const second = files[1]!.name;
      await s.eventually('the second photo half sent (its first PATCH answered)', () => {
        const at = offsets.get(second) ?? 0;
        return at > 0 && at < files[1]!.bytes.length;
      });
      await s.page.reload();
      // The page takes the queue up again by itself.
      await s.page.getByText(/Going on with \d uploads? from before/).waitFor();
      await throttle(4 * MiB);
      await row(s, files[2]!.name).waitFor();
      // Offline: the tray says so; back online, they go on.
      await s.context.setOffline(true);
      await s.page.getByText('Offline: it goes on when the network is back.').first().waitFor();
      await s.context.setOffline(false);
      await throttle(-1);
      for (const f of files) {
        await s.eventually(`${f.name} on disk`, () => s.exists(`${W.inbox}/${f.name}`));
        await s.eventually(
          `${f.name} whole`,
          () => fs.statSync(s.disk(`${W.inbox}/${f.name}`)).size === f.bytes.length,
        );
        assert.is(sha(fs.readFileSync(s.disk(`${W.inbox}/${f.name}`))), sha(f.bytes), `${f.name} byte for byte`);
      }
      // Resumed, not sent again: one upload made per photo, the second asked where to go on and was
      // told at least the PATCH the server had answered before the reload.
      assert.equal([...created].sort(), files.map((f) => f.name).sort(), `one upload each: ${JSON.stringify(created)}`);
      const resumed = heads.find((h) => h.name === second);
      assert.ok(resumed && resumed.offset > 0, `the second went on from the server's offset: ${JSON.stringify(heads)}`);
      // Nothing is kept in the browser once they are done.
      await s.eventually('the kept queue emptied', async () => (await keptCount(s)) === 0);
    } finally {
      tus.stop();
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
    const tus = watchTus(s.page);
    // The network goes while the page believes it is online (a router that lost its line): every
    // request to the upload routes fails, the browser's retries run out.
    const cut = (route: Route) => route.abort('internetdisconnected');
    try {
      await s.goto(filesAddress(HOME, 'Videos'));
      await s.folder(`${HOME}/Videos`);
      await limitUpload(s, 4 * MiB);
      await s.upload(both.map((f) => onDisk(f.name, f.bytes)));
      await s.eventually('a PATCH of each answered', () => both.every((f) => (tus.offsets.get(f.name) ?? 0) > 0));
      await s.page.route('**/api/upload/tus/**', cut);
      for (const f of both) {
        await row(s, f.name).getByText('failed', { exact: true }).waitFor({ timeout: 30_000 });
        await row(s, f.name).getByRole('alert').getByText('The server cannot be reached.').waitFor();
      }
      // The server holds what reached it of each.
      const held = partFiles(s);
      assert.is(held.length, 2, `a part file of each: ${JSON.stringify(held)}`);
      assert.ok(
        held.every((p) => fs.statSync(p).size >= 8 * MiB),
        'at least the first PATCH of each on the disk',
      );

      await s.page.reload();
      for (const f of both) {
        await row(s, f.name).getByText('failed', { exact: true }).waitFor();
        await row(s, f.name).getByRole('alert').getByText('The server cannot be reached.').waitFor();
      }
      assert.is(await s.page.getByText(/Going on with/).count(), 0, 'nothing goes on by itself');
      await s.page.unroute('**/api/upload/tus/**', cut);
      await limitUpload(s, -1);

      // Remove ends the server's upload of it: its part file goes, nothing lands.
      await s.tap(row(s, other.name).getByRole('button', { name: 'Remove' }));
      await row(s, other.name).waitFor({ state: 'detached' });
      await s.eventually('the removed upload’s part file gone', () => partFiles(s).length === 1);
      // Retry goes on from where the server stopped.
      const before = tus.patches.length;
      await s.tap(row(s, film.name).getByRole('button', { name: 'Retry' }));
      await row(s, film.name).getByText('done', { exact: true }).waitFor({ timeout: 30_000 });
      assert.is(sha(fs.readFileSync(s.disk(`Videos/${film.name}`))), sha(film.bytes), 'the film byte for byte');
      assert.not.ok(s.exists(`Videos/${other.name}`), 'the removed one did not land');
      assert.equal(
        [...tus.created].sort(),
        both.map((f) => f.name).sort(),
        `one upload each: ${JSON.stringify(tus.created)}`,
      );
      const asked = tus.heads.filter((h) => h.name === film.name).at(-1);
      assert.ok(
        asked && asked.offset >= 8 * MiB,
        `Retry asked the server where to go on: ${JSON.stringify(tus.heads)}`,
      );
      const after = tus.patches.slice(before).filter((p) => p.name === film.name);
      assert.is(after[0]?.from, asked.offset, `the next PATCH began there: ${JSON.stringify(after)}`);
      assert.is(tus.patches.filter((p) => p.name === film.name && p.from === 0).length, 1, 'sent from the start once');
      assert.equal(partFiles(s), [], 'no part file left');

      // Neither comes back on the next page: the done one and the removed one are forgotten.
      await s.eventually('the kept queue emptied', async () => (await keptCount(s)) === 0);
      await s.page.reload();
      await s.folder(`${HOME}/Videos`);
      assert.is(await row(s, other.name).count(), 0, 'the removed upload not back');
    } finally {
      tus.stop();
      await s.page.unroute('**/api/upload/tus/**', cut);
      await limitUpload(s, -1);
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
    const tus = watchTus(s.page);
    try {
      await s.goto(filesAddress(HOME, folder));
      await s.folder(`${HOME}/${folder}`);
      await limitUpload(s, 2 * MiB);
      await s.upload([onDisk(photo.name, photo.bytes)]);
      await s.eventually('its first PATCH answered', () => (tus.offsets.get(photo.name) ?? 0) > 0);
      // Another device moves the folder away before the last byte arrives: the server holds the
      // whole upload and cannot place it.
      fs.renameSync(s.disk(folder), s.disk(`${folder} (alt)`));
      const reason = 'The upload is complete but could not be placed: the destination folder no longer exists.';
      await row(s, photo.name).getByText('failed', { exact: true }).waitFor({ timeout: 30_000 });
      await row(s, photo.name).getByRole('alert').getByText(reason).waitFor();
      assert.is(tus.offsets.get(photo.name) ?? 0, 8 * MiB, 'the last PATCH was refused');

      await s.page.reload();
      await row(s, photo.name).getByRole('alert').getByText(reason).waitFor();
      // The folder is back; Retry asks the server, which places what it holds: nothing is sent again.
      fs.renameSync(s.disk(`${folder} (alt)`), s.disk(folder));
      const before = tus.patches.length;
      await s.tap(row(s, photo.name).getByRole('button', { name: 'Retry' }));
      await row(s, photo.name).getByText('done', { exact: true }).waitFor({ timeout: 30_000 });
      assert.is(sha(fs.readFileSync(s.disk(`${folder}/${photo.name}`))), sha(photo.bytes), 'the photo byte for byte');
      assert.equal(tus.patches.slice(before), [], 'no byte sent again');
      assert.equal(tus.created, [photo.name], 'one upload');
      assert.equal(partFiles(s), [], 'no part file left');
      await s.eventually('the kept queue emptied', async () => (await keptCount(s)) === 0);
    } finally {
      tus.stop();
      await limitUpload(s, -1);
    }
  },
);

j.run();

// An upload queue that survives: three photos queued from a phone, the page reloaded while they
// are half sent — the page takes the queue up again from the browser's own storage (IndexedDB),
// each upload goes on by TUS from where the server stopped (no upload made a second time), and all
// three land byte for byte (SHA-256 of the files on the server's disk). Offline, the tray says so
// instead of spinning, and the uploads go on when the network is back. An upload that failed (the
// network gone past its retries, the folder gone when the last byte came) stays in the list across
// a reload with its reason: Retry goes on from what the server holds, Remove ends it and leaves
// nothing behind. Where the browser has Background Sync, a page left while offline is not needed:
// once the network is back the browser wakes the service worker, which goes on with the upload
// from the server's offset. Over a quota, an upload is refused before a byte with the server's
// reason and kept. The screen is held on while uploads run.
//
// Each step is a browser of its own (a fresh context: its own service worker, IndexedDB and
// session) in a folder of its own, reaching the server through a network gate of its own
// (gate.ts: a proxy the step holds in its hands — the page is under its service worker's
// control, whose requests pass DevTools' routes and throttling by). What must fall mid-file (a
// reload, a lost network, a folder moved away) falls while the gate holds a PATCH unanswered;
// every wait is for what the server answered, what is on its disk, or what the page shows —
// never for time passing.
import crypto, { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import * as assert from 'uvu/assert';
import type { BrowserContext, Page } from 'playwright-core';
import { HOME, cssString, filesAddress, journey, onDisk, partFiles, type Step } from './harness.ts';
import { waitFor } from '../../support/wait.ts';
import { controlled, networkGate, type Asked, type Decision, type NetworkGate } from './gate.ts';

// Quotas are measured by the folder-size index, which needs folder sizes in full mode.
const j = journey(import.meta.url, { env: { UPLOAD_CHUNKED_ENABLED: 'true', FOLDER_SIZE_MODE: 'full' } });
const MiB = 1024 * 1024;
const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');
const OFFLINE = 'Offline: it goes on when the network is back.';

/** Every PATCH past a file's first (a network that stalls once the upload is under way). */
const later = (r: Asked) => r.method === 'PATCH' && r.from > 0;
const holdLater = (r: Asked): Decision => (later(r) ? 'hold' : 'pass');

interface Tab {
  context: BrowserContext;
  page: Page;
  gate: NetworkGate;
  /** The folder this step works in: its path under the Home volume. */
  folder: string;
  /** Waits for the folder's view. */
  shown(): Promise<void>;
  upload(files: { name: string; bytes: Buffer }[]): Promise<void>;
  row(name: string): ReturnType<Page['locator']>;
  /** How many uploads the browser keeps for later (IndexedDB, ui/src/upload/kept.ts), and how many failed. */
  kept(): Promise<{ all: number; failed: number }>;
  /** Part files on the server of this step's uploads. */
  parts(): string[];
  /** The page threw nothing. */
  fine(): void;
  close(): Promise<void>;
}

/**
 * A browser of the step's own, signed in, showing a new folder of its own (made on the disk), its
 * page under its service worker's control, every request through a gate of its own.
 */
async function tab(s: Step, folder: string, init?: () => void): Promise<Tab> {
  fs.mkdirSync(s.disk(folder), { recursive: true });
  const gate = await networkGate(s.server.url);
  const { context, page, problems } = await s.anonymous();
  const address = `${gate.address}${filesAddress(HOME, folder)}`;
  const region = () => t.page.getByRole('region', { name: `Folder ${HOME}/${folder}`, exact: true });
  const counted = () =>
    t.page.evaluate(
      () =>
        new Promise<{ all: number; failed: number }>((resolve, reject) => {
          const open = indexedDB.open('burrow-uploads');
          open.onerror = () => reject(open.error);
          open.onsuccess = () => {
            const all = open.result.transaction('uploads').objectStore('uploads').getAll();
            all.onsuccess = () => {
              const kept = all.result as { failed?: unknown }[];
              resolve({ all: kept.length, failed: kept.filter((k) => k.failed).length });
              open.result.close();
            };
          };
        }),
    );
  const t: Tab = {
    context,
    page,
    gate,
    folder,
    shown: async () => void (await region().waitFor()),
    async upload(files) {
      const chooser = t.page.waitForEvent('filechooser');
      await s.tap(
        t.page.getByRole('toolbar', { name: 'Folder actions' }).getByRole('button', { name: 'Upload', exact: true }),
      );
      await (await chooser).setFiles(files.map((f) => onDisk(f.name, f.bytes)));
    },
    row: (name) => t.page.locator('.tray li.upload').filter({ hasText: name }),
    kept: counted,
    parts: () => {
      const ids = gate.tus().ids;
      return partFiles(s).filter((p) => ids.some((id) => p.includes(id)));
    },
    fine() {
      const thrown = problems.filter((p) => p.startsWith('page error'));
      assert.equal(thrown, [], 'the page threw nothing');
    },
    async close() {
      await context.close().catch(() => undefined);
      await gate.close();
    },
  };
  try {
    if (init) await page.addInitScript(init);
    await page.goto(address, { waitUntil: 'domcontentloaded' });
    await s.signIn(page);
    await page.goto(address, { waitUntil: 'domcontentloaded' });
    await region().waitFor();
    await controlled(page);
  } catch (err) {
    // The gate's listening socket would keep the test process alive after the run.
    await t.close();
    throw err;
  }
  return t;
}

/**
 * Waits as s.eventually does; a failure says what the gate saw of the uploads, what it holds, the
 * tray's rows and the browser's Background Fetches.
 */
async function told(t: Tab, what: string, check: () => boolean): Promise<void> {
  try {
    await waitFor(check, { what, timeoutMs: 15_000 });
  } catch (err) {
    const asked = t.gate
      .tus()
      .all.map((e) => `${e.method} ${e.name ?? e.upload} from ${e.from} → ${e.status ?? '-'} ${e.offset ?? ''}`);
    const held = t.gate.held().map((h) => `${h.method} ${h.name} from ${h.from}`);
    const tray = await t.page
      .locator('.tray li.upload')
      .allInnerTexts()
      .catch((e: Error) => [e.message]);
    const fetches = await t.page
      .evaluate(async () => {
        const reg = (await navigator.serviceWorker.getRegistration()) as
          (ServiceWorkerRegistration & { backgroundFetch?: { getIds(): Promise<string[]> } }) | undefined;
        return (await reg?.backgroundFetch?.getIds()) ?? [];
      })
      .catch((e: Error) => [e.message]);
    throw new Error(
      `${(err as Error).message}\n  asked: ${asked.join(' | ')}\n  held: ${held.join(' | ')}\n  tray: ${tray.join(' | ')}\n  background fetches: ${fetches.join(' | ')}`,
    );
  }
}

/** The file as the server's disk holds it, whole and byte for byte. */
async function landed(s: Step, rel: string, bytes: Buffer, ms?: number): Promise<void> {
  await s.eventually(
    `${rel} on the disk, whole`,
    () => s.exists(rel) && fs.statSync(s.disk(rel)).size === bytes.length,
    ms,
  );
  assert.is(sha(fs.readFileSync(s.disk(rel))), sha(bytes), `${rel} byte for byte`);
}

j.step('three photos queued, the page reloaded in the middle of them: all three land byte for byte', async (s) => {
  const files = [
    { name: 'Strand – Zoë & Ben #1.jpg', bytes: randomBytes(12 * MiB) },
    { name: 'Sonnenuntergang 100% 🌅.jpg', bytes: randomBytes(12 * MiB) },
    { name: `${'Großmutters 90. Geburtstag – “die Torte”'.normalize('NFD')}.jpg`, bytes: randomBytes(12 * MiB) },
  ];
  const t = await tab(s, 'Urlaub an der Ostsee – Juli #1');
  try {
    // Each photo's second PATCH held (a network that stalls): the reload falls in the middle of
    // every file.
    t.gate.rule(holdLater);
    await t.upload(files);
    await s.eventually('each photo’s first PATCH answered and its second held', () => {
      const { offsets } = t.gate.tus();
      const held = t.gate.held();
      return files.every(
        (f) => offsets.get(f.name) === 8 * MiB && held.some((h) => h.name === f.name && h.from === 8 * MiB),
      );
    });
    await t.page.reload();
    // The page takes the queue up again by itself, each from the server's offset (told by a
    // HEAD), and its next PATCH is held again: the uploads are running when the network goes.
    await t.page.getByText('Going on with 3 uploads from before').waitFor();
    await told(t, 'each photo asked where to go on and sent on from there', () => {
      const { heads } = t.gate.tus();
      const held = t.gate.held();
      return files.every(
        (f) =>
          heads.some((h) => h.name === f.name && h.offset === 8 * MiB) &&
          held.some((h) => h.name === f.name && h.from === 8 * MiB),
      );
    });
    // Offline: the tray says so for each, and the page gives up its requests; back online,
    // they go on.
    await t.context.setOffline(true);
    for (const f of files) await t.row(f.name).getByText(OFFLINE).waitFor();
    await s.eventually('the offline page gave up its held PATCHes', () => t.gate.held().length === 0);
    t.gate.rule(() => 'pass');
    await t.context.setOffline(false);
    for (const f of files) await landed(s, `${t.folder}/${f.name}`, f.bytes, 60_000);
    // Resumed, not sent again: one upload made per photo, each sent from the start once.
    const { created, patches } = t.gate.tus();
    assert.equal([...created].sort(), files.map((f) => f.name).sort(), `one upload each: ${JSON.stringify(created)}`);
    for (const f of files)
      assert.is(
        patches.filter((p) => p.name === f.name && p.from === 0).length,
        1,
        `${f.name} sent from the start once`,
      );
    assert.equal(t.parts(), [], 'no part file left');
    // Nothing is kept in the browser once they are done.
    await s.eventually('the kept queue emptied', async () => (await t.kept()).all === 0);
    t.fine();
  } finally {
    await t.close();
  }
});

j.step(
  'uploads the network lost past their retries stay failed across a reload: Retry goes on from the server’s offset, Remove leaves nothing',
  async (s) => {
    const film = {
      name: `${'Zoë’s Geburtstag – "die Überraschung" 🎉'.normalize('NFD')}.mov`,
      bytes: randomBytes(24 * MiB),
    };
    const other = { name: "Hochzeit Jana & Luis #2 – 'der Tanz' 💍.mp4", bytes: randomBytes(24 * MiB) };
    const both = [film, other];
    const t = await tab(s, 'Filme – Familie & Freunde 2025');
    try {
      // The network goes after the first PATCH of each while the page believes it is online (a
      // router that lost its line): every later request of the uploads has its connection cut,
      // and the browser's retries run out.
      t.gate.rule((r) => (later(r) || (r.method === 'HEAD' && r.upload) ? 'cut' : 'pass'));
      await t.upload(both);
      for (const f of both) {
        await t.row(f.name).getByText('failed', { exact: true }).waitFor({ timeout: 90_000 });
        await t.row(f.name).getByRole('alert').getByText('The server cannot be reached.').waitFor();
      }
      // The server holds what reached it of each: its first PATCH.
      const held = t.parts();
      assert.is(held.length, 2, `a part file of each: ${JSON.stringify(held)}`);
      assert.ok(
        held.every((p) => fs.statSync(p).size === 8 * MiB),
        'the first PATCH of each on the disk',
      );
      await s.eventually('both kept failed in the browser', async () => (await t.kept()).failed === 2);

      // The network is back; the next page shows both failed with their reason, says so, and
      // takes neither up again by itself.
      t.gate.rule(() => 'pass');
      const before = t.gate.tus();
      await t.page.reload();
      await t.page.getByText('2 uploads from before failed: Retry or Remove them in the uploads list').waitFor();
      for (const f of both) {
        await t.row(f.name).getByText('failed', { exact: true }).waitFor();
        await t.row(f.name).getByRole('alert').getByText('The server cannot be reached.').waitFor();
      }
      assert.is(await t.page.getByText(/Going on with/).count(), 0, 'nothing goes on by itself');
      const untouched = t.gate.tus();
      assert.equal(untouched.patches, before.patches, 'no byte sent by itself');
      assert.equal(untouched.heads, before.heads, 'the server not asked by itself');

      // Remove ends the server's upload of it: its part file goes, nothing lands.
      await s.tap(t.row(other.name).getByRole('button', { name: 'Remove' }));
      await t.row(other.name).waitFor({ state: 'detached' });
      await s.eventually('the removed upload’s part file gone', () => t.parts().length === 1);
      // Retry goes on from where the server stopped.
      await s.tap(t.row(film.name).getByRole('button', { name: 'Retry' }));
      await t.row(film.name).getByText('done', { exact: true }).waitFor({ timeout: 60_000 });
      await landed(s, `${t.folder}/${film.name}`, film.bytes);
      assert.not.ok(s.exists(`${t.folder}/${other.name}`), 'the removed one did not land');
      const { created, heads, patches } = t.gate.tus();
      assert.equal([...created].sort(), both.map((f) => f.name).sort(), `one upload each: ${JSON.stringify(created)}`);
      const asked = heads.filter((h) => h.name === film.name).at(-1);
      assert.is(asked?.offset, 8 * MiB, `Retry asked the server where to go on: ${JSON.stringify(heads)}`);
      const after = patches.slice(before.patches.length).filter((p) => p.name === film.name);
      assert.is(after[0]?.from, 8 * MiB, `the next PATCH began there: ${JSON.stringify(after)}`);
      assert.is(patches.filter((p) => p.name === film.name && p.from === 0).length, 1, 'sent from the start once');
      assert.equal(t.parts(), [], 'no part file left');

      // Neither comes back on the next page: the done one and the removed one are forgotten.
      await s.eventually('the kept queue emptied', async () => (await t.kept()).all === 0);
      await t.page.reload();
      await t.shown();
      assert.is(await t.row(other.name).count(), 0, 'the removed upload not back');
      t.fine();
    } finally {
      await t.close();
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
    const t = await tab(s, folder);
    try {
      t.gate.rule(holdLater);
      await t.upload([photo]);
      await s.eventually(
        'its first PATCH answered, its last held',
        () =>
          t.gate.tus().offsets.get(photo.name) === 8 * MiB &&
          t.gate.held().some((h) => h.name === photo.name && h.from === 8 * MiB),
      );
      // Another device moves the folder away before the last byte arrives: the server holds the
      // whole upload and cannot place it.
      fs.renameSync(s.disk(folder), s.disk(`${folder} (alt)`));
      t.gate.rule(() => 'pass');
      const reason = 'The upload is complete but could not be placed: the destination folder no longer exists.';
      await t.row(photo.name).getByText('failed', { exact: true }).waitFor({ timeout: 60_000 });
      await t.row(photo.name).getByRole('alert').getByText(reason).waitFor();
      assert.is(t.gate.tus().offsets.get(photo.name), 8 * MiB, 'the last PATCH was refused');
      await s.eventually('kept failed in the browser', async () => (await t.kept()).failed === 1);

      await t.page.reload();
      await t.page.getByText('An upload from before failed: Retry or Remove it in the uploads list').waitFor();
      await t.row(photo.name).getByRole('alert').getByText(reason).waitFor();
      // The folder is back; Retry asks the server, which places what it holds: nothing is sent again.
      fs.renameSync(s.disk(`${folder} (alt)`), s.disk(folder));
      const before = t.gate.tus().patches.length;
      await s.tap(t.row(photo.name).getByRole('button', { name: 'Retry' }));
      await t.row(photo.name).getByText('done', { exact: true }).waitFor({ timeout: 60_000 });
      await landed(s, `${folder}/${photo.name}`, photo.bytes);
      const { created, patches } = t.gate.tus();
      assert.equal(patches.slice(before), [], 'no byte sent again');
      assert.equal(created, [photo.name], 'one upload');
      assert.equal(t.parts(), [], 'no part file left');
      await s.eventually('the kept queue emptied', async () => (await t.kept()).all === 0);
      t.fine();
    } finally {
      await t.close();
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
    const t = await tab(s, 'Ausflüge – Berge & Seen');
    try {
      // Its second PATCH held (a network about to go): the page is mid-file when it goes.
      t.gate.rule(holdLater);
      await t.upload([film]);
      await s.eventually(
        'its first PATCH answered and its second held',
        () =>
          t.gate.tus().offsets.get(film.name) === 8 * MiB &&
          t.gate.held().some((h) => h.name === film.name && h.from === 8 * MiB),
      );
      assert.equal(t.gate.tus().created, [film.name], 'one upload made by the page');
      await t.context.setOffline(true);
      await t.row(film.name).getByText(OFFLINE).waitFor();
      // A sync the browser fired before it knew of the lost network was spent while the page was
      // still offline: the page registered it again rather than going on (it would only fail).
      await s.eventually('a sync registered for when the network is back', async () => {
        const tags = await t.page.evaluate(async () => {
          const reg = (await navigator.serviceWorker.ready) as ServiceWorkerRegistration & {
            sync: { getTags(): Promise<string[]> };
          };
          return reg.sync.getTags();
        });
        return tags.length === 1 && tags[0] === 'burrow-uploads';
      });
      await t.row(film.name).getByText(OFFLINE).waitFor();
      await s.eventually('the offline page gave up its held PATCH', () => t.gate.held().length === 0);
      // The person closes the tab; then the network comes back, and the browser wakes the
      // service worker, with no Burrow page open. What reaches the server from here on is the
      // worker's.
      await t.page.close();
      const left = t.gate.tus().all.length;
      t.gate.rule(() => 'pass');
      await t.context.setOffline(false);
      await landed(s, `${t.folder}/${film.name}`, film.bytes, 90_000);
      // The worker went on with the page's upload: asked the server where, and sent the rest.
      const worker = t.gate.tus().all.slice(left);
      assert.equal(
        worker.filter((e) => e.method === 'POST'),
        [],
        `no upload made again: ${JSON.stringify(worker)}`,
      );
      const asked = worker.find((e) => e.method === 'HEAD' && e.status === 200);
      assert.is(asked?.name, film.name, `asked the server where to go on: ${JSON.stringify(worker)}`);
      assert.is(asked?.offset, 8 * MiB, `told where to go on: ${JSON.stringify(worker)}`);
      assert.is(
        worker.find((e) => e.method === 'PATCH')?.from,
        8 * MiB,
        `sent on from there: ${JSON.stringify(worker)}`,
      );
      assert.equal(t.parts(), [], 'no part file left');
      // Nothing is left for the next page to take up again.
      t.page = await t.context.newPage();
      await t.page.goto(`${t.gate.address}${filesAddress(HOME, t.folder)}`, { waitUntil: 'domcontentloaded' });
      await t.page.locator(`.entry[data-name=${cssString(film.name)}]`).waitFor();
      await s.eventually('the kept queue emptied', async () => (await t.kept()).all === 0);
      assert.is(await t.page.getByText(/Going on with/).count(), 0, 'nothing taken up again');
      t.fine();
    } finally {
      await t.context.setOffline(false).catch(() => undefined);
      await t.close();
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
    const home = async () =>
      (
        (await s.api('GET', '/api/admin/quotas')).json as {
          volumes: { volume: string; measured: boolean; usedBytes: number }[];
        }
      ).volumes.find((v) => v.volume === HOME);
    await s.eventually(
      'the Home volume measured by the folder-size index',
      async () => (await home())?.measured === true,
      60_000,
    );
    const t = await tab(s, folder);
    try {
      // Nearly full: room for 4 MiB more.
      const set = await s.api('PUT', `/api/admin/quotas/volumes/${HOME}`, {
        limitBytes: (await home())!.usedBytes + 4 * MiB,
      });
      assert.is(set.status, 200, set.text);
      await t.upload([photo]);
      await t.row(photo.name).getByText('failed', { exact: true }).waitFor({ timeout: 60_000 });
      const { refused, created, patches } = t.gate.tus();
      assert.is(refused.length, 1, `refused once, not tried again: ${JSON.stringify(refused)}`);
      const refusal = refused[0]!;
      assert.is(refusal.name, photo.name);
      assert.is(refusal.status, 507);
      assert.is(refusal.code, 'QUOTA_EXCEEDED');
      const reason = `Over quota: ${refusal.message}`;
      await t.row(photo.name).getByRole('alert').getByText(reason).waitFor();
      // Refused before a byte: nothing made, nothing on the disk; the browser keeps it.
      assert.equal(created, [], 'no upload made');
      assert.equal(patches, [], 'no byte sent');
      assert.equal(fs.readdirSync(s.disk(folder)), [], 'nothing in the folder');
      await s.eventually('kept failed in the browser', async () => (await t.kept()).failed === 1);
      assert.is((await t.kept()).all, 1, 'kept in the browser');

      await t.page.reload();
      await t.page.getByText('An upload from before failed: Retry or Remove it in the uploads list').waitFor();
      await t.row(photo.name).getByRole('alert').getByText(reason).waitFor();
      // Room again (the administrator lifts the quota): Retry sends it.
      const lifted = await s.api('PUT', `/api/admin/quotas/volumes/${HOME}`, { limitBytes: null });
      assert.is(lifted.status, 200, lifted.text);
      await s.tap(t.row(photo.name).getByRole('button', { name: 'Retry' }));
      await t.row(photo.name).getByText('done', { exact: true }).waitFor({ timeout: 60_000 });
      await landed(s, `${folder}/${photo.name}`, photo.bytes);
      assert.equal(t.gate.tus().created, [photo.name], 'one upload');
      assert.equal(t.parts(), [], 'no part file left');
      await s.eventually('the kept queue emptied', async () => (await t.kept()).all === 0);
      t.fine();
    } finally {
      await s.api('PUT', `/api/admin/quotas/volumes/${HOME}`, { limitBytes: null });
      await t.close();
    }
  },
);

j.step('the screen is held on while an upload runs, and let go once it is done', async (s) => {
  const film = { name: `${'Kinderfest – „Löwenzahn & Co.“ #4 🦁'.normalize('NFD')}.mp4`, bytes: randomBytes(16 * MiB) };
  // The page's screen wake locks, as the browser hands them out (WakeLockSentinel.released is the browser's).
  const t = await tab(s, 'Kinderfest 2025 – Fotos & Filme', () => {
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
    t.page.evaluate(() =>
      (window as unknown as { wakeLocks: WakeLockSentinel[] }).wakeLocks.map((l) => ({
        type: l.type,
        released: l.released,
      })),
    );
  try {
    // Its second PATCH held: the upload runs for as long as the step looks.
    t.gate.rule(holdLater);
    assert.equal(await locks(), [], 'no wake lock before an upload');
    await t.upload([film]);
    await s.eventually('its second PATCH held', () => t.gate.held().some((h) => h.name === film.name));
    await s.eventually('the screen held on while it runs', async () => {
      const now = await locks();
      return now.length === 1 && now[0]!.type === 'screen' && !now[0]!.released;
    });
    t.gate.rule(() => 'pass');
    await t.row(film.name).getByText('done', { exact: true }).waitFor({ timeout: 60_000 });
    await s.eventually('the screen let go once it is done', async () => (await locks()).every((l) => l.released));
    assert.is((await locks()).length, 1, 'one wake lock for the upload');
    await landed(s, `${t.folder}/${film.name}`, film.bytes);
    t.fine();
  } finally {
    await t.close();
  }
});

j.run();

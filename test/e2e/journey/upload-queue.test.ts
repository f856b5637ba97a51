// An upload queue that survives: three photos queued from a phone, the page reloaded while the
// second is half sent — the page takes the queue up again from the browser's own storage
// (IndexedDB), each upload goes on by TUS from where the server stopped (no upload made a second
// time), and all three land byte for byte (SHA-256 of the files on the server's disk). Offline,
// the tray says so instead of spinning, and the uploads go on when the network is back. The
// browser's bandwidth is held low (DevTools network emulation) so the reload falls mid-file.
import crypto, { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import * as assert from 'uvu/assert';
import type { CDPSession, Request, Response } from 'playwright-core';
import { HOME, W, filesAddress, journey, onDisk } from './harness.ts';

const j = journey(import.meta.url, { env: { UPLOAD_CHUNKED_ENABLED: 'true' } });
const MiB = 1024 * 1024;
const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

j.step(
  'three photos queued, the page reloaded in the middle of the second: all three land byte for byte',
  async (s) => {
    const files = [
      { name: 'Strand – Zoë & Ben #1.jpg', bytes: randomBytes(12 * MiB) },
      { name: 'Sonnenuntergang 100% 🌅.jpg', bytes: randomBytes(12 * MiB) },
      { name: `${'Großmutters 90. Geburtstag – “die Torte”'.normalize('NFD')}.jpg`, bytes: randomBytes(12 * MiB) },
    ];
    // Which upload address is which file (its creation's metadata), what each creation and HEAD answered.
    const where = new Map<string, string>();
    const created: string[] = [];
    const offsets = new Map<string, number>();
    const heads: { name: string; offset: number }[] = [];
    const nameOf = (req: Request) => {
      const meta = req.headers()['upload-metadata'] ?? '';
      const pair = meta.split(',').find((p) => p.trim().startsWith('filename '));
      return pair ? Buffer.from(pair.trim().split(' ')[1]!, 'base64').toString('utf8') : '';
    };
    const seen = (r: Response) => {
      const req = r.request();
      const url = new URL(req.url());
      if (!url.pathname.startsWith('/api/upload/tus')) return;
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
    s.page.on('response', seen);
    let cdp: CDPSession | undefined;
    const throttle = async (bytesPerSecond: number) => {
      cdp = await s.context.newCDPSession(s.page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: bytesPerSecond,
      });
    };
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
      const row = s.page.locator('.tray li.upload').filter({ hasText: files[2]!.name });
      await row.waitFor();
      // Offline: the tray says so; back online, they go on.
      await s.context.setOffline(true);
      await s.page.getByText('Offline: it goes on when the network is back.').first().waitFor();
      await s.context.setOffline(false);
      await cdp?.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: -1,
      });
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
      await s.eventually('the kept queue emptied', async () =>
        s.page
          .evaluate(
            () =>
              new Promise<number>((resolve) => {
                const open = indexedDB.open('burrow-uploads');
                open.onsuccess = () => {
                  const count = open.result.transaction('uploads').objectStore('uploads').count();
                  count.onsuccess = () => resolve(count.result);
                };
              }),
          )
          .then((n) => n === 0),
      );
    } finally {
      s.page.off('response', seen);
      await s.context.setOffline(false);
    }
  },
);

j.run();

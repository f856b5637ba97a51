// Uploading as people do, and the connection dropping half-way. Files with the world's names
// picked with the Upload button (one request each, Burrow's default); then the Wi-Fi drops in the
// middle of a large upload: the tray says so in words, the server keeps nothing of it, and Retry
// sends it whole once the connection is back. With resumable uploads switched on
// (UPLOAD_CHUNKED_ENABLED), the same drop only pauses the upload: it goes on by itself from where
// the server stopped, not from the start. The server's side: the bytes on disk under their own
// names, no part file left anywhere in Burrow's folders, the offset the server answered after
// the drop (the bytes it kept) and where the next PATCH began.
//
// The browser reaches the server through a link of the test's own (a TCP relay) that can be
// cut: every connection reset at once once a given number of bytes has passed since it was
// armed, and every new connection refused until it is restored.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import * as assert from 'uvu/assert';
import { waitFor } from '../../support/wait.ts';
import { HOME, W, filesAddress, journey, listTree, onDisk, partFiles, type Step } from './harness.ts';

// Add from link (and its progress and Cancel in the tray): the "web" is a server of the test's own at 127.0.0.2, the one network allowed.
const WEB_HOST = '127.0.0.2';
const j = journey(import.meta.url, { env: { FETCH_ALLOW_NETWORKS: `${WEB_HOST}/32` } });
const MiB = 1024 * 1024;

interface Link {
  /** The server's port it relays to. */
  readonly target: number;
  /** The app's address through the link. */
  url(address: string): string;
  /** Resets every connection once `bytes` more have gone from the browser to the server, and refuses new ones. */
  cutAfter(bytes: number): void;
  readonly down: boolean;
  /** Connections refused while down. */
  readonly refused: number;
  restore(): void;
  close(): void;
}

/** A TCP relay from a port of its own to the server: the browser's connection, which can drop. */
async function cuttableLink(port: number): Promise<Link> {
  const open = new Set<net.Socket>();
  let down = false;
  let refused = 0;
  let left = Infinity;
  const drop = () => {
    down = true;
    for (const socket of open) socket.resetAndDestroy();
    open.clear();
  };
  const relay = net.createServer((client) => {
    if (down) {
      refused++;
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(port, '127.0.0.1');
    open.add(client).add(upstream);
    const end = () => {
      open.delete(client);
      open.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on('error', end);
      socket.on('close', end);
    }
    client.on('data', (chunk) => {
      left -= chunk.length;
      if (!upstream.write(chunk)) client.pause();
      if (left <= 0) {
        left = Infinity;
        drop();
      }
    });
    upstream.on('drain', () => client.resume());
    upstream.on('data', (chunk) => {
      if (!client.write(chunk)) upstream.pause();
    });
    client.on('drain', () => upstream.resume());
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  relay.unref();
  const own = (relay.address() as net.AddressInfo).port;
  return {
    target: port,
    url: (address) => `http://localhost:${own}${address}`,
    cutAfter(bytes) {
      left = bytes;
    },
    get down() {
      return down;
    },
    get refused() {
      return refused;
    },
    restore() {
      down = false;
    },
    close() {
      drop();
      relay.close();
    },
  };
}

let link: Link | undefined;
/** The link for this size's server (each size has a server of its own). */
async function linkTo(s: Step): Promise<Link> {
  const port = Number(new URL(s.base).port);
  if (link?.target !== port) {
    link?.close();
    link = await cuttableLink(port);
  }
  return link;
}

const row = (s: Step, name: string) => s.page.locator('.tray li.upload').filter({ hasText: name });

j.step('photos, a song and notes with their own names uploaded byte for byte', async (s) => {
  await s.goto(filesAddress(HOME, W.inbox));
  await s.folder(`${HOME}/${W.inbox}`);
  const files = [
    { name: 'Île de Ré – sunset #3.jpg', bytes: fs.readFileSync(s.disk(W.cafe)) },
    { name: 'Rock + Roll (live at the pub).mp3', bytes: fs.readFileSync(s.disk(W.song)) },
    { name: 'Notes & ideas — 100% mine.txt', bytes: Buffer.from('Ideas for the garden party\n') },
    // A name typed on a Mac: its accents decomposed (NFD), kept as written.
    { name: `${'Café déjà vu'.normalize('NFD')}.txt`, bytes: Buffer.from('Déjà vu, again.\n') },
  ];
  await s.upload(files.map((f) => onDisk(f.name, f.bytes)));
  for (const f of files) {
    await s.eventually(`${f.name} on disk`, () => s.exists(`${W.inbox}/${f.name}`));
    await row(s, f.name).getByText('done', { exact: true }).waitFor();
    assert.equal(fs.readFileSync(s.disk(`${W.inbox}/${f.name}`)), f.bytes, `${f.name} byte for byte`);
    await s.entry(f.name);
  }
  assert.equal(fs.readdirSync(s.disk(W.inbox)).sort(), files.map((f) => f.name).sort(), 'each once, as named');
  assert.equal(partFiles(s), [], 'no part file left');
});

j.step('a photo added from a web address lands under its own name, followed in the tray', async (s) => {
  const name = 'Plage à Biarritz – août 2025 #4.jpg';
  const bytes = fs.readFileSync(s.disk(W.cafe));
  // A photo site: the file's address ends in an opaque id, its name comes in Content-Disposition.
  const web = http.createServer((req, res) => {
    if (req.url !== '/p/8f3a91') return void res.writeHead(404).end();
    res.writeHead(200, {
      'content-type': 'image/jpeg',
      'content-length': bytes.length,
      'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(name)}`,
    });
    res.end(bytes);
  });
  await new Promise<void>((resolve) => web.listen(0, WEB_HOST, resolve));
  try {
    const address = `http://${WEB_HOST}:${(web.address() as net.AddressInfo).port}`;
    await s.goto(filesAddress(HOME, W.holiday));
    await s.folder(`${HOME}/${W.holiday}`);
    const before = fs.readdirSync(s.disk(W.holiday)).sort();
    // A private address the server must refuse: said in the dialog, nothing written.
    await s.tap(s.page.getByRole('button', { name: 'Add from link' }));
    const dialog = s.page.getByRole('dialog', { name: 'Add from link' });
    await dialog.getByRole('textbox').fill('http://192.168.1.1/router-backup.bin');
    await s.tap(dialog.getByRole('button', { name: 'Add' }));
    await dialog.getByText(/is not on the public internet/).waitFor();
    assert.equal(fs.readdirSync(s.disk(W.holiday)).sort(), before, 'nothing written for a refused address');
    // The photo's address: the dialog closes, the tray follows it, the folder shows it.
    await dialog.getByRole('textbox').fill(`${address}/p/8f3a91`);
    await s.tap(dialog.getByRole('button', { name: 'Add' }));
    await dialog.waitFor({ state: 'detached' });
    await s.page.locator('.tray li.task').filter({ hasText: name }).getByText('done', { exact: true }).waitFor();
    await s.entry(name);
    assert.equal(fs.readFileSync(s.disk(`${W.holiday}/${name}`)), bytes, 'the photo byte for byte');
    assert.equal(partFiles(s), [], 'no part file left');
  } finally {
    web.closeAllConnections();
    await new Promise((r) => web.close(r));
  }
});

j.step('a slow download from a web address: its progress in the tray, Cancel stops it, nothing is kept', async (s) => {
  const name = 'Konzert – Mitschnitt „live“ #2 (100%).flac';
  const first = 512 * 1024;
  const open = new Set<http.ServerResponse>();
  // A server that sends the first 512 KiB of 3 MiB, then nothing more: a transfer someone cancels.
  const web = http.createServer((req, res) => {
    if (req.url !== '/a/77c1') return void res.writeHead(404).end();
    res.writeHead(200, {
      'content-type': 'audio/flac',
      'content-length': 3 * MiB,
      'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(name)}`,
    });
    res.write(Buffer.alloc(first, 1));
    open.add(res);
  });
  await new Promise<void>((resolve) => web.listen(0, WEB_HOST, resolve));
  try {
    const address = `http://${WEB_HOST}:${(web.address() as net.AddressInfo).port}/a/77c1`;
    await s.goto(filesAddress(HOME, W.holiday));
    await s.folder(`${HOME}/${W.holiday}`);
    const before = fs.readdirSync(s.disk(W.holiday)).sort();
    await s.tap(s.page.getByRole('button', { name: 'Add from link' }));
    const dialog = s.page.getByRole('dialog', { name: 'Add from link' });
    await dialog.getByRole('textbox').fill(address);
    await s.tap(dialog.getByRole('button', { name: 'Add' }));
    await dialog.waitFor({ state: 'detached' });
    // The server holds the first bytes and waits for more: the tray says how far it got.
    const job = await waitFor(
      async () => ((await s.api('GET', '/api/fetch')).json.jobs as any[]).find((x) => x.name === name),
      { what: 'the fetch holding its first bytes', until: (x) => x?.received === first },
    );
    assert.is(job.state, 'running');
    const task = s.page.locator('.tray li.task').filter({ hasText: name });
    await task.getByText('512 KB of 3.0 MB', { exact: true }).waitFor();
    await task.getByText('17 %', { exact: true }).waitFor();
    await s.tap(task.getByRole('button', { name: 'Cancel' }));
    await waitFor(async () => (await s.api('GET', `/api/fetch/${job.id}`)).json.state, {
      what: 'the fetch cancelled at the server',
      until: (state) => state === 'cancelled',
    });
    await task.getByText('cancelled', { exact: true }).waitFor();
    assert.equal(fs.readdirSync(s.disk(W.holiday)).sort(), before, 'nothing kept of the cancelled file');
    assert.equal(partFiles(s), [], 'no part file left');
  } finally {
    for (const r of open) r.destroy();
    web.closeAllConnections();
    await new Promise((r) => web.close(r));
  }
});

j.step('the connection drops during an upload: it says so, keeps nothing, and Retry sends it whole', async (s) => {
  const l = await linkTo(s);
  const name = 'Garden walk – the long version.mp4';
  const bytes = randomBytes(24 * MiB);
  const before = listTree(s.home);
  await s.page.goto(l.url(filesAddress(HOME, 'Videos')), { waitUntil: 'domcontentloaded' });
  await s.folder(`${HOME}/Videos`);
  l.cutAfter(6 * MiB);
  await s.upload([onDisk(name, bytes)]);
  await s.eventually('the connection to drop', () => l.down);
  const failed = row(s, name);
  await failed.getByText('failed', { exact: true }).waitFor();
  await failed.getByRole('alert').getByText('The server cannot be reached.').waitFor();
  // Nothing half-sent is kept: not under its name, not as a part file.
  await s.eventually('the part file removed', () => partFiles(s).length === 0);
  assert.equal(listTree(s.home), before, 'the home folder as it was');

  l.restore();
  await s.tap(failed.getByRole('button', { name: 'Retry' }));
  await failed.getByText('done', { exact: true }).waitFor({ timeout: 30_000 });
  assert.equal(fs.readFileSync(s.disk(`Videos/${name}`)), bytes, 'the video byte for byte');
  assert.equal(partFiles(s), [], 'no part file left');
  await s.entry(name);
});

j.step('with resumable uploads on, a dropped upload goes on from where the server stopped', async (s) => {
  await s.server.restart({ UPLOAD_CHUNKED_ENABLED: 'true' });
  const l = await linkTo(s);
  const name = 'Holiday 2025 – the whole film.mp4';
  const bytes = randomBytes(32 * MiB);
  // What the browser sent and what the server answered, in order.
  const created: string[] = [];
  const events: { what: 'PATCH' | 'HEAD'; offset: number }[] = [];
  const tus = (r: import('playwright-core').Request) => new URL(r.url()).pathname.startsWith('/api/upload/tus');
  const sent = (req: import('playwright-core').Request) => {
    if (tus(req) && req.method() === 'PATCH')
      events.push({ what: 'PATCH', offset: Number(req.headers()['upload-offset']) });
  };
  const seen = (r: import('playwright-core').Response) => {
    const req = r.request();
    if (!tus(req)) return;
    if (req.method() === 'POST' && r.status() === 201) created.push(r.headers()['location'] ?? '');
    if (req.method() === 'HEAD' && r.status() === 200)
      events.push({ what: 'HEAD', offset: Number(r.headers()['upload-offset']) });
  };
  s.page.on('request', sent);
  s.page.on('response', seen);
  try {
    await s.page.goto(l.url(filesAddress(HOME, W.holiday)), { waitUntil: 'domcontentloaded' });
    await s.folder(`${HOME}/${W.holiday}`);
    l.cutAfter(16 * MiB);
    await s.upload([onDisk(name, bytes)]);
    await s.eventually('the connection to drop', () => l.down);
    // The server keeps what reached it: a part file of the upload.
    let kept = 0;
    await s.eventually('the server to hold part of the film', () => {
      const parts = partFiles(s).filter((p) => /tus-.*\.part$/.test(p));
      kept = parts.length === 1 ? fs.statSync(parts[0]!).size : 0;
      return kept > 0;
    });
    // The browser tries again at once, finds no connection, and waits; the connection comes back.
    await s.eventually('the browser to try again while the connection is down', () => l.refused > 0);
    l.restore();
    await row(s, name).getByText('done', { exact: true }).waitFor({ timeout: 30_000 });

    assert.equal(fs.readFileSync(s.disk(`${W.holiday}/${name}`)), bytes, 'the film byte for byte');
    assert.is(created.length, 1, `one upload, not a second one from the start: ${JSON.stringify(created)}`);
    const asked = events.map((e) => e.what).lastIndexOf('HEAD');
    assert.ok(asked > 0, `the browser asked the server where to go on: ${JSON.stringify(events)}`);
    const resumedAt = events[asked]!.offset;
    assert.ok(resumedAt >= 8 * MiB, `the server kept at least the first 8 MiB PATCH: it answered ${resumedAt}`);
    assert.ok(resumedAt >= kept, `it answered what it had kept (${kept}) or more: ${resumedAt}`);
    assert.is(events[asked + 1]?.offset, resumedAt, `the next PATCH began there: ${JSON.stringify(events)}`);
    const fromStart = events.filter((e) => e.what === 'PATCH' && e.offset === 0);
    assert.is(fromStart.length, 1, `nothing sent again from the start: ${JSON.stringify(events)}`);
    assert.equal(partFiles(s), [], 'no part file left');
  } finally {
    s.page.off('request', sent);
    s.page.off('response', seen);
    link?.close();
    link = undefined;
  }
});

j.run();

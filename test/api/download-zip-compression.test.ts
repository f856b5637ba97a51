// Zip downloads store every file unless the person asks for a smaller zip (`compress: true`);
// then each file decides whether compression pays: random content and compressed formats (by
// name or by signature under any name) are stored, text is deflated. The archive is read back
// with yauzl (compression method per entry) and checked by Info-ZIP's `unzip -t`.
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { zipEntries } from '../support/archives.ts';
import { setupAdmin } from '../support/auth.ts';
import type { Client } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';

const run = promisify(execFile);
let s: TestServer;
let admin: Client;
const files: Record<string, Buffer> = {};

test.before(async () => {
  s = await startServer();
  admin = await setupAdmin(s);
  const dir = path.join(s.dirs.volumes, 'Files', 'Mix');
  fs.mkdirSync(dir, { recursive: true });
  const text = Buffer.from(Array.from({ length: 20_000 }, (_, i) => `row ${i}: the quick brown fox\n`).join(''));
  files['random.bin'] = crypto.randomBytes(1024 * 1024 + 7);
  files['notes.txt'] = text;
  files['data.log'] = text.subarray(0, 100_000);
  // Compressed content under names that do not say so: caught by the signature.
  files['backup.dat'] = zlib.gzipSync(crypto.randomBytes(200_000));
  // Text after a random start: the sample decides, and it says store.
  files['mostly-random'] = Buffer.concat([crypto.randomBytes(128 * 1024), text]);
  for (const [name, data] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), data);
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

const zipOf = (body: object) =>
  fetch(`${s.url}/api/download`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: admin.cookieHeader, origin: s.url },
    body: JSON.stringify(body),
  });

test('by default every file is stored, text too, and the zip is whole (unzip -t)', async () => {
  const answer = await zipOf({ path: 'Files/Mix' });
  assert.is(answer.status, 200);
  const zip = Buffer.from(await answer.arrayBuffer());
  const got = await zipEntries(zip);
  for (const [name, data] of Object.entries(files)) {
    assert.is(got.get(`Mix/${name}`)?.method, 0, `${name} stored`);
    assert.ok(got.get(`Mix/${name}`)!.data.equals(data), `${name} round-trips`);
  }
  const file = path.join(s.dirs.root, 'mix-stored.zip');
  fs.writeFileSync(file, zip);
  const { stdout } = await run('unzip', ['-t', file]);
  assert.match(stdout, /No errors detected/);
});

test('a smaller zip when asked: random content is stored, text deflated, compressed formats stored by signature; unzip -t passes', async () => {
  const answer = await zipOf({ path: 'Files/Mix', compress: true });
  assert.is(answer.status, 200);
  const zip = Buffer.from(await answer.arrayBuffer());
  const got = await zipEntries(zip);
  const method = (name: string) => got.get(`Mix/${name}`)?.method;
  assert.is(method('random.bin'), 0, 'random stored');
  assert.is(method('backup.dat'), 0, 'gzip under another name stored');
  assert.is(method('mostly-random'), 0, 'a start that does not shrink: stored');
  assert.is(method('notes.txt'), 8, 'text deflated');
  assert.is(method('data.log'), 8, 'text under any name deflated');
  for (const [name, data] of Object.entries(files))
    assert.ok(got.get(`Mix/${name}`)!.data.equals(data), `${name} round-trips`);
  // Deflated at a fast level, the text still shrinks by far.
  const stored = files['random.bin']!.length + files['backup.dat']!.length + files['mostly-random']!.length;
  const text = files['notes.txt']!.length + files['data.log']!.length;
  assert.ok(
    zip.length < stored + text * 0.3,
    `text compressed: zip of ${zip.length} bytes for ${stored} stored and ${text} of text`,
  );
  const file = path.join(s.dirs.root, 'mix.zip');
  fs.writeFileSync(file, zip);
  const { stdout } = await run('unzip', ['-t', file]);
  assert.match(stdout, /No errors detected/);
});

test.run();

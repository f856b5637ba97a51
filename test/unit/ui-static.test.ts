// The UI's static handler (src/http/static.ts) on a built UI of three files, through a real
// HTTP server: every address of a folder or a file answers the page (client-side routing), a
// missing file of the UI itself answers 404.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createUiHandler } from '../../src/http/static.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-ui-'));
const PAGE = '<!doctype html><title>Burrow</title><div id="app"></div>';
fs.mkdirSync(path.join(dir, 'assets'));
fs.writeFileSync(path.join(dir, 'index.html'), PAGE);
fs.writeFileSync(path.join(dir, 'assets', 'index-abc123.js'), 'export {};');
fs.writeFileSync(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
let server: http.Server;
let base = '';

test.before(async () => {
  server = http.createServer(createUiHandler(dir));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
test.after(async () => {
  await new Promise((r) => server.close(r));
  fs.rmSync(dir, { recursive: true, force: true });
});

const get = async (p: string) => {
  const res = await fetch(base + p);
  return {
    status: res.status,
    type: res.headers.get('content-type') ?? '',
    cache: res.headers.get('cache-control'),
    body: await res.text(),
  };
};

test('every address of a folder or a file answers the page', async () => {
  for (const p of [
    '/',
    '/files/Files',
    '/files/Files/Notes/todo.md', // sirv's single mode answered "Not found" to an ASCII name.ext
    '/files/Files/Notes/README',
    '/files/Files/Photos/Holiday%202025/IMG_2041.JPG',
    '/files/Files/Photos/Caf%C3%A9%20%26%20Bar/%F0%9F%8C%85%20sunrise.jpeg',
    '/files/Files/Code/.gitignore',
    '/files/Files/Music/Morning+Tune.mp3',
    '/files/Files/Docs/report.final.v2.pdf?x=1',
    '/s/AbCdEf123',
    '/search?q=notes.md',
  ]) {
    const a = await get(p);
    assert.is(a.status, 200, p);
    assert.match(a.type, /^text\/html/, p);
    assert.is(a.body, PAGE, p);
    assert.is(a.cache, 'no-cache', p);
  }
});

test("the UI's own files are served, and a missing one is a 404, not the page", async () => {
  const js = await get('/assets/index-abc123.js');
  assert.is(js.status, 200);
  assert.match(js.type, /javascript/);
  assert.is(js.cache, 'public, max-age=31536000, immutable');
  assert.is((await get('/favicon.svg')).status, 200);
  for (const p of ['/assets/index-old999.js', '/assets/Editor-gone.css', '/robots.txt', '/assets/']) {
    const a = await get(p);
    assert.is(a.status, 404, p);
    assert.is.not(a.body, PAGE, p);
  }
});

test('a UI folder given as a function is asked for at the first request; a failure answers 503 and is tried again', async () => {
  // The executable unpacks its UI on the first page asked (a disk full at that moment must not
  // stop the server, and the next request tries again).
  let calls = 0;
  const logged: unknown[] = [];
  const lazy = http.createServer(
    createUiHandler(
      () => {
        if (++calls === 1)
          throw new Error("ENOSPC: no space left on device, open '/srv/Burrow Cache/ui-0a1b/index.html'");
        return dir;
      },
      [],
      (err) => logged.push(err),
    ),
  );
  await new Promise<void>((r) => lazy.listen(0, '127.0.0.1', r));
  const at = `http://127.0.0.1:${(lazy.address() as AddressInfo).port}`;
  try {
    assert.is(calls, 0);
    const failed = await fetch(`${at}/files/Holiday 2025`);
    assert.is(failed.status, 503);
    const said = await failed.text();
    assert.match(said, /could not be unpacked/);
    // The reason names the server's folders: it goes to the log, not to a visitor.
    assert.not.match(said, /ENOSPC|Burrow Cache/);
    assert.match(String((logged[0] as Error).message), /ENOSPC/);
    const page = await fetch(`${at}/files/Holiday 2025`);
    assert.is(page.status, 200);
    assert.is(await page.text(), PAGE);
    await (await fetch(`${at}/favicon.svg`)).text();
    assert.is(calls, 2);
  } finally {
    lazy.closeAllConnections();
    await new Promise((r) => lazy.close(r));
  }
});

test.run();

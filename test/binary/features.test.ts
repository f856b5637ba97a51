// What lives outside the main bundle must work from inside the executable too: the indexer's
// worker thread (folder sizes, name and content search) and the image add-on (thumbnails).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { bareEnv, ensureBinary, sandbox, start, type Running, type Sandbox } from './harness.ts';

const image = createRequire(import.meta.url)('@napi-rs/image') as any;

let box: Sandbox;
let run: Running;

async function poll<T>(read: () => Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}; output:\n${run.output().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

test.before(async () => {
  ensureBinary();
  box = sandbox();
  const files = path.join(box.volumeRoot, 'Files');
  fs.mkdirSync(path.join(files, 'a', 'b'), { recursive: true });
  fs.writeFileSync(path.join(files, 'a', 'b', 'blob.bin'), Buffer.alloc(100_000, 7));
  fs.writeFileSync(path.join(files, 'a', 'notes.txt'), 'a line about periwinkle otters\n');
  const px = new Uint8Array(32 * 24 * 4).fill(200);
  fs.writeFileSync(path.join(files, 'pic.png'), await image.Transformer.fromRgbaPixels(px, 32, 24).png());
  run = await start(box, bareEnv(box, { AUTH_MODE: 'disabled', FOLDER_SIZE_MODE: 'full' }));
});

test.after(async () => {
  if (run) await run.stop('SIGKILL');
  box?.remove();
});

test('the indexer worker runs inside the executable: recursive folder sizes', async () => {
  const record = await poll(async () => {
    const r = (await (await fetch(`${run.url}/api/folder-size/Files/a`)).json()) as {
      indexed: boolean;
      sizeBytes: number | null;
    };
    return r.indexed ? r : undefined;
  }, 'the folder-size index');
  assert.is(record.sizeBytes, 100_000 + 'a line about periwinkle otters\n'.length);
});

test('search finds a file by name and by its content', async () => {
  const byContent = await poll(async () => {
    const r = (await (await fetch(`${run.url}/api/search?q=periwinkle`)).json()) as {
      items: { name: string; path: string }[];
    };
    return r.items.length ? r : undefined;
  }, 'a content hit');
  assert.equal(
    byContent.items.map((i) => `${i.path}/${i.name}`),
    ['Files/a/notes.txt'],
  );
  const byName = (await (await fetch(`${run.url}/api/search?q=blob`)).json()) as { items: { name: string }[] };
  assert.ok(byName.items.some((i) => i.name === 'blob.bin'));
});

test('thumbnails come from the image add-on extracted from the executable', async () => {
  const answer = (await (await fetch(`${run.url}/api/thumbnails/Files/pic.png`)).json()) as { thumbnail: string };
  assert.match(answer.thumbnail, /^\//);
  const res = await fetch(run.url + answer.thumbnail);
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'image/webp');
  const bytes = Buffer.from(await res.arrayBuffer());
  assert.is(bytes.subarray(8, 12).toString('latin1'), 'WEBP');
});

test.run();

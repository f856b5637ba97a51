// What lives outside the main bundle must work from inside the executable too: the indexer's
// worker thread (folder sizes, name and content search) and the image add-on (thumbnails).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { bareEnv, ensureBinary, sandbox, start, type Running, type Sandbox } from './harness.ts';
import { waitFor } from '../support/wait.ts';

const image = createRequire(import.meta.url)('@napi-rs/image') as any;

let box: Sandbox;
let run: Running;

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
  const record = await waitFor(
    async () =>
      (await (await fetch(`${run.url}/api/folder-size/Files/a`)).json()) as {
        indexed: boolean;
        sizeBytes: number | null;
      },
    {
      what: 'the folder-size index',
      timeoutMs: 20_000,
      until: (r) => r.indexed,
      seen: () => run.output().slice(-2000),
    },
  );
  assert.is(record.sizeBytes, 100_000 + 'a line about periwinkle otters\n'.length);
});

test('search finds a file by name and by its content', async () => {
  const byContent = await waitFor(
    async () =>
      (await (await fetch(`${run.url}/api/search?q=periwinkle`)).json()) as { items: { name: string; path: string }[] },
    {
      what: 'a content hit',
      timeoutMs: 20_000,
      until: (r) => r.items.length > 0,
      seen: () => run.output().slice(-2000),
    },
  );
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

// 1 GiB single-file download vs a plain Node fs.createReadStream server (1 MiB chunks) over
// loopback (target ≥ 95 %), and a zip of a 100 MB mixed selection, stored (target ≥ 700 MB/s).
// Run: node test/bench/download.ts
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { removeDirs, startServer } from '../support/server.ts';

const GIB = 1024 ** 3;
const MB = 1024 ** 2;

async function drain(url: string, init?: RequestInit): Promise<{ bytes: number; seconds: number }> {
  const t = performance.now();
  const res = await fetch(url, init);
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
  return { bytes, seconds: (performance.now() - t) / 1000 };
}

const s = await startServer({ env: { AUTH_MODE: 'disabled', LOG_LEVEL: 'error' } });
const plain = http.createServer((req, res) => {
  const file = path.join(s.dirs.volumes, 'Files', 'big.bin');
  res.setHeader('Content-Length', fs.statSync(file).size);
  fs.createReadStream(file, { highWaterMark: MB }).pipe(res);
});
try {
  const file = path.join(s.dirs.volumes, 'Files', 'big.bin');
  const fd = fs.openSync(file, 'w');
  const block = Buffer.alloc(16 * MB, 0x5a);
  for (let i = 0; i < GIB / block.length; i++) fs.writeSync(fd, block);
  fs.closeSync(fd);
  await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
  const plainUrl = `http://127.0.0.1:${(plain.address() as AddressInfo).port}/`;
  await drain(plainUrl);
  await drain(`${s.url}/api/download/Files/big.bin`);
  const rates = { plain: [] as number[], burrow: [] as number[] };
  for (let i = 0; i < 3; i++) {
    const p = await drain(plainUrl);
    rates.plain.push(p.bytes / p.seconds);
    const b = await drain(`${s.url}/api/download/Files/big.bin`);
    rates.burrow.push(b.bytes / b.seconds);
    if (b.bytes !== GIB) throw new Error(`downloaded ${b.bytes}`);
  }
  const best = (xs: number[]) => Math.max(...xs);
  console.log(
    JSON.stringify({
      bench: 'download-1GiB',
      plainNodeMBps: Math.round(best(rates.plain) / MB),
      burrowMBps: Math.round(best(rates.burrow) / MB),
      ratio: Math.round((best(rates.burrow) / best(rates.plain)) * 100) / 100,
      target: '>= 0.95',
    }),
  );
  fs.unlinkSync(file);

  // 100 MB of mixed files: photos (stored), videos (stored), text (deflated).
  const sel = path.join(s.dirs.volumes, 'Files', 'mixed');
  fs.mkdirSync(sel);
  let total = 0;
  for (let i = 0; i < 40; i++) {
    const b = Buffer.alloc(2 * MB, i);
    fs.writeFileSync(path.join(sel, `photo-${i}.jpg`), b);
    total += b.length;
  }
  for (let i = 0; i < 2; i++) {
    const b = Buffer.alloc(9 * MB, i);
    fs.writeFileSync(path.join(sel, `clip-${i}.mp4`), b);
    total += b.length;
  }
  for (let i = 0; i < 200; i++) {
    const b = Buffer.from(`line ${i}\n`.repeat(250));
    fs.writeFileSync(path.join(sel, `note-${i}.txt`), b);
    total += b.length;
  }
  const runs: number[] = [];
  for (let i = 0; i < 3; i++) {
    const z = await drain(`${s.url}/api/download`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ path: 'Files/mixed' }),
    });
    runs.push(total / z.seconds);
  }
  console.log(
    JSON.stringify({
      bench: 'zip-100MB-mixed',
      inputMB: Math.round(total / MB),
      zipMBps: Math.round(Math.max(...runs) / MB),
      target: '>= 700 MB/s when stored',
    }),
  );
} finally {
  plain.close();
  await s.close();
  removeDirs(s.dirs);
}

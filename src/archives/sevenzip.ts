// 7z, rar, iso, cab and the rest, through 7-Zip compiled to WebAssembly (7z-wasm), run in a
// worker thread per operation (sevenzip.worker.ts). The .wasm is compiled once, lazily, on
// first use, and handed to each worker as a compiled module.
//
// Inside the executable the bytes come from the SEA asset `7zz.wasm` (the build embeds
// node_modules/7z-wasm/7zz.wasm under that key, as it does node-sqlite3-wasm's); from source
// they are read from the package. The worker bundles 7z-wasm's JavaScript (7zz.umd.js).
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { createRequire } from 'node:module';
import { PassThrough, type Readable } from 'node:stream';
import { readEmbeddedAsset } from '../assets.ts';
import { startWorker } from '../workers.ts';
import { encrypted, tooManyEntries, unreadable } from './errors.ts';
import type { RawEntry } from './listing.ts';
import type { FromSevenZip, SevenZipJob, SevenZipListed, SevenZipWorkerData, ViewPart } from './sevenzip-protocol.ts';

let compiled: Promise<WebAssembly.Module> | undefined;

function sevenZipModule(): Promise<WebAssembly.Module> {
  compiled ??= (async () => {
    const bytes =
      readEmbeddedAsset('7zz.wasm') ?? (await fsp.readFile(createRequire(import.meta.url).resolve('7z-wasm/7zz.wasm')));
    return WebAssembly.compile(new Uint8Array(bytes));
  })();
  compiled.catch(() => {
    compiled = undefined;
  });
  return compiled;
}

interface Run {
  onMessage(m: FromSevenZip): void | Promise<void>;
  signal?: AbortSignal;
  /** What 7-Zip reads instead of the descriptor as it is (`size` is then the view's total). */
  view?: ViewPart[];
}

/** Runs one job; messages are handled one after another (a write finishes before the next starts). */
async function run(fd: number, size: number, name: string, job: SevenZipJob, handler: Run): Promise<void> {
  const control = new SharedArrayBuffer(8);
  const ctl = new Int32Array(control);
  const data: SevenZipWorkerData = { module: await sevenZipModule(), fd, size, view: handler.view, name, job, control };
  const worker = startWorker('archives/sevenzip.worker.ts', { workerData: data });
  let chain = Promise.resolve();
  let failed: unknown;
  let end: { code: number; errors: string[] } | undefined;
  const stop = () => {
    Atomics.store(ctl, 1, 1);
    Atomics.notify(ctl, 0);
  };
  const onAbort = () => {
    failed ??= handler.signal?.reason ?? new Error('aborted');
    stop();
    void worker.terminate();
  };
  handler.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await new Promise<void>((resolve, reject) => {
      worker.on('message', (m: FromSevenZip) => {
        if (m.type === 'end') end = m;
        chain = chain
          .then(async () => {
            if (failed) return;
            try {
              await handler.onMessage(m);
            } catch (err) {
              failed = err;
              stop();
            }
          })
          .finally(() => {
            if (m.type === 'data') {
              Atomics.sub(ctl, 0, m.chunk.byteLength);
              Atomics.notify(ctl, 0);
            }
          });
      });
      worker.on('error', reject);
      worker.on('exit', () => resolve());
    });
    await chain;
  } finally {
    handler.signal?.removeEventListener('abort', onAbort);
    stop();
    void worker.terminate();
  }
  if (failed) throw failed;
  if (!end) throw unreadable('7-Zip stopped unexpectedly');
  if (end.code !== 0) throw sevenZipError(end.errors);
}

function sevenZipError(lines: string[]): Error {
  const text = lines.join('\n');
  if (/wrong password|encrypted/i.test(text)) return encrypted();
  const line =
    lines.find((l) => /error|can ?not|unexpected|headers/i.test(l) && l.trim() !== 'ERRORS:') ??
    lines.find((l) => l.trim()) ??
    'unknown error';
  return unreadable(line.replace(/\/in\/[^\s]*/g, 'the archive').trim());
}

const AES = Buffer.from([0x06, 0xf1, 0x07, 0x01]);

/** A 7z whose header is encoded with AES (made with -mhe=on): its names are behind the password. */
async function hasEncryptedHeader(fd: number, size: number): Promise<boolean> {
  const start = Buffer.alloc(32);
  const r = (buf: Buffer, pos: number) =>
    new Promise<number>((resolve, reject) =>
      fs.read(fd, buf, 0, buf.length, pos, (e, n) => (e ? reject(e) : resolve(n))),
    );
  if ((await r(start, 0)) < 32 || start.toString('latin1', 0, 6) !== '7z\xbc\xaf\x27\x1c') return false;
  const offset = 32 + Number(start.readBigUInt64LE(12));
  const length = Number(start.readBigUInt64LE(20));
  if (offset + length > size || length > 64 * 1024) return false;
  const header = Buffer.alloc(length);
  await r(header, offset);
  return header[0] === 0x17 && header.includes(AES);
}

function parseModified(s: string | null): Date | null {
  const m = s && /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)/.exec(s);
  return m ? new Date(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) : null;
}

export async function listSevenZip(fd: number, size: number, name: string, maxEntries: number): Promise<RawEntry[]> {
  let listed: SevenZipListed[] = [];
  try {
    await run(
      fd,
      size,
      name,
      { type: 'list' },
      {
        onMessage: (m) => {
          if (m.type === 'entries') listed = m.entries;
        },
      },
    );
  } catch (err) {
    // 7-Zip's own "wrong password" for encrypted headers is lost in this build (see the worker).
    if (await hasEncryptedHeader(fd, size)) throw encrypted();
    throw err;
  }
  if (listed.length > maxEntries) throw tooManyEntries(maxEntries);
  return listed.map((e) => ({
    stored: e.path,
    kind: e.folder ? 'directory' : e.link ? 'link' : e.device ? 'device' : 'file',
    size: e.folder ? null : e.size,
    mtime: parseModified(e.modified),
    encrypted: e.encrypted,
    ref: e.path,
  }));
}

export type SevenZipVisit = (path: string, data: Readable) => Promise<void>;

/**
 * Extracts exactly `names` (entry paths as 7-Zip lists them), handing each created file to
 * `visit` as a stream in archive order; `visit` must read it to the end.
 */
export async function extractSevenZip(
  fd: number,
  size: number,
  name: string,
  names: string[],
  visit: SevenZipVisit,
  signal?: AbortSignal,
  view?: ViewPart[],
): Promise<void> {
  let current: { stream: PassThrough; done: Promise<void> } | undefined;
  const finish = async () => {
    if (!current) return;
    const c = current;
    current = undefined;
    c.stream.end();
    await c.done;
  };
  try {
    await run(
      fd,
      size,
      name,
      { type: 'extract', names },
      {
        signal,
        view,
        async onMessage(m) {
          if (m.type === 'open') {
            await finish();
            const stream = new PassThrough({ highWaterMark: 1024 * 1024 });
            current = { stream, done: visit(m.path, stream) };
            // A visit that fails early must not leave the next write waiting forever.
            current.done.catch(() => stream.resume());
          } else if (m.type === 'data' && current) {
            const c = current;
            const buf = Buffer.from(m.chunk.buffer, m.chunk.byteOffset, m.chunk.byteLength);
            await Promise.race([
              new Promise<void>((resolve, reject) => c.stream.write(buf, (err) => (err ? reject(err) : resolve()))),
              c.done,
            ]);
          } else if (m.type === 'close' || m.type === 'end') {
            await finish();
          }
        },
      },
    );
  } catch (err) {
    current?.stream.destroy(err as Error);
    throw err;
  }
}

/**
 * One entry of a 7-Zip archive as a stream (the worker ends when the stream is done or destroyed).
 * With `view`, 7-Zip reads those parts as the archive (`size` their total) instead of `fd` as it is.
 */
export function openSevenZipEntry(
  fd: number,
  size: number,
  name: string,
  entryPath: string,
  onEnd: () => void,
  view?: ViewPart[],
): Promise<Readable> {
  return new Promise((resolve, reject) => {
    const controller = new AbortController();
    let handed: PassThrough | undefined;
    extractSevenZip(
      fd,
      size,
      name,
      [entryPath],
      (_path, data) => {
        if (handed)
          return new Promise<void>((r) => {
            data.resume();
            data.on('end', r);
          });
        const out = new PassThrough();
        handed = out;
        resolve(out);
        out.on('close', () => {
          if (!out.writableFinished) controller.abort();
        });
        return new Promise<void>((r, j) => {
          data.pipe(out);
          data.on('end', r);
          out.on('close', r);
          data.on('error', j);
        });
      },
      controller.signal,
      view,
    ).then(
      () => {
        if (!handed) reject(unreadable('7-Zip extracted nothing for this entry'));
        onEnd();
      },
      (err) => {
        if (handed) handed.destroy(err);
        else reject(err);
        onEnd();
      },
    );
  });
}

// A selection into a new zip beside it: the same walk and the same stored-or-deflated rule as
// zip downloads (downloads/zip.ts), fast deflate, written to a hidden temporary name on the
// destination's filesystem and placed under a free name only when complete, so a failed or
// cancelled run leaves nothing and a finished one never replaces anything.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import yazl from 'yazl';
import { placeFile, temporaryName } from '../files/names.ts';
import { closeSources, selectionEntries, shouldDeflate, type ZipSource } from '../downloads/zip.ts';
import { openFileIn } from '../files/confined.ts';

// yazl checksums every entry with buffer-crc32, a table loop in JavaScript (~150 MB/s); a
// stored zip is bound by it. Hand the same module Node's native crc32 (same results, ~10 GB/s).
// In the executable the module cannot be reached by name (no node_modules): there yazl's
// checksum stream itself is given the native crc32 (withNativeCrc) — without it the executable's
// stored zips ran at a third of the source's.
let nativeCrc = false;
try {
  const yazlPath = createRequire(import.meta.url).resolve('yazl');
  const crc = createRequire(yazlPath)('buffer-crc32') as { unsigned: (buf: Buffer, previous?: number) => number };
  if (typeof zlib.crc32 === 'function' && crc.unsigned(Buffer.from('burrow')) === zlib.crc32('burrow')) {
    crc.unsigned = (buf, previous = 0) => zlib.crc32(buf, typeof previous === 'number' ? previous : 0);
    nativeCrc = true;
  }
} catch {
  // Patched through the first entry's stream instead.
}

/**
 * yazl pipes each entry's stream first into its checksum stream (a Transform keeping `crc32`,
 * not exported): the first time, that stream's prototype gets the native checksum.
 */
function withNativeCrc(stream: Readable): Readable {
  if (nativeCrc || typeof zlib.crc32 !== 'function') return stream;
  const pipe = stream.pipe;
  stream.pipe = function (this: Readable, dest: NodeJS.WritableStream, opts?: { end?: boolean }) {
    stream.pipe = pipe;
    const proto = Object.getPrototypeOf(dest) as { _transform?: unknown } | null;
    if (!nativeCrc && proto && typeof (dest as { crc32?: unknown }).crc32 === 'number' && proto._transform) {
      proto._transform = function (
        this: { crc32: number },
        chunk: Buffer,
        _encoding: string,
        cb: (err: null, chunk: Buffer) => void,
      ) {
        this.crc32 = zlib.crc32(chunk, this.crc32);
        cb(null, chunk);
      };
      nativeCrc = true;
    }
    return pipe.call(this, dest, opts);
  } as typeof stream.pipe;
  return stream;
}

/** Opened by the caller with downloads/zip.ts `openSources` (checked, confined); closed here. */
export type CreateZipSource = ZipSource;

/** Deflate level 1: most of the gain of level 6 at a fraction of the CPU on a 2-core NAS. */
const FAST = 1;

export async function createZip(
  sources: CreateZipSource[],
  destinationDir: string,
  name: string,
  options: { showHidden: boolean; signal?: AbortSignal },
): Promise<{ name: string; path: string }> {
  const temp = path.join(destinationDir, temporaryName());
  const out = fs.createWriteStream(temp, { flags: 'wx' });
  const zip = new yazl.ZipFile();
  const output = zip.outputStream as Readable;
  zip.on('error', (err: Error) => output.destroy(err));
  const writing = pipeline(zip.outputStream as Readable, out, options.signal ? { signal: options.signal } : {});
  try {
    try {
      for await (const e of selectionEntries(sources, options.showHidden)) {
        if (options.signal?.aborted) break;
        if (e.isDirectory) zip.addEmptyDirectory(e.relative, { mtime: e.mtime });
        else {
          const level = shouldDeflate(e.relative, e.size) ? FAST : 0;
          const top = e.file;
          zip.addReadStreamLazy(e.relative, { mtime: e.mtime, size: e.size, compressionLevel: level }, (cb) => {
            // Each file is opened through its checked top folder when its turn comes.
            if (top) cb(null, withNativeCrc(fs.createReadStream('', { fd: top.fd, autoClose: false, start: 0 })));
            else
              openFileIn(e.root, e.path!).then(
                (f) => cb(null, withNativeCrc(fs.createReadStream('', { fd: f.fd }))),
                (err) => cb(err, null as never),
              );
          });
        }
      }
    } finally {
      zip.end();
    }
    await writing;
    options.signal?.throwIfAborted();
    const final = await placeFile(temp, destinationDir, name);
    return { name: final, path: path.join(destinationDir, final) };
  } catch (err) {
    (zip.outputStream as Readable).destroy();
    await writing.catch(() => {});
    await fsp.unlink(temp).catch(() => {});
    throw err;
  } finally {
    await closeSources(sources);
  }
}

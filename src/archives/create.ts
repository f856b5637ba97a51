// A selection into a new zip beside it: the same walk and the same stored-or-deflated rule as
// zip downloads (downloads/zip.ts), fast deflate, written to a hidden temporary name on the
// destination's filesystem and placed under a free name only when complete, so a failed or
// cancelled run leaves nothing and a finished one never replaces anything.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import yazl from 'yazl';
import { placeFile, temporaryName } from '../files/names.ts';
import { closeSources, selectionEntries, shouldDeflate, type ZipSource } from '../downloads/zip.ts';
import { openFileIn } from '../files/confined.ts';

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
            if (top) cb(null, fs.createReadStream('', { fd: top.fd, autoClose: false, start: 0 }));
            else
              openFileIn(e.root, e.path!).then(
                (f) => cb(null, fs.createReadStream('', { fd: f.fd })),
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

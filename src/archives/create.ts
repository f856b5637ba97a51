// A selection into a new zip beside it: the same writer, walk and stored-or-deflated rule as zip
// downloads (downloads/zip.ts: each file sampled, text deflated at a fast level on two threads of
// the pool, ZIP64 where needed), written to a hidden temporary name on the destination's
// filesystem and placed under a free name only when complete, so a failed or cancelled run leaves
// nothing and a finished one never replaces anything.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { placeFile, temporaryName } from '../files/names.ts';
import { writeZip, type ZipSource } from '../downloads/zip.ts';
import { CHUNK } from '../http/range.ts';

/** Opened by the caller with downloads/zip.ts `openSources` (checked, confined); closed here. */
export type CreateZipSource = ZipSource;

/**
 * Bytes queued for the disk before the writer waits: a few 1 MiB chunks, so the next reads and
 * deflates overlap a write instead of waiting for each one (Node's default is 16 KiB).
 */
const QUEUED = 4 * CHUNK;

export async function createZip(
  sources: CreateZipSource[],
  destinationDir: string,
  name: string,
  options: {
    showHidden: boolean;
    signal?: AbortSignal;
    /** Records the temporary's name until it is placed or removed (a crash: removed at the next start). */
    staging?: (tempName: string) => () => void;
  },
): Promise<{ name: string; path: string }> {
  const tempName = temporaryName();
  const temp = path.join(destinationDir, tempName);
  const staged = options.staging?.(tempName) ?? (() => {});
  // flush: the bytes reach the disk before the descriptor closes, so a placed zip is whole even
  // after a power cut (uploads do the same before they name a file).
  const out = fs.createWriteStream(temp, { flags: 'wx', highWaterMark: QUEUED, flush: true });
  // A refused open or write destroys the stream; the writer fails with that error (out.errored).
  out.on('error', () => {});
  const signal = options.signal;
  const abort = () => out.destroy(signal!.reason as Error);
  signal?.addEventListener('abort', abort, { once: true });
  try {
    await writeZip(out, sources, options.showHidden, signal);
    out.end();
    // Resolves once the descriptor is flushed and closed: every byte is on the disk before it is placed.
    await finished(out);
    signal?.throwIfAborted();
    const final = await placeFile(temp, destinationDir, name);
    return { name: final, path: path.join(destinationDir, final) };
  } catch (err) {
    out.destroy();
    await finished(out).catch(() => {});
    await fsp.unlink(temp).catch(() => {});
    throw err;
  } finally {
    staged();
    signal?.removeEventListener('abort', abort);
  }
}

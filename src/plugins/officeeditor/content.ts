// Reading and replacing office files, confined at use: a file is opened without following a
// final link and the descriptor's real location is checked against its space; a new content
// is written to an exclusive temporary beside the file (capped while it streams, on the work
// journal until it is placed or removed), the replaced content is kept as a version, then the
// temporary is renamed over it.
// (When files/confined.ts lands, these helpers move onto its directory-descriptor opens.)
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { AppError, fromFsError } from '../../core/errors.ts';
import type { WorkJournal } from '../../files/journal.ts';
import { isInside } from '../../files/paths.ts';
import { temporaryName } from '../../files/names.ts';
import type { VersionService } from '../../versions/service.ts';

async function confirmInside(handle: fsp.FileHandle, realPath: string, root: string): Promise<void> {
  const where =
    process.platform === 'linux' ? await fsp.readlink(`/proc/self/fd/${handle.fd}`) : await fsp.realpath(realPath);
  if (!isInside(root, where)) throw new AppError('PATH_OUTSIDE', 'The path leads outside its volume.');
}

export async function openForRead(realPath: string, root: string): Promise<{ handle: fsp.FileHandle; stat: fs.Stats }> {
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(realPath, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw new AppError('NOT_FOUND', 'No such file.');
    throw fromFsError(err) ?? err;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new AppError('NOT_FOUND', 'No such file.');
    await confirmInside(handle, realPath, root);
    return { handle, stat };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** A finished temporary beside its target, on the work journal until it is placed or removed. */
export interface Temporary {
  path: string;
  size: number;
  /** Takes it off the journal: it took its name, or it is gone. */
  settled(): void;
}

/**
 * Streams `source` into a new temporary file in `dir`; refuses past `maxBytes` (413) and leaves
 * nothing. The body may stream for minutes: the temporary is on the journal from before it
 * exists, so a crash meanwhile leaves it to the next start to remove.
 */
export async function writeTemporary(
  journal: WorkJournal,
  dir: string,
  root: string,
  source: AsyncIterable<Uint8Array> | Readable,
  maxBytes: number,
  mode = 0o644,
): Promise<Temporary> {
  const temp = path.join(dir, temporaryName());
  const row = journal.begin(temp);
  const settled = () => journal.end(row);
  const handle = await fsp
    .open(temp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, mode)
    .catch((err) => {
      settled();
      throw fromFsError(err) ?? err;
    });
  let size = 0;
  try {
    await confirmInside(handle, temp, root);
    for await (const chunk of source) {
      size += chunk.length;
      if (size > maxBytes)
        throw new AppError(
          'OFFICE_TOO_LARGE',
          `The document is larger than this server accepts from the editor (${maxBytes} bytes).`,
        );
      await handle.write(chunk);
    }
    await handle.sync();
    await handle.close();
    return { path: temp, size, settled };
  } catch (err) {
    await handle.close().catch(() => {});
    await fsp.rm(temp, { force: true });
    settled();
    throw fromFsError(err) ?? err;
  }
}

/** Removes a temporary that will not be placed. */
export async function discardTemporary(temp: Temporary): Promise<void> {
  try {
    await fsp.rm(temp.path, { force: true });
  } finally {
    temp.settled();
  }
}

/** Puts a finished temporary in place of `realPath`, keeping what it replaces as a version. */
export async function replaceKeepingVersion(
  temp: Temporary,
  realPath: string,
  versions: VersionService,
  username: string,
): Promise<fs.Stats> {
  try {
    const mode = (await fsp.lstat(realPath)).mode & 0o7777;
    await fsp.chmod(temp.path, mode);
    await versions.keep(realPath, username, undefined, { replacement: temp.path });
    await fsp.rename(temp.path, realPath);
  } catch (err) {
    await fsp.rm(temp.path, { force: true });
    throw fromFsError(err) ?? err;
  } finally {
    temp.settled();
  }
  return fsp.stat(realPath);
}

/** A short version label of a file's content state (changes with any write). */
export function versionOf(stat: fs.Stats): string {
  return `${stat.ino.toString(36)}-${stat.size.toString(36)}-${Math.round(stat.mtimeMs * 1000).toString(36)}`;
}

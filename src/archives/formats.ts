// Which reader opens an archive: the bytes decide, the name only breaks ties (a `.zip` that is
// really a 7z still opens; a tar inside a `.gz` named without `.tar` is still a tar).
import fs from 'node:fs';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { unsupported } from './errors.ts';

export type Format = 'zip' | 'tar' | 'tar.gz' | 'tar.bz2' | 'tar.xz' | 'gz' | 'bz2' | 'xz' | 'sevenzip';

/** Formats whose listing means decompressing the whole archive (MAX_BROWSABLE_ARCHIVE_SIZE). */
export const isCompound = (f: Format) => f === 'tar.gz' || f === 'tar.bz2' || f === 'tar.xz';

/** What 7-Zip opens for us beyond zip and the tar family (its own list is longer; these are the ones we offer). */
const SEVENZIP_NAMES =
  /\.(7z|rar|iso|cab|arj|lzh|lha|cpio|rpm|deb|wim|xar|dmg|vhd|vhdx|vmdk|qcow2?|squashfs|img|chm|msi|nsis|udf|zipx|z|lzma|tbz|zst|tzst)$/i;

export function looksLikeArchive(name: string): boolean {
  return /\.(zip|tar|tgz|taz|tbz2?|txz|gz|bz2|xz)$/i.test(name) || SEVENZIP_NAMES.test(name);
}

const read = promisify(fs.read);

export async function detectFormat(fd: number, name: string, size: number): Promise<Format> {
  const head = Buffer.alloc(Math.min(size, 512));
  if (head.length) await read(fd, head, 0, head.length, 0);
  const lower = name.toLowerCase();
  const isTar = (b: Buffer) => b.length >= 262 && b.toString('latin1', 257, 262) === 'ustar';
  if (head.length >= 4 && head.readUInt32LE(0) === 0x04034b50) return 'zip';
  if (head.length >= 4 && head.readUInt32LE(0) === 0x06054b50) return 'zip'; // empty zip
  if (head[0] === 0x1f && head[1] === 0x8b) {
    if (/\.(tar\.gz|tgz|taz)$/.test(lower)) return 'tar.gz';
    return isTar(await gunzipHead(fd, size)) ? 'tar.gz' : 'gz';
  }
  if (head.toString('latin1', 0, 3) === 'BZh')
    return /\.(tar\.bz2|tbz2?)$/.test(lower) || !/\.bz2$/.test(lower) ? 'tar.bz2' : 'bz2';
  if (head.length >= 6 && head.subarray(0, 6).equals(Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00])))
    return /\.(tar\.xz|txz)$/.test(lower) || !/\.xz$/.test(lower) ? 'tar.xz' : 'xz';
  if (isTar(head)) return 'tar';
  if (/\.tar$/.test(lower) && size % 512 === 0) return 'tar';
  if (SEVENZIP_NAMES.test(lower) || sevenZipMagic(head)) return 'sevenzip';
  if (/\.zip$/.test(lower)) return 'zip'; // let yauzl say what is wrong with it
  throw unsupported();
}

function sevenZipMagic(head: Buffer): boolean {
  const s = head.toString('latin1', 0, 8);
  return s.startsWith('7z\xbc\xaf\x27\x1c') || s.startsWith('Rar!') || s.startsWith('MSCF');
}

/** The first 512 bytes of a gzip stream (enough to see a tar header), from at most 64 KiB read. */
async function gunzipHead(fd: number, size: number): Promise<Buffer> {
  const chunk = Buffer.alloc(Math.min(size, 64 * 1024));
  await read(fd, chunk, 0, chunk.length, 0);
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    let got = 0;
    const gunzip = zlib.createGunzip();
    const finish = () => {
      gunzip.destroy();
      resolve(Buffer.concat(out).subarray(0, 512));
    };
    gunzip.on('data', (b: Buffer) => {
      out.push(b);
      got += b.length;
      if (got >= 512) finish();
    });
    gunzip.on('error', finish);
    gunzip.on('end', finish);
    gunzip.end(chunk);
  });
}

/** A plain .gz / .bz2 / .xz holds one file: its name without that extension. */
export function singleStreamName(archiveName: string): string {
  const stripped = archiveName.replace(/\.(gz|bz2|xz)$/i, '');
  return stripped && stripped !== archiveName ? stripped : `${archiveName}.out`;
}

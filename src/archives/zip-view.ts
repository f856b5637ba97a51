// A zip entry compressed with a method we do not decode here (bzip2, LZMA, PPMd, Deflate64,
// xz, zstd…) is read by 7-Zip, but not by handing it the whole archive: 7-Zip would pick
// the entry by a name it decodes its own way (CP437, duplicates, names we left out), and
// would read the whole central directory for one entry. It is shown instead a one-entry
// zip of its own: headers made here around the entry's compressed bytes, which stay where
// they are in the archive (a range of the same descriptor). Always ZIP64, so one layout
// serves every size.
import fs from 'node:fs';
import { promisify } from 'node:util';
import { unreadable } from './errors.ts';
import type { ViewPart } from './sevenzip-protocol.ts';
import type { ZipRef } from './zip-reader.ts';

/** The name the entry has in the one-entry zip (7-Zip is asked for exactly this). */
export const VIEW_ENTRY = 'entry';

const read = promisify(fs.read);
const NAME = Buffer.from(VIEW_ENTRY);
const VERSION = 45; // ZIP64
const DOS_DATE = (0 << 9) | (1 << 5) | 1; // 1980-01-01: the time is not what is asked for
const MAX32 = 0xffffffff;

/** The parts 7-Zip reads as a zip holding only this entry, and their total size. */
export async function oneEntryZip(
  fd: number,
  archiveSize: number,
  ref: ZipRef,
  name: string,
): Promise<{ view: ViewPart[]; size: number }> {
  const local = Buffer.alloc(30);
  const got = ref.offset + 30 <= archiveSize ? (await read(fd, local, 0, 30, ref.offset)).bytesRead : 0;
  if (got !== 30 || local.readUInt32LE(0) !== 0x04034b50) throw unreadable(`"${name}" has no local header`);
  const dataAt = ref.offset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
  if (dataAt + ref.csize > archiveSize) throw unreadable(`"${name}" runs past the end of the archive`);
  // Bit 3 (sizes in a descriptor after the data) is dropped: the sizes are in these headers.
  // Bits 1-2 stay: they are options of the method (LZMA's end marker, Deflate64's settings).
  const flags = ref.flags & 0x0006;
  const sizes = Buffer.alloc(20);
  sizes.writeUInt16LE(0x0001, 0);
  sizes.writeUInt16LE(16, 2);
  sizes.writeBigUInt64LE(BigInt(ref.usize), 4);
  sizes.writeBigUInt64LE(BigInt(ref.csize), 12);

  const head = Buffer.alloc(30);
  head.writeUInt32LE(0x04034b50, 0);
  head.writeUInt16LE(VERSION, 4);
  head.writeUInt16LE(flags, 6);
  head.writeUInt16LE(ref.method, 8);
  head.writeUInt16LE(DOS_DATE, 12);
  head.writeUInt32LE(ref.crc, 14);
  head.writeUInt32LE(MAX32, 18);
  head.writeUInt32LE(MAX32, 22);
  head.writeUInt16LE(NAME.length, 26);
  head.writeUInt16LE(sizes.length, 28);
  const localSize = head.length + NAME.length + sizes.length;

  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(VERSION, 4);
  central.writeUInt16LE(VERSION, 6);
  central.writeUInt16LE(flags, 8);
  central.writeUInt16LE(ref.method, 10);
  central.writeUInt16LE(DOS_DATE, 14);
  central.writeUInt32LE(ref.crc, 16);
  central.writeUInt32LE(MAX32, 20);
  central.writeUInt32LE(MAX32, 24);
  central.writeUInt16LE(NAME.length, 28);
  central.writeUInt16LE(sizes.length, 30);
  const centralAt = localSize + ref.csize;
  const centralSize = central.length + NAME.length + sizes.length;

  const end64At = centralAt + centralSize;
  const end = Buffer.alloc(56 + 20 + 22);
  end.writeUInt32LE(0x06064b50, 0);
  end.writeBigUInt64LE(44n, 4);
  end.writeUInt16LE(VERSION, 12);
  end.writeUInt16LE(VERSION, 14);
  end.writeBigUInt64LE(1n, 24);
  end.writeBigUInt64LE(1n, 32);
  end.writeBigUInt64LE(BigInt(centralSize), 40);
  end.writeBigUInt64LE(BigInt(centralAt), 48);
  end.writeUInt32LE(0x07064b50, 56);
  end.writeBigUInt64LE(BigInt(end64At), 64);
  end.writeUInt32LE(1, 72);
  end.writeUInt32LE(0x06054b50, 76);
  end.writeUInt16LE(1, 84);
  end.writeUInt16LE(1, 86);
  end.writeUInt32LE(centralSize, 88);
  end.writeUInt32LE(MAX32, 92);

  const view: ViewPart[] = [
    { bytes: Buffer.concat([head, NAME, sizes]) },
    { at: dataAt, length: ref.csize },
    { bytes: Buffer.concat([central, NAME, sizes, end]) },
  ];
  return { view, size: end64At + end.length };
}

// Zip entries compressed with a method we do not decode here (bzip2, LZMA, PPMd, Deflate64,
// xz, zstd…) are read by 7-Zip, but not by handing it the whole archive: 7-Zip would pick
// entries by names it decodes its own way (CP437, duplicates, names we left out), and would
// read the whole central directory for one entry. It is shown instead a zip of just those
// entries, named by their index: headers made here around each entry's compressed bytes,
// which stay where they are in the archive (ranges of the same descriptor). Always ZIP64, so
// one layout serves every size and offset.
import fs from 'node:fs';
import { promisify } from 'node:util';
import { unreadable } from './errors.ts';
import type { ViewPart } from './sevenzip-protocol.ts';
import type { ZipRef } from './zip-reader.ts';

const read = promisify(fs.read);
const VERSION = 45; // ZIP64
const DOS_DATE = (0 << 9) | (1 << 5) | 1; // 1980-01-01: the time is not what is asked for
const MAX32 = 0xffffffff;

export interface ViewEntry {
  ref: ZipRef;
  /** The entry's path, for messages. */
  name: string;
}

/**
 * The parts 7-Zip reads as a zip holding only `entries`, named `0`, `1`… in that order, and
 * their total size. One local header is read per entry (to find where its bytes start).
 */
export async function entriesZip(
  fd: number,
  archiveSize: number,
  entries: readonly ViewEntry[],
): Promise<{ view: ViewPart[]; size: number }> {
  const view: ViewPart[] = [];
  const centrals: Buffer[] = [];
  let at = 0;
  for (const [i, { ref, name }] of entries.entries()) {
    const local = Buffer.alloc(30);
    const got = ref.offset + 30 <= archiveSize ? (await read(fd, local, 0, 30, ref.offset)).bytesRead : 0;
    if (got !== 30 || local.readUInt32LE(0) !== 0x04034b50) throw unreadable(`"${name}" has no local header`);
    const dataAt = ref.offset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
    if (dataAt + ref.csize > archiveSize) throw unreadable(`"${name}" runs past the end of the archive`);
    const entryName = Buffer.from(String(i));
    // Bit 3 (sizes in a descriptor after the data) is dropped: the sizes are in these headers.
    // Bits 1-2 stay: they are options of the method (LZMA's end marker, Deflate64's settings).
    const flags = ref.flags & 0x0006;
    const head = Buffer.alloc(30 + entryName.length + 20);
    head.writeUInt32LE(0x04034b50, 0);
    head.writeUInt16LE(VERSION, 4);
    head.writeUInt16LE(flags, 6);
    head.writeUInt16LE(ref.method, 8);
    head.writeUInt16LE(DOS_DATE, 12);
    head.writeUInt32LE(ref.crc, 14);
    head.writeUInt32LE(MAX32, 18);
    head.writeUInt32LE(MAX32, 22);
    head.writeUInt16LE(entryName.length, 26);
    head.writeUInt16LE(20, 28);
    entryName.copy(head, 30);
    zip64Sizes(head, 30 + entryName.length, ref);
    view.push({ bytes: head }, { at: dataAt, length: ref.csize });

    const central = Buffer.alloc(46 + entryName.length + 28);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(VERSION, 4);
    central.writeUInt16LE(VERSION, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(ref.method, 10);
    central.writeUInt16LE(DOS_DATE, 14);
    central.writeUInt32LE(ref.crc, 16);
    central.writeUInt32LE(MAX32, 20);
    central.writeUInt32LE(MAX32, 24);
    central.writeUInt16LE(entryName.length, 28);
    central.writeUInt16LE(28, 30);
    central.writeUInt32LE(MAX32, 42);
    entryName.copy(central, 46);
    zip64Sizes(central, 46 + entryName.length, ref, at);
    centrals.push(central);
    at += head.length + ref.csize;
  }
  const centralAt = at;
  const centralSize = centrals.reduce((n, c) => n + c.length, 0);
  const end64At = centralAt + centralSize;
  const count = BigInt(entries.length);
  const end = Buffer.alloc(56 + 20 + 22);
  end.writeUInt32LE(0x06064b50, 0);
  end.writeBigUInt64LE(44n, 4);
  end.writeUInt16LE(VERSION, 12);
  end.writeUInt16LE(VERSION, 14);
  end.writeBigUInt64LE(count, 24);
  end.writeBigUInt64LE(count, 32);
  end.writeBigUInt64LE(BigInt(centralSize), 40);
  end.writeBigUInt64LE(BigInt(centralAt), 48);
  end.writeUInt32LE(0x07064b50, 56);
  end.writeBigUInt64LE(BigInt(end64At), 64);
  end.writeUInt32LE(1, 72);
  end.writeUInt32LE(0x06054b50, 76);
  end.writeUInt16LE(0xffff, 84);
  end.writeUInt16LE(0xffff, 86);
  end.writeUInt32LE(MAX32, 88);
  end.writeUInt32LE(MAX32, 92);
  view.push({ bytes: Buffer.concat([...centrals, end]) });
  return { view, size: end64At + end.length };
}

/** The ZIP64 extra field: sizes (and, in the central directory, the local header's offset). */
function zip64Sizes(buf: Buffer, at: number, ref: ZipRef, offset?: number): void {
  buf.writeUInt16LE(0x0001, at);
  buf.writeUInt16LE(offset === undefined ? 16 : 24, at + 2);
  buf.writeBigUInt64LE(BigInt(ref.usize), at + 4);
  buf.writeBigUInt64LE(BigInt(ref.csize), at + 12);
  if (offset !== undefined) buf.writeBigUInt64LE(BigInt(offset), at + 20);
}

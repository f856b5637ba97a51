// A photo's place taken out of the bytes a link holder is sent: its EXIF GPS directory is emptied
// (its entry count 0, its entries and the values they point at zeroed) and an XMP packet that
// names a GPS position is blanked (spaces, as XMP pads itself) — a JPEG's in its first segments,
// a PNG's, WebP's or HEIF's wherever the container keeps them (containers.ts). The file keeps its
// length and every other byte, so Range, Content-Length and the picture itself (orientation
// included) are unchanged: the changed bytes go out as patches over the file's (core/patches.ts).
import fs from 'node:fs';
import zlib from 'node:zlib';
import type { Patch } from '../core/patches.ts';
import { metadataBlocks, readAtFd, type ReadAt } from './containers.ts';

/** The head read: APP segments are at most 64 KiB each and come first. */
const HEAD_BYTES = 256 * 1024;
const TYPE_WIDTH: Record<number, number> = {
  1: 1,
  2: 1,
  3: 2,
  4: 4,
  5: 8,
  6: 1,
  7: 1,
  8: 2,
  9: 4,
  10: 8,
  11: 4,
  12: 8,
};

/** Empties the GPS directory of the TIFF block at `tiff` (an EXIF APP1's body) in place; true when one was found. */
function emptyGps(buf: Buffer, tiff: number, end: number): boolean {
  const le = buf.toString('latin1', tiff, tiff + 2) === 'II';
  if (!le && buf.toString('latin1', tiff, tiff + 2) !== 'MM') return false;
  const u16 = (at: number) => (le ? buf.readUInt16LE(at) : buf.readUInt16BE(at));
  const u32 = (at: number) => (le ? buf.readUInt32LE(at) : buf.readUInt32BE(at));
  const inside = (at: number, n: number) => at >= tiff && at + n <= end;
  const ifd0 = tiff + u32(tiff + 4);
  if (!inside(ifd0, 2)) return false;
  const entries = u16(ifd0);
  let gps = -1;
  for (let i = 0; i < entries; i++) {
    const e = ifd0 + 2 + i * 12;
    if (!inside(e, 12)) return false;
    if (u16(e) === 0x8825) gps = tiff + u32(e + 8);
  }
  if (gps < 0 || !inside(gps, 2)) return false;
  const count = u16(gps);
  for (let i = 0; i < count; i++) {
    const e = gps + 2 + i * 12;
    if (!inside(e, 12)) break;
    const bytes = (TYPE_WIDTH[u16(e + 2)] ?? 1) * u32(e + 4);
    if (bytes > 4) {
      const at = tiff + u32(e + 8);
      if (inside(at, bytes)) buf.fill(0, at, at + bytes);
    }
    buf.fill(0, e, e + 12);
  }
  buf.fill(0, gps, gps + 2);
  return true;
}

/**
 * The first bytes of a JPEG with its location taken out, or null when it names none (send the
 * file as it is). `head` is the file's first bytes; the answer has the same length.
 */
function withoutLocation(head: Buffer): Buffer | null {
  if (head.length < 4 || head[0] !== 0xff || head[1] !== 0xd8) return null;
  const out = Buffer.from(head);
  let changed = false;
  let at = 2;
  while (at + 4 <= out.length && out[at] === 0xff) {
    const marker = out[at + 1]!;
    if (marker === 0xda || marker === 0xd9) break; // the picture data starts: no more metadata
    const length = out.readUInt16BE(at + 2);
    const body = at + 4;
    const end = at + 2 + length;
    if (length < 2 || end > out.length) break;
    if (marker === 0xe1) {
      const sig = out.toString('latin1', body, Math.min(end, body + 29));
      if (sig.startsWith('Exif\0')) changed = emptyGps(out, body + 6, end) || changed;
      else if (
        sig.startsWith('http://ns.adobe.com/xap/1.0/') &&
        /GPS(Latitude|Longitude)/.test(out.toString('latin1', body, end))
      ) {
        out.fill(0x20, body + 29, end);
        changed = true;
      }
    }
    at = end;
  }
  return changed ? out : null;
}

/**
 * Patches that take the place out of a PNG, WebP or HEIF (HEIC, AVIF) file wherever its EXIF and
 * XMP are (containers.ts): the GPS directory emptied, an XMP packet that names a position blanked
 * (spaces); a PNG chunk's CRC written again (a reader would drop a chunk whose CRC fails, but the
 * bytes would still be there). Empty when it names no place.
 */
async function containerPatches(read: ReadAt, size: number): Promise<Patch[]> {
  const patches: Patch[] = [];
  for (const block of await metadataBlocks(read, size)) {
    // A PNG's patch runs from the chunk's type to its CRC; the others are the block itself.
    const from = block.crcFrom ?? block.at;
    const bytes = Buffer.from(await read(from, block.at + block.length + (block.crcFrom ? 4 : 0) - from));
    const data = block.at - from;
    const end = data + block.length;
    if (bytes.length < end) continue;
    let touched = false;
    if (block.kind === 'exif') touched = emptyGps(bytes, data + block.tiff, end);
    else if (/GPS(Latitude|Longitude)/.test(bytes.toString('latin1', data, end))) {
      // A PNG's iTXt keeps its keyword, flags, language and translated keyword; the XML is blanked.
      const text = block.crcFrom ? data + 22 : data;
      if (block.crcFrom) {
        bytes.fill(0x20, text, end);
      } else {
        // Blanked inside the packet's wrapper, so a reader still finds an (empty) XMP packet.
        const xml = bytes.toString('latin1', data, end);
        const open = xml.indexOf('?>');
        const close = xml.lastIndexOf('<?xpacket end');
        bytes.fill(0x20, open >= 0 ? data + open + 2 : data, close > open ? data + close : end);
      }
      touched = true;
    }
    if (!touched) continue;
    if (block.crcFrom) bytes.writeUInt32BE(zlib.crc32(bytes.subarray(0, end)), end);
    patches.push({ at: from, bytes });
  }
  return patches;
}

/** Pictures whose place is taken out: JPEG (APP1 EXIF and XMP), PNG, WebP and HEIF (EXIF and XMP, wherever). */
const SCRUBBED = /\.(jpe?g|png|webp|hei[cf]|avif)$/i;
const JPEG = /\.jpe?g$/i;

/**
 * What a link holder is sent in place of some of the photo `name` open as `fd` (patches.ts):
 * its place taken out, or nothing to change.
 */
export async function locationPatches(name: string, fd: number, size: number): Promise<Patch[]> {
  if (!SCRUBBED.test(name)) return [];
  if (JPEG.test(name)) {
    const head = await locationFreeHead(fd, size);
    return head ? [{ at: 0, bytes: head }] : [];
  }
  return containerPatches(readAtFd(fd), size);
}

/** The location-free head of the open JPEG `fd` (same length as read), or null when it has no location. */
async function locationFreeHead(fd: number, size: number): Promise<Buffer | null> {
  const head = Buffer.alloc(Math.min(size, HEAD_BYTES));
  const n = await new Promise<number>((resolve, reject) =>
    fs.read(fd, head, 0, head.length, 0, (err, read) => (err ? reject(err) : resolve(read))),
  );
  return withoutLocation(head.subarray(0, n));
}

/**
 * The patches for the photo `name` open as `fd` sent to a link holder, or undefined when there
 * is nothing to take out (or the link's owner lets its holders see where photos were taken).
 */
export async function linkPatches(name: string, fd: number, size: number, keep: boolean): Promise<Patch[] | undefined> {
  if (keep) return undefined;
  const patches = await locationPatches(name, fd, size);
  return patches.length ? patches : undefined;
}

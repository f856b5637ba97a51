// A photo's place taken out of the bytes a link holder is sent: the JPEG's (or PNG's eXIf) EXIF GPS directory is
// emptied (its entry count 0, its entries and the values they point at zeroed) and an XMP packet
// that names a GPS position is blanked (spaces, as XMP pads itself). The file keeps its length and
// every other byte, so Range, Content-Length and the picture itself (orientation included) are
// unchanged; only the first segments are touched, so only the head is read.
import fs from 'node:fs';
import zlib from 'node:zlib';

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
export function withoutLocation(head: Buffer): Buffer | null {
  if (head.subarray(0, 8).equals(PNG_SIGNATURE)) return pngWithoutLocation(head);
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

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * A PNG's EXIF (its eXIf chunk: a TIFF block) with the GPS directory emptied and the chunk's CRC
 * written again (a reader would drop a chunk whose CRC fails, but the bytes would still be
 * there); an XMP packet (iTXt XML:com.adobe.xmp) naming a position is blanked likewise. Chunks
 * are walked until the picture data (IDAT) or the end of the head.
 */
function pngWithoutLocation(head: Buffer): Buffer | null {
  const out = Buffer.from(head);
  let changed = false;
  for (let at = 8; at + 12 <= out.length;) {
    const length = out.readUInt32BE(at);
    const type = out.toString('latin1', at + 4, at + 8);
    const data = at + 8;
    const end = data + length;
    if (type === 'IDAT' || type === 'IEND' || end + 4 > out.length) break;
    let touched = false;
    if (type === 'eXIf') touched = emptyGps(out, data, end);
    else if (
      type === 'iTXt' &&
      out.toString('latin1', data, Math.min(end, data + 18)) === 'XML:com.adobe.xmp\0' &&
      /GPS(Latitude|Longitude)/.test(out.toString('latin1', data, end))
    ) {
      // Keyword, flags, language and translated keyword kept; the XML text blanked.
      out.fill(0x20, data + 22, end);
      touched = true;
    }
    if (touched) {
      out.writeUInt32BE(zlib.crc32(out.subarray(at + 4, end)), end);
      changed = true;
    }
    at = end + 4;
  }
  return changed ? out : null;
}

/** The location-free head of the open JPEG `fd` (same length as read), or null when it has no location. */
export async function locationFreeHead(fd: number, size: number): Promise<Buffer | null> {
  const head = Buffer.alloc(Math.min(size, HEAD_BYTES));
  const n = await new Promise<number>((resolve, reject) =>
    fs.read(fd, head, 0, head.length, 0, (err, read) => (err ? reject(err) : resolve(read))),
  );
  return withoutLocation(head.subarray(0, n));
}

/** Pictures whose place is taken out: JPEG (APP1 EXIF and XMP) and PNG (eXIf and XMP). */
const SCRUBBED = /\.(jpe?g|png)$/i;

/** Takes a JPEG's or PNG's location out of `head` (its first bytes, as read) in place; other files are left as they are. */
export function scrubLocation(name: string, head: Buffer): void {
  if (!SCRUBBED.test(name)) return;
  withoutLocation(head)?.copy(head);
}

/**
 * The location-free head of the JPEG `name` open as `fd` for a link holder, or undefined when
 * there is nothing to take out (or the link's owner lets its holders see where photos were taken).
 */
export async function linkHead(name: string, fd: number, size: number, keep: boolean): Promise<Buffer | undefined> {
  if (keep || !SCRUBBED.test(name)) return undefined;
  return (await locationFreeHead(fd, size)) ?? undefined;
}

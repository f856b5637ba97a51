import fs from 'node:fs';

// Where a picture keeps its EXIF and XMP, wherever in the file that is: a PNG's eXIf and XMP
// iTXt chunks (before or after the picture data), a WebP's EXIF and "XMP " chunks (RIFF, written
// after the picture), and a HEIF's (HEIC, AVIF) Exif and XMP items (their bytes where the meta
// box's item locations say, often at the end of the file). Only the containers' own headers are
// read to find them, never the picture: a few small reads whatever the file's size. JPEG keeps
// both in its first segments (location.ts reads its head).

/** Reads up to `length` bytes at `at` (fewer at the end of the file). */
export type ReadAt = (at: number, length: number) => Promise<Buffer>;

/**
 * A block of metadata in the file. `tiff`: where the TIFF header starts within an EXIF block.
 * `crcFrom`: a PNG chunk's type offset (its CRC, after the block, covers type and data).
 */
export interface MetadataBlock {
  kind: 'exif' | 'xmp';
  at: number;
  length: number;
  tiff: number;
  crcFrom?: number;
}

/** A block larger than this is not metadata a camera wrote: left alone. */
const MAX_BLOCK = 4 * 1024 * 1024;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const XMP_KEYWORD = 'XML:com.adobe.xmp\0';

/** The metadata blocks of a PNG, WebP or HEIF file of `size` bytes; empty for anything else. */
export async function metadataBlocks(read: ReadAt, size: number): Promise<MetadataBlock[]> {
  const start = await read(0, 32);
  if (start.subarray(0, 8).equals(PNG_SIGNATURE)) return pngBlocks(read, size);
  if (start.toString('latin1', 0, 4) === 'RIFF' && start.toString('latin1', 8, 12) === 'WEBP')
    return webpBlocks(read, size);
  if (start.toString('latin1', 4, 8) === 'ftyp') return heifBlocks(read, size);
  return [];
}

const small = (b: MetadataBlock) => b.length > 0 && b.length <= MAX_BLOCK;

async function pngBlocks(read: ReadAt, size: number): Promise<MetadataBlock[]> {
  const blocks: MetadataBlock[] = [];
  for (let at = 8; at + 12 <= size;) {
    const head = await read(at, 8 + XMP_KEYWORD.length);
    if (head.length < 8) break;
    const length = head.readUInt32BE(0);
    const type = head.toString('latin1', 4, 8);
    const data = at + 8;
    if (type === 'IEND' || data + length + 4 > size) break;
    if (type === 'eXIf') blocks.push({ kind: 'exif', at: data, length, tiff: 0, crcFrom: at + 4 });
    else if (type === 'iTXt' && head.toString('latin1', 8, 8 + XMP_KEYWORD.length) === XMP_KEYWORD)
      blocks.push({ kind: 'xmp', at: data, length, tiff: 0, crcFrom: at + 4 });
    at = data + length + 4;
  }
  return blocks.filter(small);
}

async function webpBlocks(read: ReadAt, size: number): Promise<MetadataBlock[]> {
  const blocks: MetadataBlock[] = [];
  for (let at = 12; at + 8 <= size;) {
    const head = await read(at, 14);
    if (head.length < 8) break;
    const type = head.toString('latin1', 0, 4);
    const length = head.readUInt32LE(4);
    const data = at + 8;
    if (data + length > size) break;
    // Some writers put JPEG's "Exif\0\0" before the TIFF header.
    if (type === 'EXIF') blocks.push({ kind: 'exif', at: data, length, tiff: exifPrefix(head.subarray(8)) });
    else if (type === 'XMP ') blocks.push({ kind: 'xmp', at: data, length, tiff: 0 });
    at = data + length + (length & 1);
  }
  return blocks.filter(small);
}

const exifPrefix = (b: Buffer) => (b.toString('latin1', 0, 6) === 'Exif\0\0' ? 6 : 0);

/** An ISO-BMFF box: its type, where its body starts and where it ends. */
interface Box {
  type: string;
  body: number;
  end: number;
}

/** The file's top-level boxes. */
const topBoxes = (read: ReadAt, size: number): Promise<Box[]> => boxesIn(read, 0, size, 64);

/** The boxes between `from` and `to` of the file (at most `most`), by their headers alone (positioned reads). */
async function boxesIn(read: ReadAt, from: number, to: number, most = 256): Promise<Box[]> {
  const boxes: Box[] = [];
  for (let at = from; at + 8 <= to && boxes.length < most;) {
    const head = await read(at, 16);
    if (head.length < 8) break;
    let length = head.readUInt32BE(0);
    let body = at + 8;
    if (length === 1) {
      if (head.length < 16) break;
      length = Number(head.readBigUInt64BE(8));
      body = at + 16;
    } else if (length === 0) length = to - at;
    if (length < body - at || at + length > to) break;
    boxes.push({ type: head.toString('latin1', 4, 8), body, end: at + length });
    at += length;
  }
  return boxes;
}

/** The child boxes of `buf` between `from` and `to` (offsets within the buffer). */
function childBoxes(buf: Buffer, from: number, to: number): Box[] {
  const boxes: Box[] = [];
  for (let at = from; at + 8 <= to;) {
    const length = buf.readUInt32BE(at);
    if (length < 8 || at + length > to) break;
    boxes.push({ type: buf.toString('latin1', at + 4, at + 8), body: at + 8, end: at + length });
    at += length;
  }
  return boxes;
}

/**
 * A HEIF's Exif and XMP items: the meta box's item information (iinf: which item is which) and
 * item locations (iloc: where each one's bytes are — in the file, or in the meta box's idat).
 */
async function heifBlocks(read: ReadAt, size: number): Promise<MetadataBlock[]> {
  const found = await heifMeta(read, size);
  if (!found) return [];
  const { meta, buf, children } = found;
  const iinf = children.find((b) => b.type === 'iinf');
  const iloc = children.find((b) => b.type === 'iloc');
  const idat = children.find((b) => b.type === 'idat');
  if (!iinf || !iloc) return [];
  const kinds = itemKinds(buf, iinf);
  const blocks: MetadataBlock[] = [];
  for (const loc of itemLocations(buf, iloc)) {
    const kind = kinds.get(loc.id);
    if (!kind || loc.method > 1 || (loc.method === 1 && !idat)) continue;
    const at = loc.method === 1 ? meta.body + idat!.body + loc.offset : loc.offset;
    if (at + loc.length > size) continue;
    if (kind === 'xmp') {
      blocks.push({ kind, at, length: loc.length, tiff: 0 });
      continue;
    }
    // An Exif item starts with the offset of its TIFF header after these four bytes.
    const head = await read(at, 4);
    if (head.length < 4) continue;
    const tiff = 4 + head.readUInt32BE(0);
    if (tiff < loc.length) blocks.push({ kind, at, length: loc.length, tiff });
  }
  return blocks.filter(small);
}

/** A HEIF's meta box, read whole (it is small: item lists and properties, no picture). */
async function heifMeta(read: ReadAt, size: number): Promise<{ meta: Box; buf: Buffer; children: Box[] } | null> {
  const meta = (await topBoxes(read, size)).find((b) => b.type === 'meta');
  if (!meta || meta.end - meta.body > MAX_BLOCK) return null;
  const buf = await read(meta.body, meta.end - meta.body);
  // meta is a full box: version and flags first.
  return { meta, buf, children: childBoxes(buf, 4, buf.length) };
}

/**
 * A HEIF picture's width and height, from its image spatial extents (ispe properties): the
 * largest, as the whole picture is (its tiles and thumbnail are smaller); null for other files.
 */
export async function heifDimensions(read: ReadAt, size: number): Promise<{ width: number; height: number } | null> {
  const start = await read(0, 8);
  if (start.toString('latin1', 4, 8) !== 'ftyp') return null;
  const found = await heifMeta(read, size).catch(() => null);
  const iprp = found?.children.find((b) => b.type === 'iprp');
  const ipco = iprp && childBoxes(found!.buf, iprp.body, iprp.end).find((b) => b.type === 'ipco');
  if (!ipco) return null;
  let best: { width: number; height: number } | null = null;
  for (const p of childBoxes(found!.buf, ipco.body, ipco.end)) {
    if (p.type !== 'ispe' || p.end - p.body < 12) continue;
    const width = found!.buf.readUInt32BE(p.body + 4);
    const height = found!.buf.readUInt32BE(p.body + 8);
    if (!best || width * height > best.width * best.height) best = { width, height };
  }
  return best;
}

/** Item ids of the Exif items and of the XMP ones (mime items of type application/rdf+xml). */
function itemKinds(buf: Buffer, iinf: Box): Map<number, 'exif' | 'xmp'> {
  const kinds = new Map<number, 'exif' | 'xmp'>();
  const version = buf[iinf.body]!;
  const first = iinf.body + 4 + (version === 0 ? 2 : 4);
  for (const infe of childBoxes(buf, first, iinf.end)) {
    if (infe.type !== 'infe') continue;
    const v = buf[infe.body]!;
    if (v < 2) continue;
    let at = infe.body + 4;
    const id = v === 2 ? buf.readUInt16BE(at) : buf.readUInt32BE(at);
    at += (v === 2 ? 2 : 4) + 2; // item_ID, item_protection_index
    const type = buf.toString('latin1', at, at + 4);
    at += 4;
    if (type === 'Exif') kinds.set(id, 'exif');
    else if (type === 'mime') {
      const nameEnd = buf.indexOf(0, at);
      if (nameEnd < 0 || nameEnd >= infe.end) continue;
      const typeEnd = buf.indexOf(0, nameEnd + 1);
      const contentType = buf.toString('latin1', nameEnd + 1, typeEnd < 0 || typeEnd > infe.end ? infe.end : typeEnd);
      if (contentType === 'application/rdf+xml') kinds.set(id, 'xmp');
    }
  }
  return kinds;
}

interface ItemLocation {
  id: number;
  method: number;
  offset: number;
  length: number;
}

/** The items' locations (ISO/IEC 14496-12 iloc, versions 0–2); an item in several pieces is left out. */
function itemLocations(buf: Buffer, iloc: Box): ItemLocation[] {
  const out: ItemLocation[] = [];
  let at = iloc.body;
  const version = buf[at]!;
  if (version > 2) return out;
  at += 4;
  const sizes = buf.readUInt16BE(at);
  at += 2;
  const offsetSize = sizes >> 12;
  const lengthSize = (sizes >> 8) & 15;
  const baseSize = (sizes >> 4) & 15;
  const indexSize = version === 0 ? 0 : sizes & 15;
  const uint = (width: number): number => {
    if (at + width > iloc.end) throw new RangeError('iloc ends early');
    const v =
      width === 0 ? 0 : width === 4 ? buf.readUInt32BE(at) : width === 8 ? Number(buf.readBigUInt64BE(at)) : NaN;
    at += width;
    if (Number.isNaN(v)) throw new RangeError(`iloc field of ${width} bytes`);
    return v;
  };
  try {
    const count = version < 2 ? ((at += 2), buf.readUInt16BE(at - 2)) : uint(4);
    for (let i = 0; i < count; i++) {
      const id = version < 2 ? ((at += 2), buf.readUInt16BE(at - 2)) : uint(4);
      const method = version === 0 ? 0 : ((at += 2), buf.readUInt16BE(at - 2) & 15);
      at += 2; // data_reference_index
      const base = uint(baseSize);
      const extents = ((at += 2), buf.readUInt16BE(at - 2));
      let offset = 0;
      let length = 0;
      for (let e = 0; e < extents; e++) {
        uint(indexSize);
        offset = uint(offsetSize);
        length = uint(lengthSize);
      }
      if (extents === 1) out.push({ id, method, offset: base + offset, length });
    }
  } catch {
    // A location list that ends early or uses widths the standard does not have: what was read.
  }
  return out;
}

/** A descriptor's ReadAt: positioned reads, never its offset. */
export function readAtFd(fd: number): ReadAt {
  return (at, length) =>
    new Promise((resolve, reject) => {
      const buf = Buffer.alloc(length);
      fs.read(fd, buf, 0, length, at, (err, n) => (err ? reject(err) : resolve(buf.subarray(0, n))));
    });
}

/** A buffer's ReadAt (the whole file already read). */
export const readAtBuffer =
  (bytes: Buffer): ReadAt =>
  async (at, length) =>
    bytes.subarray(at, at + length);

/** The TIFF block of a PNG's, WebP's or HEIF's EXIF (exifr reads it as a TIFF), or null. */
export async function exifTiff(read: ReadAt, size: number): Promise<Buffer | null> {
  const block = (await metadataBlocks(read, size)).find((b) => b.kind === 'exif');
  if (!block) return null;
  const bytes = await read(block.at, block.length);
  return bytes.length > block.tiff + 8 ? bytes.subarray(block.tiff) : null;
}

/** The Orientation (0x0112) of a TIFF block's first IFD, or null when it has none (or it is not a TIFF). */
export function tiffOrientation(tiff: Buffer): number | null {
  if (tiff.length < 8) return null;
  const order = tiff.toString('latin1', 0, 2);
  if (order !== 'II' && order !== 'MM') return null;
  const le = order === 'II';
  const u16 = (at: number) => (le ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const u32 = (at: number) => (le ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));
  const ifd = u32(4);
  if (ifd + 2 > tiff.length) return null;
  const count = u16(ifd);
  for (let i = 0; i < count; i++) {
    const entry = ifd + 2 + i * 12;
    if (entry + 12 > tiff.length) return null;
    // SHORT (type 3), one value: kept in the entry's first two value bytes.
    if (u16(entry) === 0x0112 && u16(entry + 2) === 3) {
      const value = u16(entry + 8);
      return value >= 1 && value <= 8 ? value : null;
    }
  }
  return null;
}

/**
 * How a HEIF picture is to be turned to be shown. Its own transformation properties (irot,
 * imir: what an iPhone writes), which the decoder applies, come first: the EXIF Orientation
 * beside them describes the stored picture before them and is then not applied again (in
 * HEIF the transformation properties are the ones that count). A file without them whose EXIF says to turn (as
 * libheif's heif-enc up to 1.16 writes it) is turned by that EXIF Orientation.
 */
export async function heifOrientation(
  read: ReadAt,
  size: number,
): Promise<{ transformed: boolean; exif: number | null }> {
  const found = await heifMeta(read, size).catch(() => null);
  const iprp = found?.children.find((b) => b.type === 'iprp');
  const ipco = iprp && childBoxes(found!.buf, iprp.body, iprp.end).find((b) => b.type === 'ipco');
  const transformed =
    !!ipco && childBoxes(found!.buf, ipco.body, ipco.end).some((b) => b.type === 'irot' || b.type === 'imir');
  const tiff = await exifTiff(read, size).catch(() => null);
  return { transformed, exif: tiff ? tiffOrientation(tiff) : null };
}

/** An ISO media file's (MP4, MOV, M4V, 3GP) first video and audio tracks, from its headers. */
export interface MovieTracks {
  width: number | null;
  height: number | null;
  /** ffprobe's names where they are known (h264, hevc, aac…), else the sample entry's four letters. */
  videoCodec: string | null;
  audioCodec: string | null;
}

/** Sample entry types as ffprobe names their codecs: the answer is the same with or without it. */
const SAMPLE_CODECS: Record<string, string> = {
  avc1: 'h264',
  avc3: 'h264',
  hvc1: 'hevc',
  hev1: 'hevc',
  av01: 'av1',
  vp08: 'vp8',
  vp09: 'vp9',
  mp4v: 'mpeg4',
  s263: 'h263',
  jpeg: 'mjpeg',
  mjpa: 'mjpeg',
  apch: 'prores',
  apcn: 'prores',
  apcs: 'prores',
  apco: 'prores',
  ap4h: 'prores',
  mp4a: 'aac',
  'ac-3': 'ac3',
  'ec-3': 'eac3',
  Opus: 'opus',
  fLaC: 'flac',
  alac: 'alac',
  '.mp3': 'mp3',
  samr: 'amr_nb',
  sawb: 'amr_wb',
  lpcm: 'pcm',
  sowt: 'pcm_s16le',
  twos: 'pcm_s16be',
};

/**
 * The tracks of an ISO media file as its movie box (moov) describes them: each track's handler
 * (hdlr: video or sound) and its first sample entry (stsd: the codec's four letters and, for a
 * picture, its coded width and height). Only box headers and those few small boxes are read,
 * never the samples or their tables; null when the file is not one or has no movie box.
 */
export async function movieTracks(read: ReadAt, size: number): Promise<MovieTracks | null> {
  const head = await read(0, 12);
  if (head.length < 12 || head.toString('latin1', 4, 8) !== 'ftyp') return null;
  const moov = (await topBoxes(read, size)).find((b) => b.type === 'moov');
  if (!moov) return null;
  const out: MovieTracks = { width: null, height: null, videoCodec: null, audioCodec: null };
  const child = async (box: Box | undefined, type: string) =>
    box ? (await boxesIn(read, box.body, box.end)).find((b) => b.type === type) : undefined;
  for (const trak of (await boxesIn(read, moov.body, moov.end)).filter((b) => b.type === 'trak')) {
    const mdia = await child(trak, 'mdia');
    const hdlr = await child(mdia, 'hdlr');
    if (!hdlr) continue;
    const handler = (await read(hdlr.body + 8, 4)).toString('latin1');
    if (handler !== 'vide' && handler !== 'soun') continue;
    if ((handler === 'vide' ? out.videoCodec : out.audioCodec) !== null) continue;
    const stsd = await child(await child(await child(mdia, 'minf'), 'stbl'), 'stsd');
    if (!stsd || stsd.end - stsd.body < 16) continue;
    // Version and flags, the entry count, then the first entry: its length and type, six
    // reserved bytes and a reference index; a visual entry's width and height 24 bytes on.
    const entry = await read(stsd.body + 8, 36);
    if (entry.length < 8) continue;
    const type = entry.toString('latin1', 4, 8);
    const codec = SAMPLE_CODECS[type] ?? (/^[\x20-\x7e]{4}$/.test(type) ? type.trim() : null);
    if (handler === 'soun') {
      out.audioCodec = codec;
      continue;
    }
    out.videoCodec = codec;
    if (entry.length >= 36) {
      out.width = entry.readUInt16BE(32) || null;
      out.height = entry.readUInt16BE(34) || null;
    }
  }
  return out;
}

/** Matroska's codec ids (as music-metadata gives them, without their V_/A_) by ffprobe's names. */
const MATROSKA_CODECS: Record<string, string> = {
  'MPEG4/ISO/AVC': 'h264',
  'MPEGH/ISO/HEVC': 'hevc',
  AV1: 'av1',
  VP8: 'vp8',
  VP9: 'vp9',
  'MPEG4/ISO/ASP': 'mpeg4',
  'MPEG4/ISO/SP': 'mpeg4',
  'MPEG4/ISO/AP': 'mpeg4',
  'MPEG4/MS/V3': 'msmpeg4v3',
  MPEG2: 'mpeg2video',
  MPEG1: 'mpeg1video',
  THEORA: 'theora',
  AAC: 'aac',
  AC3: 'ac3',
  EAC3: 'eac3',
  'E-AC3': 'eac3',
  DTS: 'dts',
  OPUS: 'opus',
  VORBIS: 'vorbis',
  FLAC: 'flac',
  'MPEG/L3': 'mp3',
  'MPEG/L2': 'mp2',
  'PCM/INT/LIT': 'pcm_s16le',
  TRUEHD: 'truehd',
};

/** A codec name from a container's header as ffprobe writes it, where it is known. */
export function ffprobeCodecName(raw: string | null): string | null {
  if (raw === null) return null;
  const id = raw.replace(/^[VA]_/, '').toUpperCase();
  return MATROSKA_CODECS[id] ?? MATROSKA_CODECS[id.replace(/\/.*$/, '')] ?? raw;
}

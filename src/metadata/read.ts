// What a file says about itself, read from one file (the metadata answer reads the one it names;
// the indexer's extractor thread reads them in the background for search): a photo's EXIF
// (exifr: camera, lens, exposure, date taken, orientation, GPS), a song's tags (music-metadata:
// title, artist, album, track, year, whether it has a cover), a video's streams (ffprobe when
// ffmpeg is installed, fed the checked descriptor as fd 3 and never a path or a shell string;
// the container's header through music-metadata otherwise), a PDF's pages, title and author (its
// Info dictionary), an office document's title and author (docProps/core.xml, ODF meta.xml).
// Every reader is bounded (bytes, time, output) and failure-tolerant: a damaged file just yields
// fewer facts.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { readDescriptor } from '../archives/descriptor.ts';
import { EXIF_KINDS, TAGGED_AUDIO_KINDS, VIDEO_KINDS } from '../files/kinds.ts';
import {
  exifTiff,
  ffprobeCodecName,
  heifDimensions,
  movieTracks,
  readAtBuffer,
  readAtFd,
  type ReadAt,
} from './containers.ts';
import { xmlText, zipParts } from './zip-text.ts';
import type { AudioFacts, DocumentFacts, FileFacts, ImageFacts, VideoFacts } from './wire.ts';

const IMAGE = new Set(['jpg', 'jpeg', 'png', 'webp', 'gif', 'bmp', 'tif', 'tiff', 'avif', 'ico', 'heic', 'heif']);
const OFFICE = new Set(['docx', 'xlsx', 'pptx', 'odt', 'ods', 'odp']);
const MAX_IMAGE_BYTES = 64 * 1024 * 1024;
const MAX_PDF_BYTES = 64 * 1024 * 1024;
const FFPROBE_TIMEOUT_MS = 10_000;
const FFPROBE_MAX_OUTPUT = 1024 * 1024;

/** The file to read: its checked descriptor (confined.ts) and a path that reopens that descriptor. */
export interface Readable {
  path: string;
  fd: number;
}

type ImageModule = {
  Transformer: new (input: Buffer) => {
    metadata(withExif?: boolean): Promise<{ width: number; height: number; orientation?: number | null }>;
  };
};
let imageModule: ImageModule | null | undefined;
function images(): ImageModule | null {
  if (imageModule === undefined) {
    try {
      imageModule = createRequire(import.meta.url)('@napi-rs/image') as ImageModule;
    } catch {
      imageModule = null;
    }
  }
  return imageModule;
}

const text = (v: unknown): string | null => {
  if (typeof v !== 'string') return null;
  const t = v.replace(/\0+$/, '').trim();
  return t ? t.slice(0, 500) : null;
};
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** EXIF's 'YYYY:MM:DD HH:MM:SS' as 'YYYY-MM-DDTHH:MM:SS' (the camera's clock; no zone is known). */
export function exifDate(v: unknown): string | null {
  if (v instanceof Date && !Number.isNaN(v.getTime())) return v.toISOString().slice(0, 19);
  const m = typeof v === 'string' && /^(\d{4})[:-](\d{2})[:-](\d{2})[ T](\d{2}):(\d{2}):(\d{2})/.exec(v.trim());
  if (!m || m[1] === '0000') return null;
  return `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}`;
}

/** A photo's EXIF tags as written (GPS too when asked); null when it has none or does not parse. */
async function readExif(file: string | Uint8Array, gps: boolean): Promise<Record<string, unknown> | null> {
  const { default: exifr } = await import('exifr');
  // exifr reads the head of the file in chunks (the segments it needs), not the whole picture.
  const exif = (await exifr
    .parse(file, {
      tiff: true,
      exif: true,
      gps,
      ifd1: false,
      interop: false,
      xmp: false,
      icc: false,
      iptc: false,
      jfif: false,
      ihdr: false,
      reviveValues: false,
      translateValues: false,
    })
    .catch(() => null)) as Record<string, unknown> | null | undefined;
  // exifr answers a HEIF whose EXIF it cannot follow with its errors alone: nothing read.
  if (!exif || Object.keys(exif).every((k) => k === 'errors')) return null;
  return exif;
}

/**
 * A PNG's, WebP's or HEIF's EXIF read from where its container keeps it (containers.ts): exifr
 * finds a WebP's not at all and a HEIF's only in some layouts (not one whose Exif item follows
 * the picture, as libheif writes it), so its TIFF block is handed over on its own.
 */
async function readContainerExif(read: ReadAt, size: number, gps: boolean): Promise<Record<string, unknown> | null> {
  const tiff = await exifTiff(read, size).catch(() => null);
  return tiff ? readExif(tiff, gps) : null;
}

/** readContainerExif for the indexer's walk, which reads by path (not a request). */
async function readContainerExifByPath(file: string, size: number): Promise<Record<string, unknown> | null> {
  const handle = await fs.promises.open(file, 'r');
  try {
    return await readContainerExif(readAtFd(handle.fd), size, false);
  } finally {
    await handle.close();
  }
}

/** Make and model as one name, the make left out when the model already says it ("Canon Canon EOS R6"). */
export function cameraName(make: string | null, model: string | null): string | null {
  if (!make || !model) return make ?? model;
  return model.toLowerCase().startsWith(make.toLowerCase().split(/\s+/)[0]!) ? model : `${make} ${model}`;
}

/** The first `size` bytes of the descriptor `fd` (read from its start, whatever its offset). */
async function readWhole(fd: number, size: number): Promise<Buffer> {
  const bytes = Buffer.allocUnsafe(size);
  let at = 0;
  while (at < size) {
    const n = await new Promise<number>((resolve, reject) =>
      fs.read(fd, bytes, at, size - at, at, (err, read) => (err ? reject(err) : resolve(read))),
    );
    if (n === 0) break;
    at += n;
  }
  return bytes.subarray(0, at);
}

/** music-metadata over the checked descriptor (never the file's name again); the stream is closed after. */
async function parseDescriptor(fd: number, size: number, options: import('music-metadata').IOptions) {
  const { parseStream } = await import('music-metadata');
  const stream = readDescriptor(fd);
  try {
    return await parseStream(stream, { size }, options);
  } finally {
    // The read in flight ends before 'close' (the descriptor is the caller's to close after).
    if (!stream.closed) await new Promise((resolve) => stream.once('close', resolve).destroy());
  }
}

async function imageFacts(file: Readable, kind: string, size: number): Promise<FileFacts> {
  if (size > MAX_IMAGE_BYTES) return {};
  let bytes: Buffer | undefined;
  const facts: ImageFacts = {
    width: null,
    height: null,
    orientation: null,
    cameraMake: null,
    cameraModel: null,
    lensModel: null,
    software: null,
    dateTaken: null,
    exposureTime: null,
    fNumber: null,
    iso: null,
    focalLength: null,
    gps: null,
  };
  if (EXIF_KINDS.has(kind)) {
    // The checked descriptor's bytes, read once: EXIF and the picture's own header come from them.
    bytes = await readWhole(file.fd, size);
    const exif = (await readExif(bytes, true)) ?? (await readContainerExif(readAtBuffer(bytes), size, true));
    if (exif) {
      facts.cameraMake = text(exif.Make);
      facts.cameraModel = text(exif.Model);
      facts.lensModel = text(exif.LensModel);
      facts.software = text(exif.Software);
      facts.dateTaken = exifDate(exif.DateTimeOriginal) ?? exifDate(exif.CreateDate);
      facts.exposureTime = num(exif.ExposureTime);
      facts.fNumber = num(exif.FNumber);
      facts.iso = num(exif.ISO) ?? (Array.isArray(exif.ISO) ? num(exif.ISO[0]) : null);
      facts.focalLength = num(exif.FocalLength);
      facts.orientation = num(exif.Orientation);
      const latitude = num(exif.latitude);
      const longitude = num(exif.longitude);
      if (latitude !== null && longitude !== null && Math.abs(latitude) <= 90 && Math.abs(longitude) <= 180) {
        const below =
          exif.GPSAltitudeRef instanceof Uint8Array ? exif.GPSAltitudeRef[0] === 1 : exif.GPSAltitudeRef === 1;
        const altitude = num(exif.GPSAltitude);
        facts.gps = { latitude, longitude, altitude: altitude === null ? null : below ? -altitude : altitude };
      }
      facts.width = num(exif.ExifImageWidth);
      facts.height = num(exif.ExifImageHeight);
    }
  }
  bytes ??= await readWhole(file.fd, size);
  // A HEIF's size is in its container (the image library here cannot decode HEVC).
  const heif = await heifDimensions(readAtBuffer(bytes), size).catch(() => null);
  if (heif) {
    facts.width = heif.width;
    facts.height = heif.height;
  }
  const mod = heif ? null : images();
  if (mod) {
    const meta = await new mod.Transformer(bytes).metadata(false).catch(() => null);
    if (meta) {
      facts.width = meta.width;
      facts.height = meta.height;
      facts.orientation ??= meta.orientation ?? null;
    }
  }
  return { image: facts };
}

async function audioFacts(file: Readable, size: number): Promise<FileFacts> {
  const meta = await parseDescriptor(file.fd, size, { duration: true, skipCovers: false });
  const c = meta.common;
  const facts: AudioFacts = {
    duration: num(meta.format.duration),
    codec: text(meta.format.codec),
    bitrate: num(meta.format.bitrate),
    title: text(c.title),
    artist: text(c.artist) ?? text(c.artists?.join(', ')),
    album: text(c.album),
    albumArtist: text(c.albumartist),
    track: num(c.track?.no),
    trackCount: num(c.track?.of),
    year: num(c.year),
    genre: text(c.genre?.join(', ')),
    hasCover: (c.picture?.length ?? 0) > 0,
  };
  return { audio: facts };
}

/**
 * A song's cover picture (the front one when it says), or null: the song's thumbnail is made
 * from it. `fd`: the checked descriptor of the song, `size` its length.
 */
export async function coverPicture(fd: number, size: number): Promise<Uint8Array | null> {
  const meta = await parseDescriptor(fd, size, { duration: false, skipCovers: false, skipPostHeaders: true });
  const pictures = meta.common.picture ?? [];
  return (pictures.find((p) => /front/i.test(p.type ?? '')) ?? pictures[0])?.data ?? null;
}

export type Probe = {
  streams?: {
    codec_type?: string;
    codec_name?: string;
    profile?: string;
    pix_fmt?: string;
    width?: number;
    height?: number;
    duration?: string;
  }[];
  format?: { duration?: string; format_name?: string };
};

/** ffprobe's JSON for the open descriptor (its fd 3); null when ffprobe is not installed. */
export function ffprobe(fd: number): Promise<Probe | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'ffprobe',
      ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', '/dev/fd/3'],
      { stdio: ['ignore', 'pipe', 'ignore', fd], windowsHide: true },
    );
    const out: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => child.kill('SIGKILL'), FFPROBE_TIMEOUT_MS);
    child.stdout!.on('data', (b: Buffer) => {
      size += b.length;
      if (size > FFPROBE_MAX_OUTPUT) child.kill('SIGKILL');
      else out.push(b);
    });
    child.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (err.code === 'ENOENT') resolve(null);
      else reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`ffprobe exited with ${code}`));
      try {
        resolve(JSON.parse(Buffer.concat(out).toString('utf8')) as Probe);
      } catch (err) {
        reject(err as Error);
      }
    });
  });
}

async function videoFacts(file: Readable, size: number): Promise<FileFacts> {
  const probe = await ffprobe(file.fd).catch(() => undefined);
  if (probe) {
    const video = probe.streams?.find((s) => s.codec_type === 'video');
    const audio = probe.streams?.find((s) => s.codec_type === 'audio');
    const duration = Number(probe.format?.duration ?? video?.duration);
    const facts: VideoFacts = {
      width: num(video?.width),
      height: num(video?.height),
      duration: Number.isFinite(duration) ? duration : null,
      videoCodec: text(video?.codec_name),
      audioCodec: text(audio?.codec_name),
      container: text(probe.format?.format_name),
      source: 'ffprobe',
    };
    return { video: facts };
  }
  if (probe === undefined) return {}; // ffprobe is there and could not read it: a damaged file
  // Without ffprobe: the container's own header. music-metadata reads a Matroska/WebM track's
  // size and codecs and any container's length; an MP4's or MOV's tracks come from its movie
  // box (containers.ts: music-metadata names no picture size there). Codecs as ffprobe names them.
  const meta = await parseDescriptor(file.fd, size, { duration: true, skipCovers: true });
  const track = meta.format.trackInfo?.find((t) => t.video);
  const audioTrack = meta.format.trackInfo?.find((t) => t.audio);
  const movie = await movieTracks(readAtFd(file.fd), size).catch(() => null);
  const facts: VideoFacts = {
    width: movie?.width ?? num(track?.video?.pixelWidth),
    height: movie?.height ?? num(track?.video?.pixelHeight),
    duration: num(meta.format.duration),
    videoCodec: movie?.videoCodec ?? ffprobeCodecName(text(track?.codecName)),
    audioCodec:
      movie?.audioCodec ??
      ffprobeCodecName(text(audioTrack?.codecName) ?? (meta.format.hasAudio ? text(meta.format.codec) : null)),
    container: text(meta.format.container),
    source: 'header',
  };
  return { video: facts };
}

const PAGE = /\/Type\s*\/Page(?![a-zA-Z])/g;

/** A PDF string literal or hex string as text (PDFDocEncoding as Latin-1, or UTF-16BE with its mark). */
export function pdfString(raw: string): string | null {
  let bytes: Buffer;
  if (raw.startsWith('<')) bytes = Buffer.from(raw.slice(1, -1).replace(/\s+/g, ''), 'hex');
  else {
    const body = raw.slice(1, -1);
    const out: number[] = [];
    for (let i = 0; i < body.length; i++) {
      const ch = body[i]!;
      if (ch !== '\\') {
        out.push(ch.charCodeAt(0) & 0xff);
        continue;
      }
      const next = body[++i];
      if (next === undefined) break;
      const esc: Record<string, number> = { n: 10, r: 13, t: 9, b: 8, f: 12, '(': 40, ')': 41, '\\': 92 };
      if (next in esc) out.push(esc[next]!);
      else if (/[0-7]/.test(next)) {
        const oct = /^[0-7]{1,3}/.exec(body.slice(i))![0];
        out.push(parseInt(oct, 8) & 0xff);
        i += oct.length - 1;
      } else if (next === '\r' || next === '\n') {
        if (next === '\r' && body[i + 1] === '\n') i++;
      } else out.push(next.charCodeAt(0) & 0xff);
    }
    bytes = Buffer.from(out);
  }
  if (bytes[0] === 0xfe && bytes[1] === 0xff) {
    const le = Buffer.from(bytes.subarray(2));
    le.swap16();
    return text(le.toString('utf16le'));
  }
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return text(bytes.subarray(3).toString('utf8'));
  return text(bytes.toString('latin1'));
}

const STRING = String.raw`(\((?:\\[\s\S]|[^\\()]|\((?:\\[\s\S]|[^\\()])*\))*\)|<[0-9A-Fa-f\s]*>)`;

/**
 * Pages counted (`/Type /Page`, not `/Pages`), streamed; title and author from the Info dictionary
 * the trailer names (when it is not packed in an object stream).
 */
async function pdfFacts(file: Readable, size: number): Promise<FileFacts> {
  if (size > MAX_PDF_BYTES) return {};
  let pages = 0;
  let tail = '';
  let infoRef: string | null = null;
  const objects = new Map<string, string>();
  for await (const chunk of readDescriptor(file.fd).setEncoding('latin1')) {
    const all = tail + (chunk as string);
    pages += all.match(PAGE)?.length ?? 0;
    for (const m of all.matchAll(/\/Info\s+(\d+)\s+(\d+)\s+R/g)) infoRef = `${m[1]} ${m[2]}`;
    // Small dictionaries that hold a /Title or /Author: one of them is the Info dictionary.
    for (const m of all.matchAll(/(?:^|[\r\n\s])(\d+)\s+(\d+)\s+obj\s*<<([\s\S]{0,4000}?)>>\s*endobj/g))
      if (/\/(Title|Author)\b/.test(m[3]!)) objects.set(`${m[1]} ${m[2]}`, m[3]!);
    tail = all.slice(-4096);
    // The overlap may count a match again that ends inside it; remove what the tail already held.
    pages -= tail.match(PAGE)?.length ?? 0;
  }
  pages += tail.match(PAGE)?.length ?? 0;
  const document: DocumentFacts = { pages, title: null, author: null };
  const info = infoRef ? objects.get(infoRef) : undefined;
  if (info) {
    const title = new RegExp(String.raw`/Title\s*` + STRING).exec(info);
    const author = new RegExp(String.raw`/Author\s*` + STRING).exec(info);
    document.title = title ? pdfString(title[1]!) : null;
    document.author = author ? pdfString(author[1]!) : null;
  }
  return { document, pages };
}

/** An office document's title and author: docProps/core.xml (OOXML) or meta.xml (OpenDocument). */
async function officeFacts(file: Readable): Promise<FileFacts> {
  const { texts } = await zipParts(file.fd, /^(docProps\/core\.xml|meta\.xml)$/, (xml) => xml);
  const xml = [...texts.values()][0];
  if (!xml) return {};
  const field = (...tags: string[]) => {
    for (const tag of tags) {
      const m = new RegExp(`<${tag}(?:\\s[^>]*)?>([\\s\\S]*?)</${tag}>`).exec(xml);
      const value = m ? text(xmlText(m[1]!)) : null;
      if (value) return value;
    }
    return null;
  };
  return { document: { title: field('dc:title'), author: field('dc:creator', 'meta:initial-creator') } };
}

/** What `file` of this kind says about itself; {} when it says nothing or cannot be read. */
export async function readFileFacts(file: Readable, kind: string, size: number): Promise<FileFacts> {
  try {
    if (IMAGE.has(kind)) return await imageFacts(file, kind, size);
    if (TAGGED_AUDIO_KINDS.has(kind)) return await audioFacts(file, size);
    if (VIDEO_KINDS.has(kind)) return await videoFacts(file, size);
    if (kind === 'pdf') return await pdfFacts(file, size);
    if (OFFICE.has(kind)) return await officeFacts(file);
  } catch {
    // A file that does not parse has no further facts.
  }
  return {};
}

/**
 * What search knows of a photo or a song (the indexer's extractor thread reads it when the file
 * is new or changed): date taken (ms, the camera's clock read as UTC) and camera of a photo;
 * artist and album of a song. Only the heads of the files are read (EXIF segments, tag frames,
 * no cover, no duration scan); null when the file is not of those kinds.
 */
export interface SearchFacts {
  taken: number | null;
  camera: string | null;
  artist: string | null;
  album: string | null;
}

export async function readSearchFacts(file: string, kind: string, size: number): Promise<SearchFacts | null> {
  const facts: SearchFacts = { taken: null, camera: null, artist: null, album: null };
  try {
    if (EXIF_KINDS.has(kind)) {
      if (size > MAX_IMAGE_BYTES) return facts;
      const exif = (await readExif(file, false)) ?? (await readContainerExifByPath(file, size));
      if (exif) {
        const taken = exifDate(exif.DateTimeOriginal) ?? exifDate(exif.CreateDate);
        facts.taken = taken ? Date.parse(`${taken}Z`) : null;
        if (facts.taken !== null && Number.isNaN(facts.taken)) facts.taken = null;
        facts.camera = cameraName(text(exif.Make), text(exif.Model));
      }
      return facts;
    }
    if (TAGGED_AUDIO_KINDS.has(kind)) {
      const { parseFile } = await import('music-metadata');
      const c = (await parseFile(file, { duration: false, skipCovers: true, skipPostHeaders: true })).common;
      facts.artist = text(c.artist) ?? text(c.artists?.join(', ')) ?? text(c.albumartist);
      facts.album = text(c.album);
      return facts;
    }
  } catch {
    // A file that does not parse says nothing.
    return facts;
  }
  return null;
}

// Real media files for the viewer and thumbnail tests, made here: pictures by the image
// add-on (a JPEG given an EXIF orientation segment), an animated GIF by omggif, a PDF, a WAV
// and an SVG written by hand, and a WebM by ffmpeg (installed in CI: .ci/run).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';

const image = createRequire(import.meta.url)('@napi-rs/image') as any;
const { GifWriter } = createRequire(import.meta.url)('omggif') as any;

function pixels(width: number, height: number, paint: (x: number, y: number) => [number, number, number]): Uint8Array {
  const px = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const [r, g, b] = paint(x, y);
      const i = (y * width + x) * 4;
      px[i] = r;
      px[i + 1] = g;
      px[i + 2] = b;
      px[i + 3] = 255;
    }
  return px;
}

export async function png(width: number, height: number): Promise<Buffer> {
  return image.Transformer.fromRgbaPixels(
    pixels(width, height, (x, y) => [x % 256, 120, y % 256]),
    width,
    height,
  ).png();
}

/**
 * A JPEG stored `width` × `height` whose EXIF orientation is 6 (turn 90° clockwise to show):
 * shown upright it is `height` wide and `width` tall. The left half is red, the right blue.
 */
export async function rotatedJpeg(width: number, height: number): Promise<Buffer> {
  const jpeg: Buffer = await image.Transformer.fromRgbaPixels(
    pixels(width, height, (x) => (x < width / 2 ? [220, 30, 30] : [30, 30, 220])),
    width,
    height,
  ).jpeg(90);
  // APP1 "Exif": little-endian TIFF header, one IFD entry (0x0112 Orientation, SHORT, 1, value 6).
  const tiff = Buffer.from([
    0x49, 0x49, 0x2a, 0x00, 0x08, 0x00, 0x00, 0x00, 0x01, 0x00, 0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x06,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  ]);
  const body = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]);
  const app1 = Buffer.concat([Buffer.from([0xff, 0xe1, (body.length + 2) >> 8, (body.length + 2) & 0xff]), body]);
  return Buffer.concat([jpeg.subarray(0, 2), app1, jpeg.subarray(2)]);
}

/** A two-frame animated GIF (red, then green), 40 × 30. */
export function animatedGif(): Buffer {
  const w = 40,
    h = 30;
  const buf = Buffer.alloc(4096);
  const writer = new GifWriter(buf, w, h, { loop: 0, palette: [0xff0000, 0x00ff00] });
  writer.addFrame(0, 0, w, h, new Array(w * h).fill(0), { delay: 20 });
  writer.addFrame(0, 0, w, h, new Array(w * h).fill(1), { delay: 20 });
  return buf.subarray(0, writer.end());
}

/** An SVG whose script, if it ever ran on our origin, would set a global and change the title. */
export const HOSTILE_SVG = `<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" width="120" height="80" viewBox="0 0 120 80">
  <rect width="120" height="80" fill="#2a7"/>
  <circle cx="60" cy="40" r="25" fill="#fff"/>
  <script>try { window.top.__svgRan = true; window.top.document.title = 'PWNED'; } catch (e) {} document.title = 'PWNED';</script>
</svg>
`;

/** A one-page PDF saying `text` (offsets computed, so readers need no repair). */
export function pdf(text: string): Buffer {
  const stream = `BT /F1 24 Tf 72 720 Td (${text.replace(/[()\\]/g, '')}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** `seconds` of a 440 Hz tone, 8 kHz mono 16-bit PCM. */
export function wav(seconds: number): Buffer {
  const rate = 8000;
  const n = Math.round(rate * seconds);
  const data = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) data.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 8000), i * 2);
  const head = Buffer.alloc(44);
  head.write('RIFF', 0);
  head.writeUInt32LE(36 + data.length, 4);
  head.write('WAVE', 8);
  head.write('fmt ', 12);
  head.writeUInt32LE(16, 16);
  head.writeUInt16LE(1, 20);
  head.writeUInt16LE(1, 22);
  head.writeUInt32LE(rate, 24);
  head.writeUInt32LE(rate * 2, 28);
  head.writeUInt16LE(2, 32);
  head.writeUInt16LE(16, 34);
  head.write('data', 36);
  head.writeUInt32LE(data.length, 40);
  return Buffer.concat([head, data]);
}

/** A one-second 160 × 120 VP8 WebM made by ffmpeg (throws when ffmpeg is missing: CI installs it). */
export function webm(): Buffer {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-media-'));
  try {
    const out = path.join(dir, 'clip.webm');
    execFileSync('ffmpeg', [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      'testsrc=duration=1:size=160x120:rate=10',
      '-c:v',
      'libvpx',
      '-b:v',
      '200k',
      out,
    ]);
    return fs.readFileSync(out);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

type TiffValue = { tag: number; type: 'ascii' | 'short' | 'long' | 'rational' | 'byte'; value: string | number[] };

/** A little-endian TIFF block of IFDs (the first is IFD0; `links` point an IFD0 tag at a later IFD). */
function tiff(ifds: TiffValue[][], links: { tag: number; ifd: number }[]): Buffer {
  const width = { ascii: 1, byte: 1, short: 2, long: 4, rational: 8 } as const;
  const code = { byte: 1, ascii: 2, short: 3, long: 4, rational: 5 } as const;
  const withLinks = ifds.map((entries, i) =>
    [...entries, ...(i === 0 ? links.map((l) => ({ tag: l.tag, type: 'long' as const, value: [0] })) : [])].sort(
      (a, b) => a.tag - b.tag,
    ),
  );
  const count = (e: TiffValue) => (e.type === 'ascii' ? (e.value as string).length + 1 : (e.value as number[]).length);
  const dataSize = (e: TiffValue) => {
    const n = count(e) * width[e.type];
    return n > 4 ? n + (n % 2) : 0;
  };
  const sizes = withLinks.map((es) => 2 + 12 * es.length + 4 + es.reduce((s, e) => s + dataSize(e), 0));
  const starts: number[] = [];
  let at = 8;
  for (const s of sizes) {
    starts.push(at);
    at += s;
  }
  const out = Buffer.alloc(at);
  out.write('II', 0, 'latin1');
  out.writeUInt16LE(42, 2);
  out.writeUInt32LE(8, 4);
  withLinks.forEach((entries, i) => {
    let p = starts[i]!;
    out.writeUInt16LE(entries.length, p);
    let data = p + 2 + 12 * entries.length + 4;
    p += 2;
    for (const e of entries) {
      const link = i === 0 ? links.find((l) => l.tag === e.tag) : undefined;
      const value = link ? [starts[link.ifd]!] : e.value;
      const bytes = Buffer.alloc(count(e) * width[e.type]);
      if (e.type === 'ascii') bytes.write(value as string, 0, 'latin1');
      else
        (value as number[]).forEach((v, k) => {
          if (e.type === 'byte') bytes.writeUInt8(v, k);
          else if (e.type === 'short') bytes.writeUInt16LE(v, k * 2);
          else if (e.type === 'long') bytes.writeUInt32LE(v, k * 4);
        });
      if (e.type === 'rational')
        (value as number[]).forEach((v, k) => {
          // numerator/denominator with enough precision for the values used here
          const den = Number.isInteger(v) ? 1 : v < 1 ? Math.round(1 / v) : 10000;
          const num = Number.isInteger(v) ? v : v < 1 ? 1 : Math.round(v * 10000);
          bytes.writeUInt32LE(num, k * 8);
          bytes.writeUInt32LE(den, k * 8 + 4);
        });
      out.writeUInt16LE(e.tag, p);
      out.writeUInt16LE(code[e.type], p + 2);
      out.writeUInt32LE(count(e), p + 4);
      if (bytes.length <= 4) bytes.copy(out, p + 8);
      else {
        out.writeUInt32LE(data, p + 8);
        bytes.copy(out, data);
        data += bytes.length + (bytes.length % 2);
      }
      p += 12;
    }
    out.writeUInt32LE(0, p);
  });
  return out;
}

export interface PhotoFacts {
  make: string;
  model: string;
  lens: string;
  /** EXIF's own spelling: 'YYYY:MM:DD HH:MM:SS' (the camera's clock, no zone) */
  taken: string;
  exposure: number;
  fNumber: number;
  iso: number;
  focalLength: number;
  orientation?: number;
  /** degrees, minutes, seconds; south and west as refs */
  gps?: {
    lat: [number, number, number];
    latRef: 'N' | 'S';
    lon: [number, number, number];
    lonRef: 'E' | 'W';
    altitude: number;
  };
}

/**
 * A real camera's EXIF as the photo tests write it (a Fujifilm X-T30 at the Eiffel Tower on
 * 14 July 2025): the tests that read facts back compare against these.
 */
export const FUJI_X_T30: PhotoFacts = {
  make: 'FUJIFILM',
  model: 'X-T30',
  lens: 'XF35mmF2 R WR',
  taken: '2025:07:14 18:03:22',
  exposure: 1 / 250,
  fNumber: 5.6,
  iso: 400,
  focalLength: 35,
  orientation: 1,
  gps: { lat: [48, 51, 29.5], latRef: 'N', lon: [2, 17, 40.2], lonRef: 'E', altitude: 35 },
};

/** A `width` × `height` JPEG from the image add-on with a camera's EXIF (and GPS when given) in APP1. */
export async function cameraJpeg(width: number, height: number, facts: PhotoFacts): Promise<Buffer> {
  const jpeg: Buffer = await image.Transformer.fromRgbaPixels(
    pixels(width, height, (x, y) => [(x * 3) % 256, (y * 5) % 256, 140]),
    width,
    height,
  ).jpeg(88);
  const body = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), cameraTiff(facts)]);
  const app1 = Buffer.concat([Buffer.from([0xff, 0xe1, (body.length + 2) >> 8, (body.length + 2) & 0xff]), body]);
  return Buffer.concat([jpeg.subarray(0, 2), app1, jpeg.subarray(2)]);
}

/**
 * A `width` × `height` PNG from the image add-on with a camera's EXIF (and GPS when given) in an
 * eXIf chunk after IHDR, as phones and editors write it — or, `after: 'picture'`, after the image
 * data, before IEND (the PNG specification allows both).
 */
export async function cameraPng(
  width: number,
  height: number,
  facts: PhotoFacts,
  where: { after: 'header' | 'picture' } = { after: 'header' },
): Promise<Buffer> {
  const png: Buffer = await image.Transformer.fromRgbaPixels(
    pixels(width, height, (x, y) => [(x * 7) % 256, 90, (y * 3) % 256]),
    width,
    height,
  ).png();
  const data = cameraTiff(facts);
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  chunk.write('eXIf', 4, 'latin1');
  data.copy(chunk, 8);
  chunk.writeUInt32BE(zlib.crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length);
  const at = where.after === 'header' ? 8 + 12 + png.readUInt32BE(8) : png.length - 12; // IEND is 12 bytes
  return Buffer.concat([png.subarray(0, at), chunk, png.subarray(at)]);
}

/** A tool run on `input` in a folder of its own; the bytes it wrote to `name`. */
function madeBy(tool: string, args: (input: string, out: string) => string[], input: Buffer, name: string): Buffer {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-media-'));
  try {
    const from = path.join(dir, 'in.jpg');
    fs.writeFileSync(from, input);
    const out = path.join(dir, name);
    execFileSync(tool, args(from, out), { stdio: 'pipe' });
    return fs.readFileSync(out);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A HEIC as a phone saves it, by libheif's `heif-enc` (Debian libheif-examples, HEVC by x265)
 * from a camera JPEG: its EXIF (GPS too) carried into an Exif item that follows the picture.
 */
export function heicOf(jpeg: Buffer): Buffer {
  return madeBy('heif-enc', (from, out) => ['-q', '40', '-o', out, from], jpeg, 'out.heic');
}

/**
 * A phone's photo as its camera stores it, `width` × `height`, with an iPhone's EXIF and the
 * given EXIF orientation: the left half red, the right half blue. Stored sideways with
 * orientation 6 (a portrait photo), shown upright its top half is red and its bottom half blue.
 */
export async function splitPhotoJpeg(width: number, height: number, orientation: number): Promise<Buffer> {
  const jpeg: Buffer = await image.Transformer.fromRgbaPixels(
    pixels(width, height, (x, y) => (x < width / 2 ? [220, 30 + (y % 16), 30] : [30, 30 + (y % 16), 220])),
    width,
    height,
  ).jpeg(90);
  const body = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), cameraTiff({ ...IPHONE_15, orientation })]);
  const app1 = Buffer.concat([Buffer.from([0xff, 0xe1, (body.length + 2) >> 8, (body.length + 2) & 0xff]), body]);
  return Buffer.concat([jpeg.subarray(0, 2), app1, jpeg.subarray(2)]);
}

/** An iPhone 15's EXIF (the main camera, a summer afternoon in Arles). */
export const IPHONE_15: PhotoFacts = {
  make: 'Apple',
  model: 'iPhone 15',
  lens: 'iPhone 15 back dual wide camera 6.86mm f/1.6',
  taken: '2025:08:02 16:41:09',
  exposure: 1 / 1600,
  fNumber: 1.6,
  iso: 64,
  focalLength: 6.86,
};

/**
 * A HEIC as an iPhone writes a portrait photo: the picture stored sideways, turned by the HEIF
 * rotation property (irot, `quarterTurns` × 90° anticlockwise) that the iPhone writes, with the
 * EXIF orientation describing the stored picture (6) kept beside it. Made from heif-enc's file
 * (which writes no irot up to libheif 1.16) by putting an irot property where its pixi property
 * was (same size, same association with the picture).
 */
export function iphoneHeic(sidewaysJpeg: Buffer, quarterTurns: number): Buffer {
  const heic = Buffer.from(heicOf(sidewaysJpeg));
  const at = heic.indexOf('pixi', 0, 'latin1') - 4;
  if (at < 0) throw new Error('heif-enc wrote no pixi property to replace');
  const size = heic.readUInt32BE(at);
  heic.fill(0, at, at + size);
  heic.writeUInt32BE(size, at);
  heic.write('irot', at + 4, 'latin1');
  heic[at + 8] = quarterTurns & 3;
  return heic;
}

/** A WebP by libwebp's `cwebp` (Debian webp) from a camera JPEG, its EXIF kept in an EXIF chunk after the picture. */
export function webpOf(jpeg: Buffer): Buffer {
  return madeBy('cwebp', (from, out) => ['-quiet', '-q', '60', '-metadata', 'exif', from, '-o', out], jpeg, 'out.webp');
}

/** A camera's EXIF as a TIFF block: IFD0 (make, model, orientation), the EXIF IFD, and GPS when given. */
function cameraTiff(facts: PhotoFacts): Buffer {
  const ifd0: TiffValue[] = [
    { tag: 0x010f, type: 'ascii', value: facts.make },
    { tag: 0x0110, type: 'ascii', value: facts.model },
    { tag: 0x0112, type: 'short', value: [facts.orientation ?? 1] },
  ];
  const exif: TiffValue[] = [
    { tag: 0x829a, type: 'rational', value: [facts.exposure] },
    { tag: 0x829d, type: 'rational', value: [facts.fNumber] },
    { tag: 0x8827, type: 'short', value: [facts.iso] },
    { tag: 0x9003, type: 'ascii', value: facts.taken },
    { tag: 0x920a, type: 'rational', value: [facts.focalLength] },
    { tag: 0xa434, type: 'ascii', value: facts.lens },
  ];
  const ifds = [ifd0, exif];
  const links = [{ tag: 0x8769, ifd: 1 }];
  if (facts.gps) {
    ifds.push([
      { tag: 0x0001, type: 'ascii', value: facts.gps.latRef },
      { tag: 0x0002, type: 'rational', value: facts.gps.lat },
      { tag: 0x0003, type: 'ascii', value: facts.gps.lonRef },
      { tag: 0x0004, type: 'rational', value: facts.gps.lon },
      { tag: 0x0005, type: 'byte', value: [0] },
      { tag: 0x0006, type: 'rational', value: [facts.gps.altitude] },
    ]);
    links.push({ tag: 0x8825, ifd: 2 });
  }
  return tiff(ifds, links);
}

function ffmpegMake(name: string, args: (dir: string, out: string) => string[], inputs: Record<string, Buffer> = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-media-'));
  try {
    for (const [n, b] of Object.entries(inputs)) fs.writeFileSync(path.join(dir, n), b);
    const out = path.join(dir, name);
    execFileSync('ffmpeg', ['-v', 'error', ...args(dir, out)]);
    return fs.readFileSync(out);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A short clip by ffmpeg in a container and codecs a browser cannot play as they are: an MKV of
 * H.264/AAC (`mkv`: remuxed), an AVI of MPEG-4 Part 2/MP3 (`avi`: transcoded). 320×240 (or `size`), 15 fps,
 * a keyframe every second (seeks land on whole seconds), a tone; `noisy`: a picture of noise.
 */
export function clip(kind: 'mkv' | 'avi', seconds: number, opts: { noisy?: boolean; size?: string } = {}): Buffer {
  const codecs =
    kind === 'mkv'
      ? ['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-preset', 'ultrafast', '-c:a', 'aac']
      : ['-c:v', 'mpeg4', '-q:v', '5', '-c:a', 'libmp3lame', '-b:a', '64k'];
  return ffmpegMake(`clip.${kind}`, (_dir, out) => [
    ...testPictureAndTone(seconds, 440, opts.size),
    // Noise that does not compress: megabytes of stream, which a viewer reading slowly holds back.
    ...(opts.noisy ? ['-vf', 'noise=alls=60:allf=t'] : []),
    ...codecs,
    '-g',
    '15',
    '-shortest',
    out,
  ]);
}

/** `seconds` of a tone as an MP3 by ffmpeg, with ID3v2.3 tags and (when given) a PNG cover as its front picture. */
export function taggedMp3(
  seconds: number,
  tags: { title: string; artist: string; album: string; track: string; date: string; genre?: string },
  cover?: Buffer,
): Buffer {
  return ffmpegMake(
    'song.mp3',
    (dir, out) => [
      '-f',
      'lavfi',
      '-i',
      `sine=frequency=440:duration=${seconds}`,
      ...(cover
        ? [
            '-i',
            path.join(dir, 'cover.png'),
            '-map',
            '0:a',
            '-map',
            '1:v',
            '-c:v',
            'png',
            '-disposition:v',
            'attached_pic',
          ]
        : []),
      '-c:a',
      'libmp3lame',
      '-b:a',
      '64k',
      '-id3v2_version',
      '3',
      ...Object.entries(tags).flatMap(([k, v]) => ['-metadata', `${k}=${v}`]),
      ...(cover ? ['-metadata:s:v', 'title=Album cover', '-metadata:s:v', 'comment=Cover (front)'] : []),
      out,
    ],
    cover ? { 'cover.png': cover } : {},
  );
}

/** ffmpeg's inputs for a clip: its 320 × 240 test picture at 15 frames a second and a tone. */
function testPictureAndTone(seconds: number, hz: number, size = '320x240'): string[] {
  return [
    '-f',
    'lavfi',
    '-i',
    `testsrc=duration=${seconds}:size=${size}:rate=15`,
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=${hz}:duration=${seconds}`,
  ];
}

/** A `seconds` 320 × 240 H.264 + AAC MP4 by ffmpeg. */
export function mp4(seconds: number): Buffer {
  return ffmpegMake('clip.mp4', (_dir, out) => [
    ...testPictureAndTone(seconds, 330),
    '-c:v',
    'libx264',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    '-shortest',
    '-movflags',
    '+faststart',
    out,
  ]);
}

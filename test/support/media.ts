// Real media files for the viewer and thumbnail tests, made here: pictures by the image
// add-on (a JPEG given an EXIF orientation segment), an animated GIF by omggif, a PDF, a WAV
// and an SVG written by hand, and a WebM by ffmpeg (installed in CI: .ci/run).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

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

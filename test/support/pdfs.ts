// Hostile and hand-made PDFs for the document reader's tests: a PDF from numbered objects, and
// one whose page's content stream inflates to 1 GiB of spaces (about 1 MB on disk): the reader
// must stop it by its time or memory limit.
import zlib from 'node:zlib';

/** A PDF from numbered objects (offsets computed); `trailer` adds entries to the trailer. */
export function pdfOf(objects: (string | Buffer)[], trailer = ''): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n', 'latin1')];
  let at = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(at);
    const chunk = Buffer.concat([
      Buffer.from(`${i + 1} 0 obj\n`, 'latin1'),
      typeof o === 'string' ? Buffer.from(o, 'latin1') : o,
      Buffer.from('\nendobj\n', 'latin1'),
    ]);
    parts.push(chunk);
    at += chunk.length;
  });
  const xref =
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}` +
    `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R ${trailer}>>\nstartxref\n${at}\n%%EOF\n`;
  return Buffer.concat([...parts, Buffer.from(xref, 'latin1')]);
}

export const stream = (dict: string, data: Buffer) =>
  Buffer.concat([
    Buffer.from(`<< ${dict} /Length ${data.length} >>\nstream\n`, 'latin1'),
    data,
    Buffer.from('\nendstream', 'latin1'),
  ]);

export const PAGES = '<< /Type /Pages /Kids [3 0 R] /Count 1 >>';
export const CATALOG = '<< /Type /Catalog /Pages 2 0 R >>';

const SPACES_BLOCK = 16 * 1024 * 1024;
const BOMB_BLOCKS = 64;

/**
 * Raw deflate data for 1 GiB of spaces (~1 MB): one 16 MiB run of spaces deflated and ended by a
 * full flush (byte-aligned, no reference to what came before), repeated 64 times, then an empty
 * final block. What a zip bomb is made of, without deflating a gibibyte in the test.
 */
export function spacesBomb(): { raw: Buffer; bytes: number } {
  const block = zlib.deflateRawSync(Buffer.alloc(SPACES_BLOCK, 0x20), {
    level: 9,
    finishFlush: zlib.constants.Z_FULL_FLUSH,
  });
  const end = zlib.deflateRawSync(Buffer.alloc(0));
  return {
    raw: Buffer.concat([...Array.from({ length: BOMB_BLOCKS }, () => block), end]),
    bytes: SPACES_BLOCK * BOMB_BLOCKS,
  };
}

/** The same as a zlib stream (a PDF's FlateDecode): header, the raw data, the Adler-32 of 1 GiB of spaces. */
export function zlibBomb(): Buffer {
  const { raw, bytes } = spacesBomb();
  const n = BigInt(bytes);
  const a = (1n + n * 32n) % 65521n;
  const b = (n + (32n * n * (n + 1n)) / 2n) % 65521n;
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE(Number((b << 16n) | a));
  return Buffer.concat([Buffer.from([0x78, 0xda]), raw, adler]);
}

/** A page whose content stream inflates to 1 GiB of spaces (about 1 MB on disk). */
export function bombPdf(): Buffer {
  return pdfOf([
    CATALOG,
    PAGES,
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    stream('/Filter /FlateDecode', zlibBomb()),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ]);
}

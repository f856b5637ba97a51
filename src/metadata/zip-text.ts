// The text inside zip-packed XML documents (office files, EPUB, ODF): a bounded reader of the
// parts a caller names and the XML-to-text step. Shared by the indexer's extractor (a document's
// words for search) and the metadata reader (an office file's title and author), so it lives
// below both.
import fs from 'node:fs';
import yauzl from 'yauzl';
import { DescriptorRangeReader } from '../archives/descriptor.ts';

/** A document contributes at most this much text. */
export const MAX_TEXT = 512 * 1024;
/** Bytes one zip part may unpack to (a larger one is a bomb or not worth it). */
const MAX_ZIP_ENTRY = 16 * 1024 * 1024;
/** Bytes all the parts of one document may unpack to together. */
const MAX_ZIP_TOTAL = 64 * 1024 * 1024;

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  shy: '',
  ndash: '–',
  mdash: '—',
  hellip: '…',
  laquo: '«',
  raquo: '»',
  rsquo: '’',
  lsquo: '‘',
  rdquo: '”',
  ldquo: '“',
  euro: '€',
  copy: '©',
};

export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
    }
    return ENTITIES[e.toLowerCase()] ?? m;
  });
}

export const tidy = (s: string) =>
  s
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();

/** Text of an office XML part: paragraph, row and cell ends become line breaks. */
export function xmlText(xml: string): string {
  return tidy(
    decodeEntities(
      xml
        .replace(/<\/(w:p|a:p|text:p|text:h|si|row|w:tr|table:table-row)>/g, '\n')
        .replace(/<(w:tab|w:br|text:tab|text:line-break|text:s)\b[^>]*\/?>/g, ' ')
        .replace(/<\/(c|w:tc|table:table-cell)>/g, '\t')
        .replace(/<[^>]*>/g, ''),
    ),
  );
}

export class TooLarge extends Error {}

/**
 * The text of the zip parts whose names match `parts`, in the archive's order (or in `order`
 * when given). Bounded: parts past MAX_ZIP_ENTRY, or all together past MAX_ZIP_TOTAL (counted
 * as they are unpacked, whatever their headers claim), make the document `too-large`.
 */
export function zipParts(
  file: string | number,
  parts: RegExp,
  textOf: (xml: string, part: string) => string,
): Promise<{ texts: Map<string, string>; broken: boolean }> {
  return new Promise((resolve, reject) => {
    // A path (the indexer's walk) or a checked descriptor, which stays the caller's to close.
    const opened = (done: (err: Error | null, zip?: yauzl.ZipFile) => void) =>
      typeof file === 'number'
        ? fs.fstat(file, (err, st) =>
            err
              ? done(err)
              : yauzl.fromRandomAccessReader(
                  new DescriptorRangeReader(file),
                  st.size,
                  { lazyEntries: true, autoClose: true, validateEntrySizes: true },
                  done,
                ),
          )
        : yauzl.open(file, { lazyEntries: true, autoClose: true, validateEntrySizes: true }, done);
    opened((err, zip) => {
      if (err || !zip) return resolve({ texts: new Map(), broken: true });
      const texts = new Map<string, string>();
      let length = 0;
      let unpacked = 0;
      let settled = false;
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        zip.close();
        fn();
      };
      zip.on('error', () => settle(() => resolve({ texts, broken: texts.size === 0 })));
      zip.on('end', () => settle(() => resolve({ texts, broken: false })));
      zip.on('entry', (entry: yauzl.Entry) => {
        if (settled) return;
        if (!parts.test(entry.fileName) || length >= MAX_TEXT) return zip.readEntry();
        if (entry.uncompressedSize > MAX_ZIP_ENTRY || unpacked + entry.uncompressedSize > MAX_ZIP_TOTAL)
          return settle(() => reject(new TooLarge(`${entry.fileName} unpacks to ${entry.uncompressedSize} bytes`)));
        zip.openReadStream(entry, (streamErr, stream) => {
          if (streamErr || !stream) return zip.readEntry();
          const chunks: Buffer[] = [];
          let bytes = 0;
          stream.on('data', (c: Buffer) => {
            bytes += c.length;
            unpacked += c.length;
            if (bytes > MAX_ZIP_ENTRY || unpacked > MAX_ZIP_TOTAL) {
              stream.destroy();
              settle(() => reject(new TooLarge(`${entry.fileName} unpacks past the limit`)));
            } else chunks.push(c);
          });
          stream.on('end', () => {
            if (settled) return;
            const text = textOf(Buffer.concat(chunks).toString('utf8'), entry.fileName);
            texts.set(entry.fileName, text);
            length += text.length;
            zip.readEntry();
          });
          // A size that differs from the header (validateEntrySizes) or bad deflate data.
          stream.on('error', () => settle(() => resolve({ texts, broken: texts.size === 0 })));
        });
      });
      zip.readEntry();
    });
  });
}

// Document text for the content index: plain-text files by extension (binary content refused
// by a NUL sniff), and the text inside office documents (docx/xlsx/pptx, odt/ods/odp), read as
// a stream with yauzl. Every read is bounded: a document contributes at most MAX_TEXT of text.
import fs from 'node:fs';
import yauzl from 'yauzl';

export const MAX_TEXT = 512 * 1024;
const MAX_TEXT_FILE = 32 * 1024 * 1024;
const MAX_OFFICE_FILE = 64 * 1024 * 1024;
const MAX_XML_ENTRY = 16 * 1024 * 1024;

const TEXT_EXTENSIONS = new Set(
  (
    'txt text md markdown rst org adoc tex csv tsv log json jsonc json5 yaml yml toml ini cfg conf properties env ' +
    'xml html htm xhtml css scss less svg js mjs cjs jsx ts tsx vue py rb go rs java kt kts swift scala c h cc cpp hpp cs ' +
    'php pl lua r sql sh bash zsh fish ps1 bat cmd srt vtt sub ics vcf gitignore dockerfile makefile gradle nfo diff patch'
  ).split(' '),
);
const OFFICE_PARTS: Record<string, RegExp> = {
  docx: /^word\/(document|header\d*|footer\d*|footnotes)\.xml$/,
  xlsx: /^xl\/(sharedStrings|worksheets\/sheet\d+)\.xml$/,
  pptx: /^ppt\/(slides\/slide\d+|notesSlides\/notesSlide\d+)\.xml$/,
  odt: /^content\.xml$/,
  ods: /^content\.xml$/,
  odp: /^content\.xml$/,
};

export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? name.toLowerCase() : name.slice(dot + 1).toLowerCase();
}

/** True when the file's name says it may carry indexable text. */
export function isDocument(name: string): boolean {
  const ext = extensionOf(name);
  return TEXT_EXTENSIONS.has(ext) || ext in OFFICE_PARTS;
}

async function readHead(file: string, bytes: number): Promise<Buffer> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

export function decodeText(buf: Buffer): string | null {
  if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) return buf.subarray(2).toString('utf16le');
  if (buf.length >= 2 && buf[0] === 0xfe && buf[1] === 0xff)
    return Buffer.from(buf.subarray(2)).swap16().toString('utf16le');
  const start = buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
  if (buf.subarray(0, 8192).includes(0)) return null;
  return buf.subarray(start).toString('utf8');
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Text of an office XML part: paragraph, row and cell ends become line breaks. */
export function xmlText(xml: string): string {
  return xml
    .replace(/<\/(w:p|a:p|text:p|text:h|si|row|w:tr|table:table-row)>/g, '\n')
    .replace(/<(w:tab|w:br|text:tab|text:line-break|text:s)\b[^>]*\/?>/g, ' ')
    .replace(/<\/(c|w:tc|table:table-cell)>/g, '\t')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
      if (e[0] === '#') {
        const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
        return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
      }
      return ENTITIES[e.toLowerCase()] ?? m;
    })
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n');
}

function officeText(file: string, parts: RegExp): Promise<string | null> {
  return new Promise((resolve) => {
    yauzl.open(file, { lazyEntries: true, autoClose: true }, (err, zip) => {
      if (err || !zip) return resolve(null);
      const texts: string[] = [];
      let length = 0;
      const finish = () => {
        zip.close();
        resolve(texts.length ? texts.join('\n') : null);
      };
      zip.on('error', () => resolve(texts.length ? texts.join('\n') : null));
      zip.on('end', finish);
      zip.on('entry', (entry: yauzl.Entry) => {
        if (!parts.test(entry.fileName) || entry.uncompressedSize > MAX_XML_ENTRY || length >= MAX_TEXT)
          return zip.readEntry();
        zip.openReadStream(entry, (streamErr, stream) => {
          if (streamErr || !stream) return zip.readEntry();
          const chunks: Buffer[] = [];
          let bytes = 0;
          stream.on('data', (c: Buffer) => {
            bytes += c.length;
            if (bytes > MAX_XML_ENTRY) stream.destroy();
            else chunks.push(c);
          });
          const next = () => {
            const text = xmlText(Buffer.concat(chunks).toString('utf8'));
            texts.push(text);
            length += text.length;
            zip.readEntry();
          };
          stream.on('end', next);
          stream.on('close', () => {
            if (bytes > MAX_XML_ENTRY) zip.readEntry();
          });
          stream.on('error', () => zip.readEntry());
        });
      });
      zip.readEntry();
    });
  });
}

/** The text to index for a file, or null when it has none (or is too large to be worth it). */
export async function extractText(file: string, name: string, size: number): Promise<string | null> {
  const ext = extensionOf(name);
  const parts = OFFICE_PARTS[ext];
  if (parts) {
    if (size > MAX_OFFICE_FILE) return null;
    const text = await officeText(file, parts);
    return text ? text.slice(0, MAX_TEXT) : null;
  }
  if (!TEXT_EXTENSIONS.has(ext) || size > MAX_TEXT_FILE || size === 0) return null;
  const text = decodeText(await readHead(file, Math.min(size, MAX_TEXT)));
  return text && text.trim() ? text : null;
}

// The extractor thread's readers, one per kind of document (extract.ts has the kinds, the limits
// and the text of each format). Whatever a reader meets — a bomb, a password, damage — it
// answers with a state, never an exception; time and memory are bounded by the thread's owner
// (extract-pool.ts), which stops the thread.
import {
  TooLarge,
  decodeText,
  documentKind,
  extensionOf,
  epubSpine,
  htmlText,
  officeParts,
  readHead,
  rtfText,
  xmlText,
  zipParts,
  MAX_TEXT,
  type ExtractLimits,
  type ExtractedKind,
  type Extracted,
} from './extract.ts';
import { pdfText } from './pdf-text.ts';
import { readSearchFacts } from '../metadata/read.ts';

/** HTML and RTF: read at most this much (their text is far smaller than the file). */
const MAX_MARKUP_FILE = 32 * 1024 * 1024;

const outcome = (kind: ExtractedKind, text: string | null, pages?: number): Extracted =>
  text && /[\p{L}\p{N}]/u.test(text)
    ? { text: text.slice(0, MAX_TEXT), state: { kind, status: 'indexed', ...(pages !== undefined ? { pages } : {}) } }
    : { text: null, state: { kind, status: 'empty', ...(pages !== undefined ? { pages } : {}) } };

async function epubText(file: string): Promise<Extracted> {
  const { texts, broken } = await zipParts(file, /^META-INF\/container\.xml$|\.(opf|x?html?)$/i, (xml, part) =>
    /\.(opf|xml)$/i.test(part) ? xml : htmlText(xml),
  );
  if (broken) return { text: null, state: { kind: 'epub', status: 'broken' } };
  const container = texts.get('META-INF/container.xml') ?? '';
  const opfPath = /full-path\s*=\s*["']([^"']+)["']/.exec(container)?.[1];
  const spine = opfPath && texts.has(opfPath) ? epubSpine(opfPath, texts.get(opfPath)!) : [];
  const chapters = spine.length
    ? spine.map((p) => texts.get(p)).filter((t): t is string => t !== undefined)
    : [...texts].filter(([p]) => /\.x?html?$/i.test(p)).map(([, t]) => t);
  return outcome('epub', chapters.join('\n\n'), chapters.length);
}

/** The text of one document of an extracted kind, and what became of it. */
export async function readDocument(
  file: string,
  name: string,
  size: number,
  limits: ExtractLimits,
): Promise<Extracted> {
  const kind = documentKind(name);
  if (kind === null) {
    const media = await readSearchFacts(file, extensionOf(name), size);
    return media ? { text: null, media } : { text: null };
  }
  if (kind === 'text') return { text: null };
  if (size > limits.maxBytes) return { text: null, state: { kind, status: 'too-large' } };
  try {
    switch (kind) {
      case 'pdf':
        return await pdfText(file, limits);
      case 'epub':
        return await epubText(file);
      case 'office': {
        const { texts, broken } = await zipParts(file, officeParts(name)!, xmlText);
        if (broken) return { text: null, state: { kind, status: 'broken' } };
        return outcome(kind, [...texts.values()].join('\n'));
      }
      case 'rtf': {
        const head = await readHead(file, Math.min(size, MAX_MARKUP_FILE));
        if (!head.subarray(0, 16).toString('latin1').startsWith('{\\rtf'))
          return { text: null, state: { kind, status: 'broken' } };
        return outcome(kind, rtfText(head.toString('latin1')));
      }
      case 'html': {
        const text = decodeText(await readHead(file, Math.min(size, MAX_MARKUP_FILE)));
        if (text === null) return { text: null, state: { kind, status: 'broken' } };
        return outcome(kind, htmlText(text));
      }
    }
  } catch (err) {
    return { text: null, state: { kind, status: err instanceof TooLarge ? 'too-large' : 'broken' } };
  }
}

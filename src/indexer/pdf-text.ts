// A PDF's text layer, page by page, with pdf.js (Mozilla's reader, the one the viewer uses),
// run inside the extractor thread: pdf.js's parsing half runs in the same thread (no worker of
// its own; this pdf.js compiles no code from a document), no font is loaded. A page whose text
// is only a picture has no text layer: a document with none on any page says so.
import fs from 'node:fs';
import { MAX_TEXT, PAGE_BREAK, type ExtractLimits, type Extracted } from './extract.ts';

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.min.mjs');
let loaded: Promise<PdfJs> | undefined;

/** pdf.js, loaded on the first PDF (1.9 MB of code an extractor reading office files never needs). */
function pdfjs(): Promise<PdfJs> {
  loaded ??= (async () => {
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = await import('pdfjs-dist/legacy/build/pdf.worker.min.mjs');
    return import('pdfjs-dist/legacy/build/pdf.min.mjs');
  })();
  return loaded;
}

interface TextItem {
  str?: string;
  hasEOL?: boolean;
}

export async function pdfText(file: string, limits: Pick<ExtractLimits, 'maxPages'>): Promise<Extracted> {
  const lib = await pdfjs();
  const data = new Uint8Array(await fs.promises.readFile(file));
  const task = lib.getDocument({
    data,
    verbosity: 0,
    disableFontFace: true,
    useSystemFonts: false,
    stopAtErrors: false,
    isOffscreenCanvasSupported: false,
  });
  try {
    let doc;
    try {
      doc = await task.promise;
    } catch (err) {
      const name = (err as { name?: string }).name;
      return { text: null, state: { kind: 'pdf', status: name === 'PasswordException' ? 'encrypted' : 'broken' } };
    }
    const pages = doc.numPages;
    const parts: string[] = [];
    let length = 0;
    let any = false;
    for (let p = 1; p <= Math.min(pages, limits.maxPages) && length < MAX_TEXT; p++) {
      let page = '';
      try {
        const content = await (await doc.getPage(p)).getTextContent();
        for (const item of content.items as TextItem[]) {
          page += item.str ?? '';
          if (item.hasEOL) page += '\n';
        }
      } catch {
        /* a damaged page: the others are still read */
      }
      if (/[\p{L}\p{N}]/u.test(page)) any = true;
      // No page break inside a page's text: the break is what numbers the pages.
      page = page.replaceAll(PAGE_BREAK, ' ');
      parts.push(page);
      length += page.length + 1;
    }
    if (!any) return { text: null, state: { kind: 'pdf', status: pages > 0 ? 'no-text-layer' : 'empty', pages } };
    return { text: parts.join(PAGE_BREAK).slice(0, MAX_TEXT), state: { kind: 'pdf', status: 'indexed', pages } };
  } finally {
    await task.destroy().catch(() => {});
  }
}

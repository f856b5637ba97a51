// Words inside documents: how fast the indexer reads the text of each kind of document it needs
// a reader for (PDF, EPUB, docx, HTML, RTF), against a ceiling measured in the same run on the
// same files: poppler's `pdftotext` for PDFs (a native reader, one process per file), `unzip -p`
// of the same archives for EPUB and docx (unpacking alone, no XML read), and plain reads of the
// bytes for HTML and RTF. Burrow's figure is its catalogue walk of a volume holding only that
// kind (launch with FOLDER_SIZE_REBUILD=true, the walk's own `ms` from its log line), so the
// extractor thread's start, the walk and the writes are in it; every document must be indexed
// (GET /api/admin/index) or the row fails.
//
//   npm run bench -- extraction [--quick]      (BURROW_TEST_SERVER=source: from source)
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import yazl from 'yazl';
import { launch } from './support/serve.ts';
import { rateRow, runAlone, type BenchOptions, type BenchRow } from './support/table.ts';
import { pdfDocument } from '../support/world.ts';

const run = promisify(execFile);
const MB = 1e6;

const WORDS = (
  'the garden shed needs a new felt roof before winter and the tomatoes want stakes ' +
  'invoice payment due on receipt quarterly figures rose by four percent over last year'
).split(' ');
const line = (i: number, j: number) =>
  Array.from({ length: 12 }, (_, k) => WORDS[(i * 7 + j * 3 + k) % WORDS.length]).join(' ') + ` ${i}-${j}`;

async function zip(file: string, entries: { name: string; data: string }[]): Promise<void> {
  const z = new yazl.ZipFile();
  for (const e of entries) z.addBuffer(Buffer.from(e.data), e.name);
  z.end();
  await new Promise<void>((resolve, reject) =>
    z.outputStream.pipe(fs.createWriteStream(file)).on('close', resolve).on('error', reject),
  );
}

const paragraphs = (i: number, n: number) => Array.from({ length: n }, (_, j) => line(i, j));

/** `count` documents of one kind in `dir`, each of some tens of kB of text. */
async function make(kind: string, dir: string, count: number): Promise<void> {
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < count; i++) {
    const at = (ext: string) => path.join(dir, `Document ${i} — relevé.${ext}`);
    if (kind === 'pdf')
      fs.writeFileSync(at('pdf'), pdfDocument(Array.from({ length: 10 }, (_, p) => paragraphs(i * 10 + p, 16))));
    else if (kind === 'docx')
      await zip(at('docx'), [
        { name: '[Content_Types].xml', data: '<?xml version="1.0"?><Types/>' },
        {
          name: 'word/document.xml',
          data: `<w:document><w:body>${paragraphs(i, 160)
            .map((p) => `<w:p><w:r><w:t>${p}</w:t></w:r></w:p>`)
            .join('')}</w:body></w:document>`,
        },
      ]);
    else if (kind === 'epub')
      await zip(at('epub'), [
        { name: 'mimetype', data: 'application/epub+zip' },
        {
          name: 'META-INF/container.xml',
          data: '<container><rootfiles><rootfile full-path="OEBPS/content.opf"/></rootfiles></container>',
        },
        {
          name: 'OEBPS/content.opf',
          data: `<package><manifest>${[...Array(10).keys()].map((c) => `<item id="c${c}" href="c${c}.xhtml"/>`).join('')}</manifest><spine>${[...Array(10).keys()].map((c) => `<itemref idref="c${c}"/>`).join('')}</spine></package>`,
        },
        ...[...Array(10).keys()].map((c) => ({
          name: `OEBPS/c${c}.xhtml`,
          data: `<html><body><h1>Chapter ${c}</h1>${paragraphs(i * 10 + c, 16)
            .map((p) => `<p>${p}</p>`)
            .join('')}</body></html>`,
        })),
      ]);
    else if (kind === 'html')
      fs.writeFileSync(
        at('html'),
        `<!doctype html><html><head><title>Page ${i}</title><style>p{margin:0}</style></head><body>${paragraphs(i, 160)
          .map((p) => `<p class="x">${p}</p>`)
          .join('\n')}</body></html>`,
      );
    else if (kind === 'rtf')
      fs.writeFileSync(
        at('rtf'),
        `{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Times;}}\\f0\\fs24 ${paragraphs(i, 160)
          .map((p) => `${p}\\par`)
          .join('\n')}}`,
      );
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The ceiling: the same files through a reader without Burrow, one after another. */
async function ceiling(kind: string, files: string[]): Promise<number> {
  const t = performance.now();
  for (const f of files) {
    if (kind === 'pdf') await run('pdftotext', ['-q', f, '-'], { maxBuffer: 64 * 1024 * 1024 });
    else if (kind === 'docx' || kind === 'epub') await run('unzip', ['-p', f], { maxBuffer: 64 * 1024 * 1024 });
    else await fs.promises.readFile(f);
  }
  return performance.now() - t;
}

const CEILING_IS: Record<string, string> = {
  pdf: "poppler's pdftotext, one process per file",
  docx: 'unzip -p of the same files (unpacking only), one process per file',
  epub: 'unzip -p of the same files (unpacking only), one process per file',
  html: 'plain reads of the same bytes (Node, one file after another)',
  rtf: 'plain reads of the same bytes (Node, one file after another)',
};

export async function rows(opts: BenchOptions): Promise<BenchRow[]> {
  const count = opts.quick ? 20 : 100;
  const rounds = opts.quick ? 1 : 3;
  const out: BenchRow[] = [];
  for (const kind of ['pdf', 'epub', 'docx', 'html', 'rtf']) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), `burrow-bench-extract-${kind}-`));
    try {
      const dir = path.join(root, 'volumes', 'Files', 'Documents à lire');
      await make(kind, dir, count);
      const files = fs.readdirSync(dir).map((n) => path.join(dir, n));
      const bytes = files.reduce((n, f) => n + fs.statSync(f).size, 0);
      const env = {
        VOLUME_ROOT: path.join(root, 'volumes'),
        CONFIG_DIR: path.join(root, 'config'),
        CACHE_DIR: path.join(root, 'cache'),
        AUTH_MODE: 'disabled',
        LOG_LEVEL: 'info',
        FOLDER_SIZE_REBUILD: 'true',
      };
      const burrow: number[] = [];
      const plain: number[] = [];
      for (let i = 0; i < rounds; i++) {
        // Interleaved: a burst of load falls on both alike.
        plain.push(await ceiling(kind, files));
        const s = await launch(env);
        try {
          const done = await s.waitFor((l) => l.msg === 'index catalogue finished');
          burrow.push(done.ms as number);
          const report = (await (await fetch(`${s.url}/api/admin/index`)).json()) as {
            documents: { kind: string; status: string; count: number }[];
          };
          const want = kind === 'docx' ? 'office' : kind;
          const indexed = report.documents.find((d) => d.kind === want && d.status === 'indexed')?.count ?? 0;
          if (indexed !== count) throw new Error(`${kind}: ${indexed} of ${count} indexed: ${JSON.stringify(report)}`);
        } finally {
          await s.stop();
        }
      }
      // Documents a second: the files are tens of kB, so the cost is per document more than per byte.
      const rate = (ms: number) => count / (ms / 1000);
      out.push(
        rateRow(
          `words inside ${count} ${kind.toUpperCase()} documents (${(bytes / count / 1000).toFixed(0)} kB each)`,
          rate(median(burrow)),
          rate(median(plain)),
          'docs/s',
          'reference',
          `${CEILING_IS[kind]}; ${(bytes / MB).toFixed(1)} MB in all; Burrow: the catalogue walk of a volume of them alone, every one indexed; median of ${rounds}`,
        ),
      );
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  }
  return out;
}

await runAlone(import.meta.main, rows);

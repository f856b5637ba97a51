// A PDF drawn by pdf.js where the browser has no viewer of its own that works in a page (Android
// Chrome shows nothing in a frame, iOS Safari only the first page): every page in one scrolling
// column, drawn as it comes near the screen (and let go far from it), its text selectable,
// fitted to the width (zoom −/+ and Ctrl+wheel from there). pdf.js and its worker are this
// chunk's own (bundled by Vite, the legacy build for older phones); nothing comes from
// another site.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { PDFDocumentProxy, PDFPageProxy, RenderTask } from 'pdfjs-dist';
import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
import workerUrl from 'pdfjs-dist/legacy/build/pdf.worker.min.mjs?url';
import { ErrorNote, Spinner } from '../components/common.tsx';
import './pdf.css';

pdfjs.GlobalWorkerOptions.workerSrc = workerUrl;
/** Emitted by the build (ui/vite.config.ts): CMaps, standard fonts, image decoders. */
const DATA = `/assets/pdfjs-${pdfjs.version}/`;

/** Around each page: the column's padding and the gap between pages (CSS px). */
const GUTTER = 12;
/** Fitted to the width, but never wider than this (CSS px per PDF point; 96/72 is "100 %"). */
const MAX_FIT = 1.6;

interface PageBox {
  width: number;
  height: number;
}

export default function PdfView({ url, name }: { url: string; name: string }) {
  const stage = useRef<HTMLDivElement>(null);
  const [doc, setDoc] = useState<PDFDocumentProxy | null>(null);
  const [boxes, setBoxes] = useState<PageBox[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [fit, setFit] = useState(1);
  /** The person's zoom, relative to the fitted width. */
  const [zoom, setZoom] = useState(1);
  const [current, setCurrent] = useState(1);
  const scale = fit * zoom;

  useEffect(() => {
    const task = pdfjs.getDocument({
      url,
      withCredentials: true,
      cMapUrl: `${DATA}cmaps/`,
      standardFontDataUrl: `${DATA}standard_fonts/`,
      wasmUrl: `${DATA}wasm/`,
      // WebAssembly would need 'wasm-unsafe-eval' in the page's CSP: the JavaScript decoders instead.
      useWasm: false,
      enableXfa: false,
    });
    let live = true;
    task.promise.then(
      async (d) => {
        // Every page's size up front (a page's dictionary, not its drawing), so the column has its
        // final height and the scroll bar tells the truth; the first page's size stands for the
        // rest of a very long document until each is reached.
        const first = (await d.getPage(1)).getViewport({ scale: 1 });
        const sized: PageBox[] = Array.from({ length: d.numPages }, () => ({
          width: first.width,
          height: first.height,
        }));
        for (let n = 2; n <= Math.min(d.numPages, 400); n++) {
          const v = (await d.getPage(n)).getViewport({ scale: 1 });
          sized[n - 1] = { width: v.width, height: v.height };
        }
        if (!live) return;
        setBoxes(sized);
        setDoc(d);
      },
      (err) => {
        if (live) setError(err);
      },
    );
    return () => {
      live = false;
      void task.destroy();
    };
  }, [url]);

  // Fitted to the stage's width, again when the window changes (a phone turned sideways).
  useEffect(() => {
    const el = stage.current;
    if (!el || !boxes.length) return;
    const widest = Math.max(...boxes.map((b) => b.width));
    const measure = () => setFit(Math.min(MAX_FIT, Math.max(0.1, (el.clientWidth - 2 * GUTTER) / widest)));
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, [boxes]);

  // Which page is being read (for "page n of N"): the last one begun above the stage's middle.
  const onScroll = () => {
    const el = stage.current;
    if (!el) return;
    const top = el.scrollTop + el.clientHeight / 2;
    let y = GUTTER;
    for (let i = 0; i < boxes.length; i++) {
      y += boxes[i]!.height * scale + GUTTER;
      if (y > top) {
        setCurrent(i + 1);
        return;
      }
    }
  };

  const zoomBy = (factor: number) => setZoom((z) => Math.min(6, Math.max(0.25, z * factor)));

  if (error)
    return (
      <div class="viewer-message">
        <ErrorNote error={describe(error)} />
      </div>
    );
  return (
    <div class="pdf-viewer">
      <div
        class="pdf-stage"
        ref={stage}
        tabIndex={0}
        role="document"
        aria-label={`${name}: ${boxes.length} page${boxes.length === 1 ? '' : 's'}`}
        onScroll={onScroll}
        onWheel={(e) => {
          if (!e.ctrlKey) return;
          e.preventDefault();
          zoomBy(e.deltaY < 0 ? 1.1 : 1 / 1.1);
        }}
      >
        {!doc && <Spinner label="Loading the document" />}
        {doc && (
          <div class="pdf-pages" style={{ padding: `${GUTTER}px`, gap: `${GUTTER}px` }}>
            {boxes.map((b, i) => (
              <PdfPage key={i} doc={doc} number={i + 1} box={b} scale={scale} root={stage} />
            ))}
          </div>
        )}
      </div>
      {doc && (
        <div class="pdf-controls">
          <span class="small" aria-live="polite">
            Page {current} of {boxes.length}
          </span>
          <button
            type="button"
            class="icon-button"
            aria-label="Zoom out"
            disabled={zoom <= 0.25}
            onClick={() => zoomBy(1 / 1.25)}
          >
            −
          </button>
          <span class="small">{Math.round(((scale * 72) / 96) * 100)} %</span>
          <button
            type="button"
            class="icon-button"
            aria-label="Zoom in"
            disabled={zoom >= 6}
            onClick={() => zoomBy(1.25)}
          >
            +
          </button>
          <button type="button" class="small" onClick={() => setZoom(1)}>
            Fit width
          </button>
        </div>
      )}
    </div>
  );
}

/** pdf.js names its failures by class: say what they mean to a person. */
function describe(err: unknown): unknown {
  const name = (err as { name?: string } | null)?.name;
  if (name === 'PasswordException')
    return new Error('This PDF is protected by a password. Download it to open it in another program.');
  if (name === 'InvalidPDFException') return new Error('This file is not a readable PDF.');
  return err;
}

function PdfPage({
  doc,
  number,
  box,
  scale,
  root,
}: {
  doc: PDFDocumentProxy;
  number: number;
  box: PageBox;
  scale: number;
  root: { current: HTMLDivElement | null };
}) {
  const host = useRef<HTMLDivElement>(null);
  const [near, setNear] = useState(false);
  const [size, setSize] = useState(box);

  // Drawn when within two screens of the stage; let go beyond that (a long PDF's canvases would
  // hold hundreds of megabytes).
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const io = new IntersectionObserver((entries) => setNear(entries.some((e) => e.isIntersecting)), {
      root: root.current,
      rootMargin: '200% 0px',
    });
    io.observe(el);
    return () => io.disconnect();
  }, []);

  useEffect(() => {
    const el = host.current;
    if (!el || !near) return;
    let live = true;
    let render: RenderTask | null = null;
    let text: { cancel(): void } | null = null;
    (async () => {
      try {
        const page: PDFPageProxy = await doc.getPage(number);
        if (!live) return;
        const viewport = page.getViewport({ scale });
        setSize({ width: viewport.width / scale, height: viewport.height / scale });
        const ratio = window.devicePixelRatio || 1;
        const canvas = document.createElement('canvas');
        canvas.width = Math.floor(viewport.width * ratio);
        canvas.height = Math.floor(viewport.height * ratio);
        canvas.style.width = `${viewport.width}px`;
        canvas.style.height = `${viewport.height}px`;
        render = page.render({
          canvas,
          viewport,
          transform: ratio === 1 ? undefined : [ratio, 0, 0, ratio, 0, 0],
        });
        await render.promise;
        if (!live) return;
        const layer = document.createElement('div');
        layer.className = 'textLayer';
        const tl = new pdfjs.TextLayer({ textContentSource: page.streamTextContent(), container: layer, viewport });
        text = tl;
        el.replaceChildren(canvas, layer);
        el.dataset.rendered = 'true';
        await tl.render();
      } catch (err) {
        if (live && (err as { name?: string }).name !== 'RenderingCancelledException') {
          el.dataset.rendered = 'failed';
          el.textContent = `Page ${number} could not be drawn.`;
        }
      }
    })();
    return () => {
      live = false;
      render?.cancel();
      text?.cancel();
      el.replaceChildren();
      delete el.dataset.rendered;
    };
  }, [near, scale, number, doc]);

  return (
    <div
      class="pdf-page"
      ref={host}
      data-page={number}
      aria-label={`Page ${number}`}
      style={{
        width: `${size.width * scale}px`,
        height: `${size.height * scale}px`,
        '--scale-factor': String(scale),
        '--total-scale-factor': String(scale),
      }}
    />
  );
}

// A picture in the lightbox: fitted to the window, zoom (wheel, pinch, double-click, buttons)
// and pan (drag). Large pictures and the kinds a browser must not or cannot draw itself (SVG,
// TIFF, HEIC) come as the server's screen-sized rendition; GIFs stay the file (animated).
import { useEffect, useRef, useState } from 'preact/hooks';
import type { FileItem } from '../api/types.ts';
import { ErrorNote, Spinner } from '../components/common.tsx';
import { RENDITION_ONLY } from './kinds.ts';
import { previewUrl, renditionUrl } from './urls.ts';

/** Files up to this size are shown as they are (a rendition costs the server more than it saves). */
const DIRECT_BYTES = 1.5 * 1024 * 1024;

export function ImageView({ item, path, onSwipe }: { item: FileItem; path: string; onSwipe: (dir: 1 | -1) => void }) {
  const [src, setSrc] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [zoom, setZoom] = useState({ scale: 1, x: 0, y: 0 });
  const box = useRef<HTMLDivElement>(null);
  const pointers = useRef(new Map<number, { x: number; y: number }>());
  const gesture = useRef<{
    startX: number;
    startY: number;
    x: number;
    y: number;
    dist: number;
    scale: number;
    moved: boolean;
  } | null>(null);

  useEffect(() => {
    let live = true;
    setSrc(null);
    setError(null);
    setZoom({ scale: 1, x: 0, y: 0 });
    const direct = item.kind === 'gif' || (!RENDITION_ONLY.has(item.kind) && item.size <= DIRECT_BYTES);
    if (direct) {
      setSrc(previewUrl(path));
      return;
    }
    const screen =
      Math.max(window.screen.width, window.screen.height, window.innerWidth, window.innerHeight) *
      (window.devicePixelRatio || 1);
    renditionUrl(path, screen).then(
      (url) => {
        if (!live) return;
        if (url) setSrc(url);
        else if (RENDITION_ONLY.has(item.kind))
          setError(new Error('This picture cannot be shown here. Download it to open it in another program.'));
        else setSrc(previewUrl(path));
      },
      (err) => {
        if (!live) return;
        // A picture the server cannot decode may still be one the browser draws.
        if (RENDITION_ONLY.has(item.kind)) setError(err);
        else setSrc(previewUrl(path));
      },
    );
    return () => {
      live = false;
    };
  }, [path, item.size, item.dateModified]);

  const zoomAt = (factor: number, cx?: number, cy?: number) =>
    setZoom((z) => {
      const scale = Math.min(8, Math.max(1, z.scale * factor));
      if (scale === 1) return { scale: 1, x: 0, y: 0 };
      const r = box.current!.getBoundingClientRect();
      const px = (cx ?? r.left + r.width / 2) - (r.left + r.width / 2);
      const py = (cy ?? r.top + r.height / 2) - (r.top + r.height / 2);
      const k = scale / z.scale;
      return { scale, x: px - (px - z.x) * k, y: py - (py - z.y) * k };
    });

  const onPointerDown = (e: PointerEvent) => {
    (e.currentTarget as HTMLElement).setPointerCapture(e.pointerId);
    pointers.current.set(e.pointerId, { x: e.clientX, y: e.clientY });
    const pts = [...pointers.current.values()];
    const dist = pts.length === 2 ? Math.hypot(pts[0]!.x - pts[1]!.x, pts[0]!.y - pts[1]!.y) : 0;
    gesture.current = {
      startX: e.clientX,
      startY: e.clientY,
      x: zoom.x,
      y: zoom.y,
      dist,
      scale: zoom.scale,
      moved: false,
    };
  };
  const onPointerMove = (e: PointerEvent) => {
    const g = gesture.current;
    if (!g || !pointers.current.has(e.pointerId)) return;
    pointers.current.set(e.pointerId, { x: e.clientX, y: e.clientY });
    const pts = [...pointers.current.values()];
    if (pts.length === 2 && g.dist) {
      const d = Math.hypot(pts[0]!.x - pts[1]!.x, pts[0]!.y - pts[1]!.y);
      const scale = Math.min(8, Math.max(1, g.scale * (d / g.dist)));
      setZoom((z) => (scale === 1 ? { scale: 1, x: 0, y: 0 } : { ...z, scale }));
      g.moved = true;
      return;
    }
    const dx = e.clientX - g.startX,
      dy = e.clientY - g.startY;
    if (Math.abs(dx) + Math.abs(dy) > 4) g.moved = true;
    if (zoom.scale > 1) setZoom({ scale: zoom.scale, x: g.x + dx, y: g.y + dy });
  };
  const onPointerUp = (e: PointerEvent) => {
    const g = gesture.current;
    const wasPinch = pointers.current.size > 1;
    pointers.current.delete(e.pointerId);
    if (!g || pointers.current.size) return;
    gesture.current = null;
    // A horizontal swipe on an unzoomed picture goes to the next or previous file.
    const dx = e.clientX - g.startX,
      dy = e.clientY - g.startY;
    if (!wasPinch && zoom.scale === 1 && Math.abs(dx) > 60 && Math.abs(dx) > Math.abs(dy) * 1.5)
      onSwipe(dx < 0 ? 1 : -1);
  };

  if (error)
    return (
      <div class="viewer-message">
        <ErrorNote error={error} />
      </div>
    );
  return (
    <div
      class="image-stage"
      ref={box}
      onWheel={(e) => {
        e.preventDefault();
        zoomAt(e.deltaY < 0 ? 1.2 : 1 / 1.2, e.clientX, e.clientY);
      }}
      onDblClick={(e) => {
        if (zoom.scale > 1) setZoom({ scale: 1, x: 0, y: 0 });
        else zoomAt(2.5, e.clientX, e.clientY);
      }}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
      onPointerCancel={onPointerUp}
    >
      {!src && <Spinner label="Loading the picture" />}
      {src && (
        <img
          src={src}
          alt={item.name}
          draggable={false}
          class={zoom.scale > 1 ? 'zoomed' : undefined}
          style={{ transform: `translate(${zoom.x}px, ${zoom.y}px) scale(${zoom.scale})` }}
          onError={() =>
            setError(new Error('This picture could not be decoded by the browser. Download it to open it elsewhere.'))
          }
        />
      )}
      <div class="zoom-controls" onPointerDown={(e) => e.stopPropagation()}>
        <button
          type="button"
          class="icon-button"
          aria-label="Zoom out"
          disabled={zoom.scale <= 1}
          onClick={() => zoomAt(1 / 1.5)}
        >
          −
        </button>
        <span class="small" aria-live="polite">
          {Math.round(zoom.scale * 100)} %
        </span>
        <button
          type="button"
          class="icon-button"
          aria-label="Zoom in"
          disabled={zoom.scale >= 8}
          onClick={() => zoomAt(1.5)}
        >
          +
        </button>
        <button type="button" class="small" onClick={() => setZoom({ scale: 1, x: 0, y: 0 })}>
          Fit
        </button>
      </div>
    </div>
  );
}

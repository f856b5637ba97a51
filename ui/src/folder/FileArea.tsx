// The folder's entries as a list or a grid. Only the rows on screen (plus a few) exist in the
// DOM, so 100,000 entries scroll like 100. Selection: click, Ctrl/Cmd, Shift, rubber band,
// keyboard. Items drag onto folders (Alt/Option = copy); files from the desktop upload.
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { FileItem } from '../api/types.ts';
import { isDir } from '../api/types.ts';
import {
  focusIndex,
  focusTick,
  folderPath,
  items,
  selected,
  viewPrefs,
  selectOnly,
  selectRange,
  toggle,
} from './model.ts';
import { GridTile, ListHeader, ListRow, columnTemplate } from './rows.tsx';
import { handleKey, openItem, showItemMenu, showAreaMenu, dropOnto, dragStart } from './interact.ts';

const LIST_ROW = 36;
const TILE_W = 136;
const TILE_H = 156;

interface Geometry {
  rowH: number;
  cols: number;
}

export function FileArea() {
  const scroller = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  const [size, setSize] = useState({ w: 800, h: 600 });
  const [band, setBand] = useState<{ x0: number; y0: number; x1: number; y1: number } | null>(null);
  const [dropTarget, setDropTarget] = useState<string | null>(null);
  const grid = viewPrefs.value.view === 'grid';
  const list = items.value;
  const geo: Geometry = grid
    ? { rowH: TILE_H, cols: Math.max(1, Math.floor(size.w / TILE_W)) }
    : { rowH: LIST_ROW, cols: 1 };
  const rows = Math.ceil(list.length / geo.cols);

  useLayoutEffect(() => {
    const el = scroller.current!;
    const ro = new ResizeObserver(() => setSize({ w: el.clientWidth, h: el.clientHeight }));
    ro.observe(el);
    setSize({ w: el.clientWidth, h: el.clientHeight });
    return () => ro.disconnect();
  }, []);

  useEffect(() => {
    scroller.current!.scrollTop = 0;
    setTop(0);
  }, [folderPath.value]);

  // Keep the keyboard focus row on screen.
  useEffect(() => {
    const el = scroller.current!;
    const r = Math.floor(focusIndex.value / geo.cols);
    const y = r * geo.rowH;
    if (y < el.scrollTop) el.scrollTop = y;
    else if (y + geo.rowH > el.scrollTop + el.clientHeight) el.scrollTop = y + geo.rowH - el.clientHeight;
  }, [focusIndex.value, focusTick.value]);

  const overscan = grid ? 2 : 8;
  const first = Math.max(0, Math.floor(top / geo.rowH) - overscan);
  const last = Math.min(rows, Math.ceil((top + size.h) / geo.rowH) + overscan);
  const visible: { item: FileItem; index: number }[] = [];
  for (let r = first; r < last; r++)
    for (let c = 0; c < geo.cols; c++) {
      const index = r * geo.cols + c;
      if (index < list.length) visible.push({ item: list[index]!, index });
    }

  const onScroll = () => {
    const t = scroller.current!.scrollTop;
    requestAnimationFrame(() => setTop(t));
  };

  // Rubber band: starts on empty space, selects what the rectangle touches (computed from
  // geometry, so rows that are not rendered are selected too).
  const onPointerDown = (e: PointerEvent) => {
    if (e.button !== 0 || (e.target as HTMLElement).closest('.entry')) return;
    const el = scroller.current!;
    const box = el.getBoundingClientRect();
    const x0 = e.clientX - box.left,
      y0 = e.clientY - box.top + el.scrollTop;
    if (x0 > el.clientWidth) return; // the scrollbar
    const base = e.ctrlKey || e.metaKey ? new Set(selected.value) : new Set<string>();
    if (!e.ctrlKey && !e.metaKey) selected.value = new Set();
    el.setPointerCapture(e.pointerId);
    const move = (m: PointerEvent) => {
      const x1 = Math.max(0, Math.min(el.clientWidth, m.clientX - box.left));
      const y1 = Math.max(0, m.clientY - box.top + el.scrollTop);
      setBand({ x0, y0, x1, y1 });
      const [ya, yb] = [Math.min(y0, y1), Math.max(y0, y1)];
      const [xa, xb] = [Math.min(x0, x1), Math.max(x0, x1)];
      const next = new Set(base);
      const r0 = Math.floor(ya / geo.rowH),
        r1 = Math.min(rows - 1, Math.floor(yb / geo.rowH));
      const c0 = grid ? Math.floor(xa / TILE_W) : 0,
        c1 = grid ? Math.min(geo.cols - 1, Math.floor(xb / TILE_W)) : 0;
      for (let r = r0; r <= r1; r++)
        for (let c = c0; c <= c1; c++) {
          const it = list[r * geo.cols + c];
          if (it) next.add(it.name);
        }
      selected.value = next;
      if (m.clientY > box.bottom - 20) el.scrollTop += 20;
      else if (m.clientY < box.top + 20) el.scrollTop -= 20;
    };
    const up = () => {
      el.removeEventListener('pointermove', move);
      el.removeEventListener('pointerup', up);
      setBand(null);
    };
    el.addEventListener('pointermove', move);
    el.addEventListener('pointerup', up);
  };

  const onItemClick = (e: MouseEvent, index: number) => {
    // Touch: one tap opens a folder (a long press selects, through the item menu).
    const item = list[index];
    if (
      (item && isDir(item) && !e.shiftKey && !e.ctrlKey && !e.metaKey && (e as PointerEvent).pointerType === 'touch') ||
      (item && isDir(item) && !e.shiftKey && !e.ctrlKey && !e.metaKey && matchMedia('(pointer: coarse)').matches)
    ) {
      openItem(item);
      return;
    }
    if (e.shiftKey) selectRange(index, e.ctrlKey || e.metaKey);
    else if (e.ctrlKey || e.metaKey) toggle(index);
    else selectOnly(index);
    scroller.current!.focus({ preventScroll: true });
  };

  const onItemMenu = (e: MouseEvent, index: number) => {
    e.preventDefault();
    const item = list[index]!;
    if (!selected.value.has(item.name)) selectOnly(index);
    showItemMenu(e.clientX, e.clientY);
  };

  const dragHandlers = (item: FileItem | null) => ({
    onDragOver: (e: DragEvent) => {
      const types = e.dataTransfer?.types ?? [];
      const ours = types.includes('application/x-burrow-items');
      if (!ours && !types.includes('Files')) return;
      if (item && (!isDir(item) || (selected.value.has(item.name) && ours))) return;
      e.preventDefault();
      e.stopPropagation();
      e.dataTransfer!.dropEffect = ours ? (e.altKey ? 'copy' : 'move') : 'copy';
      setDropTarget(item ? item.name : '');
    },
    onDragLeave: () => setDropTarget(null),
    onDrop: (e: DragEvent) => {
      if (!e.dataTransfer) return;
      e.preventDefault();
      e.stopPropagation();
      setDropTarget(null);
      dropOnto(e, item);
    },
  });

  const area = dragHandlers(null);
  const sel = selected.value;
  return (
    <div
      class={`file-area ${grid ? 'grid-mode' : 'list-mode'}${dropTarget === '' ? ' drop-here' : ''}`}
      style={{ '--cols': columnTemplate.value } as any}
    >
      {!grid && <ListHeader />}
      <div
        ref={scroller}
        class="scroller"
        tabIndex={0}
        role={grid ? 'grid' : 'listbox'}
        aria-multiselectable="true"
        aria-label="Folder contents"
        aria-activedescendant={list[focusIndex.value] ? `entry-${focusIndex.value}` : undefined}
        onScroll={onScroll}
        onPointerDown={onPointerDown}
        onKeyDown={(e) => handleKey(e, geo.cols, Math.max(1, Math.floor(size.h / geo.rowH)))}
        onContextMenu={(e) => {
          if (!(e.target as HTMLElement).closest('.entry')) {
            e.preventDefault();
            showAreaMenu(e.clientX, e.clientY);
          }
        }}
        {...area}
      >
        <div class="spacer" style={{ height: `${rows * geo.rowH}px` }}>
          {visible.map(({ item, index }) => {
            const props = {
              key: item.name,
              item,
              index,
              selected: sel.has(item.name),
              focused: index === focusIndex.value,
              dropping: dropTarget === item.name,
              style: grid
                ? {
                    transform: `translate(${(index % geo.cols) * TILE_W}px, ${Math.floor(index / geo.cols) * TILE_H}px)`,
                  }
                : { transform: `translateY(${index * LIST_ROW}px)` },
              onClick: (e: MouseEvent) => onItemClick(e, index),
              onDblClick: () => openItem(item),
              onContextMenu: (e: MouseEvent) => onItemMenu(e, index),
              onMore: (e: MouseEvent) => {
                e.stopPropagation();
                if (!sel.has(item.name)) selectOnly(index);
                const r = (e.currentTarget as HTMLElement).getBoundingClientRect();
                showItemMenu(r.left, r.bottom);
              },
              onDragStart: (e: DragEvent) => dragStart(e, item),
              ...dragHandlers(item),
            };
            return grid ? <GridTile {...props} /> : <ListRow {...props} />;
          })}
        </div>
        {band && (
          <div
            class="rubber-band"
            style={{
              left: `${Math.min(band.x0, band.x1)}px`,
              top: `${Math.min(band.y0, band.y1)}px`,
              width: `${Math.abs(band.x1 - band.x0)}px`,
              height: `${Math.abs(band.y1 - band.y0)}px`,
            }}
          />
        )}
      </div>
    </div>
  );
}

// The folder's entries as a list or a grid. Only the rows on screen (plus a few) exist in the
// DOM, so 100,000 entries scroll like 100. Selection: click, Ctrl/Cmd, Shift, rubber band,
// keyboard; on a touch screen a tap opens and a long press selects (then taps toggle), as phone
// file managers do. Items drag onto folders (Alt/Option = copy); files from the desktop upload.
// The list takes the keyboard focus when a folder opens, so arrows, End and Ctrl+A work at once.
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
  selectMode,
  selectOnly,
  selectRange,
  toggle,
  touchSelecting,
} from './model.ts';
import { GridTile, ListHeader, ListRow, columnTemplate } from './rows.tsx';
import { handleKey, openItem, showItemMenu, showAreaMenu, dropOnto, dragStart } from './interact.ts';

const LIST_ROW = 36;
const TILE_W = 136;
const TILE_H = 156;
/** How long a finger rests on an entry before it counts as a long press (Android's own is 400-500 ms). */
const LONG_PRESS_MS = 450;
/** How far a finger may drift during a long press (px) before it is a scroll instead. */
const LONG_PRESS_SLOP = 10;

/** The last input was a key (not a pointer): a focus moved by the app then shows its ring. */
let keyboardLast = false;
addEventListener('keydown', () => (keyboardLast = true), true);
addEventListener('pointerdown', () => (keyboardLast = false), true);

/** The element that has the focus is one a person types into, or sits in a dialog. */
function typingElsewhere(): boolean {
  const a = document.activeElement as HTMLElement | null;
  if (!a || a === document.body) return false;
  return a.matches('input, textarea, select, [contenteditable]') || a.closest('dialog, [role="dialog"]') !== null;
}

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

  // A folder just opened (this area mounts when its listing arrives): the list takes the focus,
  // unless the person is typing somewhere else; its ring shows when the keyboard brought them
  // here (not after a click or a tap, nor on a page just loaded).
  useEffect(() => {
    if (!typingElsewhere())
      scroller.current!.focus({ preventScroll: true, focusVisible: keyboardLast } as FocusOptions);
  }, [folderPath.value]);

  // Touch: the pointer that started the last gesture, a long press under way, and whether one
  // just selected (its own click and context menu are then not taps).
  const lastPointer = useRef('mouse');
  const press = useRef<{ timer: number; x: number; y: number; fired: boolean } | null>(null);
  const cancelPress = () => {
    if (press.current) clearTimeout(press.current.timer);
  };
  const longPressSelect = (index: number) => {
    const item = list[index];
    if (!item) return;
    selectMode.value = true;
    if (!selected.value.has(item.name)) toggle(index);
    navigator.vibrate?.(15);
  };

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
    lastPointer.current = e.pointerType;
    const entry = (e.target as HTMLElement).closest<HTMLElement>('.entry');
    if (e.pointerType === 'touch') {
      // A finger on empty space scrolls; on an entry it may become a long press.
      cancelPress();
      press.current = null;
      const index = entry ? Number(entry.dataset.index) : NaN;
      if (!Number.isInteger(index) || (e.target as HTMLElement).closest('button')) return;
      const p = {
        x: e.clientX,
        y: e.clientY,
        fired: false,
        timer: window.setTimeout(() => {
          p.fired = true;
          longPressSelect(index);
        }, LONG_PRESS_MS),
      };
      press.current = p;
      return;
    }
    if (e.button !== 0 || entry) return;
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
    const item = list[index];
    const touch = (e as PointerEvent).pointerType === 'touch' || lastPointer.current === 'touch';
    if (touch && press.current?.fired) {
      // The click that ends a long press: the press already selected.
      press.current = null;
      return;
    }
    if (item && touch && !e.shiftKey && !e.ctrlKey && !e.metaKey) {
      // Touch: a tap opens, files as folders; while selecting (after a long press) it toggles.
      if (touchSelecting.value) toggle(index);
      else openItem(item);
      return;
    }
    if (e.shiftKey) selectRange(index, e.ctrlKey || e.metaKey);
    else if (e.ctrlKey || e.metaKey) toggle(index);
    else selectOnly(index);
    scroller.current!.focus({ preventScroll: true });
  };

  const onItemMenu = (e: MouseEvent, index: number) => {
    e.preventDefault();
    if (lastPointer.current === 'touch') {
      // A long press as the browser reports it (Android): it selects; the ⋮ button has the menu.
      if (press.current && !press.current.fired) {
        cancelPress();
        press.current.fired = true;
        longPressSelect(index);
      }
      return;
    }
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
        onPointerMove={(e) => {
          const p = press.current;
          if (p && !p.fired && Math.hypot(e.clientX - p.x, e.clientY - p.y) > LONG_PRESS_SLOP) cancelPress();
        }}
        onPointerUp={() => {
          if (press.current && !press.current.fired) cancelPress();
        }}
        onPointerCancel={() => {
          cancelPress();
          press.current = null;
        }}
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

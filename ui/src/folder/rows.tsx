// One entry as a list row or a grid tile, and the list's header (sortable, resizable).
import { signal, computed } from '@preact/signals';
import { useEffect, useState } from 'preact/hooks';
import { api, joinPath } from '../api/client.ts';
import type { FileItem } from '../api/types.ts';
import { isDir } from '../api/types.ts';
import { Icon } from '../components/common.tsx';
import { preferences } from '../state/session.ts';
import { formatBytes, formatDate, iconFor, kindLabel } from '../util.ts';
import { folderSizes, revealName, sortBy, viewPrefs, type SortKey } from './model.ts';
import { filesUrl, navigate } from '../state/router.ts';
import { folderSizeCell } from './selection.ts';
import { folderTags, TagChips } from '../tags/tags.tsx';

type Widths = { name: number; size: number; modified: number; kind: number };
const WIDTHS_KEY = 'burrow.columns';
function loadWidths(): Widths {
  try {
    const w = JSON.parse(localStorage.getItem(WIDTHS_KEY) ?? 'null');
    if (w && typeof w.name === 'number') return w;
  } catch {
    /* defaults */
  }
  return { name: 0, size: 110, modified: 200, kind: 110 };
}
export const widths = signal<Widths>(loadWidths());
/** The name column takes what is left unless the person has sized it. */
export const columnTemplate = computed(() => {
  const w = widths.value;
  return `${w.name ? `${w.name}px` : 'minmax(160px, 1fr)'} ${w.size}px ${w.modified}px ${w.kind}px 40px`;
});

const COLUMNS: { key: SortKey; label: string }[] = [
  { key: 'name', label: 'Name' },
  { key: 'size', label: 'Size' },
  { key: 'modified', label: 'Modified' },
  { key: 'kind', label: 'Kind' },
];

function startResize(e: PointerEvent, key: SortKey) {
  e.preventDefault();
  e.stopPropagation();
  const cell = (e.currentTarget as HTMLElement).parentElement!;
  const startX = e.clientX;
  const startW = cell.getBoundingClientRect().width;
  const handle = e.currentTarget as HTMLElement;
  handle.setPointerCapture(e.pointerId);
  const move = (m: PointerEvent) => {
    widths.value = { ...widths.value, [key]: Math.max(60, Math.round(startW + m.clientX - startX)) };
  };
  const up = () => {
    handle.removeEventListener('pointermove', move);
    handle.removeEventListener('pointerup', up);
    try {
      localStorage.setItem(WIDTHS_KEY, JSON.stringify(widths.value));
    } catch {
      /* ignore */
    }
  };
  handle.addEventListener('pointermove', move);
  handle.addEventListener('pointerup', up);
}

export function ListHeader() {
  const { sortBy: by, sortDir } = viewPrefs.value;
  return (
    <div class="list-header" role="row">
      {COLUMNS.map((c) => (
        <div
          key={c.key}
          class={`col col-${c.key}`}
          role="columnheader"
          aria-sort={by === c.key ? (sortDir === 'asc' ? 'ascending' : 'descending') : 'none'}
        >
          <button type="button" class="sort" onClick={() => sortBy(c.key)}>
            {c.label}
            {by === c.key && <span aria-hidden="true">{sortDir === 'asc' ? ' ▲' : ' ▼'}</span>}
          </button>
          <span
            class="resize"
            role="separator"
            aria-orientation="vertical"
            aria-label={`Resize ${c.label}`}
            onPointerDown={(e) => startResize(e, c.key)}
          />
        </div>
      ))}
      <div class="col" />
    </div>
  );
}

export interface EntryProps {
  item: FileItem;
  index: number;
  selected: boolean;
  focused: boolean;
  dropping: boolean;
  style: Record<string, string>;
  onClick: (e: MouseEvent) => void;
  onDblClick: () => void;
  onContextMenu: (e: MouseEvent) => void;
  onMore: (e: MouseEvent) => void;
  onDragStart: (e: DragEvent) => void;
  onDragOver: (e: DragEvent) => void;
  onDragLeave: () => void;
  onDrop: (e: DragEvent) => void;
}

/** A touch screen is the main pointer: entries are not draggable (a long press selects). */
const touchFirst = typeof matchMedia === 'function' && matchMedia('(pointer: coarse)').matches;

function entryAttrs(p: EntryProps, cls: string) {
  return {
    id: `entry-${p.index}`,
    role: 'option' as const,
    'aria-selected': p.selected,
    draggable: !touchFirst,
    'data-name': p.item.name,
    'data-index': p.index,
    class: `entry ${cls}${p.selected ? ' selected' : ''}${p.focused ? ' focused' : ''}${p.dropping ? ' dropping' : ''}${isDir(p.item) ? ' is-dir' : ''}`,
    style: p.style,
    onClick: p.onClick,
    onDblClick: p.onDblClick,
    onContextMenu: p.onContextMenu,
    onDragStart: p.onDragStart,
    onDragOver: p.onDragOver,
    onDragLeave: p.onDragLeave,
    onDrop: p.onDrop,
  };
}

export function ListRow(p: EntryProps) {
  const { item } = p;
  const dir = isDir(item);
  const folderSize = dir ? folderSizes.value[item.name] : undefined;
  return (
    <div {...entryAttrs(p, 'row')}>
      <span class="col col-name">
        {item.supportsThumbnail ? <Thumb item={item} size={22} /> : <Icon name={iconFor(item.kind)} size={18} />}
        <span class="name" dir="auto" title={item.name}>
          {item.name}
        </span>
        <TagChips tags={folderTags.value[joinPath(item.path, item.name)]} small />
      </span>
      <span class="col col-size">{dir ? folderSizeCell(folderSize) : formatBytes(item.size)}</span>
      <span class="col col-modified">{formatDate(item.dateModified)}</span>
      <span class="col col-kind">{kindLabel(item.kind)}</span>
      <button
        type="button"
        class="col more icon-button"
        tabIndex={-1}
        aria-label={`Actions for ${item.name}`}
        onClick={p.onMore}
      >
        ⋮
      </button>
    </div>
  );
}

const thumbCache = new Map<string, string>();

export function Thumb({ item, size = 56 }: { item: FileItem; size?: number }) {
  const full = joinPath(item.path, item.name);
  const [url, setUrl] = useState(thumbCache.get(full) ?? '');
  const want = item.supportsThumbnail && preferences.value.showThumbnails !== false;
  useEffect(() => {
    if (!want || thumbCache.has(full)) return;
    let live = true;
    // Wait a moment so fast scrolling does not ask for every tile it passes.
    const t = setTimeout(() => {
      api('GET /api/thumbnails/*', { params: { path: full } }).then(
        (a) => {
          thumbCache.set(full, a.thumbnail ?? '');
          if (live) setUrl(a.thumbnail ?? '');
        },
        () => thumbCache.set(full, ''),
      );
    }, 120);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [full, want]);
  if (want && url)
    return (
      <img
        class={size < 56 ? 'thumb thumb-small' : 'thumb'}
        src={url}
        alt=""
        loading="lazy"
        decoding="async"
        draggable={false}
        width={size < 56 ? size : undefined}
        height={size < 56 ? size : undefined}
      />
    );
  return <Icon name={iconFor(item.kind)} size={size < 56 ? 18 : 56} />;
}

export function GridTile(p: EntryProps) {
  return (
    <div {...entryAttrs(p, 'tile')}>
      <div class="tile-visual">
        <Thumb item={p.item} />
      </div>
      <span class="name" dir="auto" title={p.item.name}>
        {p.item.name}
      </span>
      <TagChips tags={folderTags.value[joinPath(p.item.path, p.item.name)]} small />
      <button
        type="button"
        class="more icon-button"
        tabIndex={-1}
        aria-label={`Actions for ${p.item.name}`}
        onClick={p.onMore}
      >
        ⋮
      </button>
    </div>
  );
}

/** A found item's "Open folder": its folder, with the item brought into view there. */
export function OpenFolderButton({ path, name }: { path: string; name: string }) {
  return (
    <button
      type="button"
      class="small"
      onClick={() => {
        revealName.value = name;
        navigate(filesUrl(path));
      }}
    >
      Open folder
    </button>
  );
}

// Formatting helpers shared by the screens.
export function formatBytes(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '';
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB', 'PB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
/**
 * The one way a time is shown, on every screen: the reader's own medium date and short time
 * ("24 Nov 2026, 19:30"). Takes ISO times and the archive listing's local "YYYY-MM-DD hh:mm:ss"
 * (a zip stores no zone), which not every browser parses with its space.
 */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(/^\d{4}-\d\d-\d\d \d/.test(iso) ? iso.replace(' ', 'T') : iso);
  return Number.isNaN(d.getTime()) ? '' : dateFormat.format(d);
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '';
  if (seconds < 60) return `${Math.ceil(seconds)} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.round((seconds % 3600) / 60)} min`;
}

export const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

export function kindLabel(kind: string): string {
  if (kind === 'directory') return 'Folder';
  if (kind === 'unknown' || !kind) return 'File';
  return `${kind.toUpperCase()} file`;
}

const IMAGE = new Set(['jpg', 'jpeg', 'png', 'gif', 'webp', 'avif', 'bmp', 'svg', 'heic', 'tif', 'tiff']);
const VIDEO = new Set(['mp4', 'mkv', 'mov', 'webm', 'avi', 'm4v']);
const AUDIO = new Set(['mp3', 'flac', 'ogg', 'wav', 'm4a', 'opus', 'aac']);
const ARCHIVE = new Set(['zip', 'tar', 'gz', 'tgz', '7z', 'rar', 'bz2', 'xz', 'iso']);
const TEXT = new Set([
  'txt',
  'md',
  'json',
  'js',
  'ts',
  'tsx',
  'css',
  'html',
  'xml',
  'yml',
  'yaml',
  'csv',
  'log',
  'ini',
  'conf',
  'sh',
  'py',
  'go',
  'rs',
  'c',
  'h',
  'java',
  'toml',
]);

export type IconName = 'folder' | 'file' | 'image' | 'video' | 'audio' | 'archive' | 'text';
export function iconFor(kind: string): IconName {
  if (kind === 'directory') return 'folder';
  if (IMAGE.has(kind)) return 'image';
  if (VIDEO.has(kind)) return 'video';
  if (AUDIO.has(kind)) return 'audio';
  if (ARCHIVE.has(kind)) return 'archive';
  if (TEXT.has(kind)) return 'text';
  return 'file';
}

/**
 * Asks `fetch` now, and again while `again(answer)` holds: 1 s after an answer, twice as long
 * each time up to 30 s, for at most 10 minutes (the index's figures land in the background — a
 * first walk, a folder counted again — and nothing tells the page). Each answer goes to `use`.
 * Returns the stop, for when the screen goes.
 */
export function askUntilFinal<T>(
  fetch: () => Promise<T>,
  again: (answer: T) => boolean,
  use: (answer: T) => void,
  onError: (err: unknown) => void = () => {},
): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const until = Date.now() + 10 * 60_000;
  const ask = (delay: number) => {
    fetch().then(
      (answer) => {
        if (stopped) return;
        use(answer);
        if (again(answer) && Date.now() < until) timer = setTimeout(() => ask(Math.min(delay * 2, 30_000)), delay);
      },
      (err) => {
        if (!stopped) onError(err);
      },
    );
  };
  ask(1000);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/**
 * What became of the taken names of a copy, a move or an extraction, in words for the tray and
 * the toast (empty when every name was free): `name` is the name each item took.
 */
export function outcomesSaid(items: { outcome: string; name: string }[]): string[] {
  const renamed = items.filter((i) => i.outcome === 'renamed');
  const replaced = items.filter((i) => i.outcome === 'replaced').length;
  const skipped = items.filter((i) => i.outcome === 'skipped').length;
  return [
    renamed.length ? `${renamed.map((i) => i.name).join(', ')} kept beside the old` : '',
    replaced ? `${replaced} replaced, the old kept` : '',
    skipped ? `${skipped} skipped` : '',
  ].filter(Boolean);
}

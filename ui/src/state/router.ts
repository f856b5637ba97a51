// Client-side routes live in the address bar so reload, back and links work. The server
// answers index.html for every non-API path (SPA fallback, src/http/static.ts).
//
// `/files/<virtual path>` names a folder or a file. A file's address shows its folder with the
// viewer open on it (reload, bookmark, a link sent to a housemate, a Markdown link); which
// addresses name files is learnt from listings (viewers/state.tsx): the folder's own entry, or
// the server's answer for the address itself (`current.isDirectory: false`). Until then a name
// with an extension is taken for a file (its folder is listed first) and any other for a folder.
import { signal } from '@preact/signals';
import { encodePath, parentOf } from '../api/client.ts';

export interface Location {
  path: string;
  query: URLSearchParams;
}

const read = (): Location => ({ path: window.location.pathname, query: new URLSearchParams(window.location.search) });

export const location = signal<Location>(read());

window.addEventListener('popstate', () => {
  location.value = read();
});

export interface NavigateOptions {
  /** Replace the current history entry instead of adding one. */
  replace?: boolean;
  /** The entry's `history.state` (the viewer marks its own entries). */
  state?: unknown;
  /** Leave the page's scroll where it is (a viewer opening over the folder). */
  keepScroll?: boolean;
}

export function navigate(to: string, options: boolean | NavigateOptions = {}): void {
  const o = typeof options === 'boolean' ? { replace: options } : options;
  if (to === window.location.pathname + window.location.search && o.state === undefined) return;
  if (o.replace) history.replaceState(o.state ?? null, '', to);
  else history.pushState(o.state ?? null, '', to);
  location.value = read();
  if (!o.keepScroll) window.scrollTo(0, 0);
}

/** `/files/<virtual path>` */
export const filesUrl = (virtualPath: string) => `/files/${encodePath(virtualPath)}`;

/** What the addresses seen so far turned out to name. */
const known = signal<ReadonlyMap<string, 'file' | 'folder'>>(new Map());

/** Records what `path` names: a file's address shows its folder, with the viewer on it. */
export function learnAddress(path: string, kind: 'file' | 'folder'): void {
  if (known.value.get(path) !== kind) known.value = new Map(known.value).set(path, kind);
}

/** Until learnt: a last name with an extension (`todo.md`, `IMG_2041.JPG`) is taken for a file. */
const looksLikeFile = (path: string) => path.includes('/') && /[^/.]\.[A-Za-z0-9]{1,8}$/.test(path);

/** The virtual path a `/files/...` address names (a folder or a file), or null for other screens. */
export function addressOf(loc: Location): string | null {
  if (loc.path !== '/files' && !loc.path.startsWith('/files/')) return null;
  return loc.path
    .slice('/files/'.length)
    .split('/')
    .filter(Boolean)
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    })
    .join('/');
}

/** The folder shown at `loc`: the address's own path, or a file's folder; null for other screens. */
export function folderOf(loc: Location): string | null {
  const p = addressOf(loc);
  if (p === null) return null;
  const kind = known.value.get(p) ?? (looksLikeFile(p) ? 'file' : 'folder');
  return kind === 'file' ? parentOf(p) : p;
}

/** The file `loc` names, once known to be a file; otherwise null. */
export function fileOf(loc: Location): string | null {
  const p = addressOf(loc);
  return p !== null && known.value.get(p) === 'file' ? p : null;
}

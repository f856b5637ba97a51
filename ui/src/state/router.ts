// Client-side routes live in the address bar so reload, back and links work. The server
// answers index.html for every non-API path (SPA fallback).
import { signal } from '@preact/signals';
import { encodePath } from '../api/client.ts';

export interface Location {
  path: string;
  query: URLSearchParams;
}

const read = (): Location => ({ path: window.location.pathname, query: new URLSearchParams(window.location.search) });

export const location = signal<Location>(read());

window.addEventListener('popstate', () => {
  location.value = read();
});

export function navigate(to: string, replace = false): void {
  if (to === window.location.pathname + window.location.search) return;
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  location.value = read();
  window.scrollTo(0, 0);
}

/** `/files/<virtual path>` */
export const filesUrl = (virtualPath: string) => `/files/${encodePath(virtualPath)}`;

/** The virtual path of a `/files/...` address, or null for other screens. */
export function folderOf(loc: Location): string | null {
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

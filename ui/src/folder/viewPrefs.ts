// Per-folder view and sort. Kept on the server (it follows the folder across renames and is
// forgotten when the folder is deleted); a local copy lets the folder open in its own view
// before the server has answered.
import { api } from '../api/client.ts';
import type { ViewPrefs } from './model.ts';

const KEY = 'burrow.view.';
const DEFAULT: ViewPrefs = { view: 'list', sortBy: 'name', sortDir: 'asc' };

function valid(v: any): v is ViewPrefs {
  return (
    v &&
    (v.view === 'list' || v.view === 'grid') &&
    ['name', 'size', 'modified', 'kind'].includes(v.sortBy) &&
    (v.sortDir === 'asc' || v.sortDir === 'desc')
  );
}

export function loadViewPrefs(path: string): ViewPrefs {
  try {
    const v = JSON.parse(localStorage.getItem(KEY + path) ?? 'null');
    if (valid(v)) return v;
  } catch {
    /* unreadable: defaults */
  }
  return DEFAULT;
}

/** Has this browser a remembered choice for the folder? */
export function hasLocalViewPrefs(path: string): boolean {
  try {
    return localStorage.getItem(KEY + path) !== null;
  } catch {
    return false;
  }
}

export function saveViewPrefs(path: string, prefs: ViewPrefs): void {
  try {
    localStorage.setItem(KEY + path, JSON.stringify(prefs));
  } catch {
    /* private mode */
  }
  void pushToServer(path, prefs);
}

/** Server side: `GET/PUT /api/folder-prefs/<folder>`; nothing chosen there yet reads as null. */
let pushToServer = async (path: string, prefs: ViewPrefs): Promise<void> => {
  await api('PUT /api/folder-prefs/*', { params: { path }, body: prefs }).catch(() => {
    /* kept locally */
  });
};
let pullFromServer = async (path: string): Promise<ViewPrefs | null> => {
  const a = await api('GET /api/folder-prefs/*', { params: { path } });
  return a.saved ? { view: a.view, sortBy: a.sortBy, sortDir: a.sortDir } : null;
};

export function useServerPrefs(push: typeof pushToServer, pull: typeof pullFromServer): void {
  pushToServer = push;
  pullFromServer = pull;
}

export async function fetchViewPrefs(path: string): Promise<ViewPrefs | null> {
  try {
    const v = await pullFromServer(path);
    if (!valid(v)) return null;
    try {
      localStorage.setItem(KEY + path, JSON.stringify(v));
    } catch {
      /* ignore */
    }
    return v;
  } catch {
    return null;
  }
}

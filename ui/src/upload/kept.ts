// Uploads that survive a reload, a browser restart or a phone waking up: each upload of the
// account's own that is queued, running, paused or failed is kept in IndexedDB with its file
// (IndexedDB stores a File as it is: name, type, date and bytes), and forgotten once done or
// removed. The next page of the same account takes them up again (start.ts): queued and running
// ones go on, a failed one is shown failed with its reason until the person retries or removes
// it. A resumable upload's address at the server is kept with it, so the page — or, with the page
// closed, the service worker woken by Background Sync (public/sw.js, which reads this same store)
// — goes on from the server's offset. Nothing here is sent
// anywhere: the browser's own storage for this origin.

export interface KeptUpload {
  key: string;
  /** The account it belongs to: another account signing in on this browser does not get it. */
  account: string;
  file: File;
  target: string;
  relativePath: string;
  conflict?: 'rename' | 'skip' | 'replace';
  chunked: boolean;
  paused: boolean;
  /** Why it failed (the server's sentence, or the network): shown again after a reload. */
  failed?: { error: string; requestId?: string };
  /** The resumable upload's address at the server, once it was made there. */
  url?: string;
}

/** The Background Sync tag the page registers and the service worker answers (public/sw.js). */
export const SYNC_TAG = 'burrow-uploads';

const DB = 'burrow-uploads';
const STORE = 'uploads';
let opened: Promise<IDBDatabase | null> | undefined;

function database(): Promise<IDBDatabase | null> {
  opened ??= new Promise((resolve) => {
    if (typeof indexedDB === 'undefined') return resolve(null);
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE, { keyPath: 'key' });
    req.onsuccess = () => resolve(req.result);
    // Private windows of some browsers have no IndexedDB: uploads then last as long as the page.
    req.onerror = () => resolve(null);
  });
  return opened;
}

async function transact<T>(mode: IDBTransactionMode, act: (store: IDBObjectStore) => IDBRequest<T>): Promise<T | null> {
  const db = await database();
  if (!db) return null;
  return new Promise((resolve) => {
    const tx = db.transaction(STORE, mode);
    const req = act(tx.objectStore(STORE));
    tx.oncomplete = () => resolve(req.result);
    tx.onerror = () => resolve(null);
    tx.onabort = () => resolve(null);
  });
}

export const keep = (upload: KeptUpload) => transact('readwrite', (s) => s.put(upload)).then(() => undefined);
export const forget = (key: string) => transact('readwrite', (s) => s.delete(key)).then(() => undefined);

/**
 * Notes what became of a kept upload (paused, failed and why, or going on again). Read and
 * written in one transaction: an upload that ends meanwhile (forget) is not brought back.
 */
export async function mark(key: string, change: Partial<Pick<KeptUpload, 'paused' | 'failed' | 'url'>>): Promise<void> {
  await transact('readwrite', (s) => {
    const req = s.get(key);
    req.onsuccess = () => {
      const found = req.result as KeptUpload | undefined;
      if (!found) return;
      const next = { ...found, ...change };
      if (!next.failed) delete next.failed;
      s.put(next);
    };
    return req;
  });
}

/** The account's kept uploads, oldest first. */
export async function keptOf(account: string): Promise<KeptUpload[]> {
  const all = (await transact<KeptUpload[]>('readonly', (s) => s.getAll())) ?? [];
  return all.filter((u) => u.account === account).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

let made = 0;
/** A key that sorts in the order uploads were queued. */
export function newKey(): string {
  return `${Date.now().toString(36).padStart(10, '0')}-${(made++).toString(36).padStart(6, '0')}-${crypto.randomUUID()}`;
}

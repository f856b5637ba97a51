// Burrow's service worker. It keeps the app shell (index.html, the hashed script and style
// files, the icons and the manifest) so the app opens offline and says so, and it receives
// what another app shares to Burrow (Web Share Target). It never keeps file contents, folder
// listings or anything under /api/ or /dav/ (a link holder's files included): those always go
// to the server. Other features add their own listeners below (a `push` handler, for one).
const SHELL = 'burrow-shell-v1';
const SHARED = 'burrow-shared';
const SHELL_FILES = ['/', '/manifest.webmanifest', '/favicon.svg', '/icon-192.png', '/icon-512.png'];

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(SHELL)
      .then((cache) => Promise.all([keepShell(cache), cache.addAll(SHELL_FILES.filter((f) => f !== '/'))]))
      .then(() => self.skipWaiting()),
  );
});

/** index.html and the script and style files it names (what the app needs to start offline). */
async function keepShell(cache, page) {
  const res = page ?? (await fetch('/', { cache: 'no-cache' }));
  if (!res.ok) return;
  const html = await res.clone().text();
  const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
  await cache.addAll(assets);
  await cache.put('/', res);
}

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== SHELL && k !== SHARED).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

// A page the activation's claim missed (main.tsx asks once the worker is ready): claimed now.
self.addEventListener('message', (event) => {
  if (event.data && event.data.type === 'claim') event.waitUntil(self.clients.claim());
});

/** Addresses that are the server's, never the shell's. */
const serverOwned = (path) => path.startsWith('/api/') || path.startsWith('/dav/') || path === '/dav';

self.addEventListener('fetch', (event) => {
  const req = event.request;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  if (req.method === 'POST' && url.pathname === '/share-target') {
    event.respondWith(receiveShare(req));
    return;
  }
  if (req.method !== 'GET' || serverOwned(url.pathname)) return;
  if (req.mode === 'navigate') {
    // The server first (its pages, the current index.html); offline, the kept shell.
    event.respondWith(
      fetch(req).catch(() =>
        caches
          .open(SHELL)
          .then((c) => c.match('/'))
          .then((r) => r ?? Response.error()),
      ),
    );
    return;
  }
  // Hashed assets never change under one name: kept once fetched. The other shell files are
  // asked of the server and kept fresh, the copy answering only offline.
  if (url.pathname.startsWith('/assets/')) {
    event.respondWith(
      caches.open(SHELL).then((cache) =>
        cache.match(req).then(
          (hit) =>
            hit ??
            fetch(req).then((res) => {
              if (res.ok) void cache.put(req, res.clone());
              return res;
            }),
        ),
      ),
    );
    return;
  }
  if (SHELL_FILES.includes(url.pathname)) {
    event.respondWith(
      fetch(req).catch(() =>
        caches
          .open(SHELL)
          .then((c) => c.match(req))
          .then((r) => r ?? Response.error()),
      ),
    );
  }
});

/**
 * "Share → Burrow": the shared files are held in this browser (Cache Storage, under an id) until
 * the page at /share?id=… has uploaded them into the folder the person picks, then removed.
 */
async function receiveShare(req) {
  const form = await req.formData();
  const id = crypto.randomUUID();
  const cache = await caches.open(SHARED);
  const files = form.getAll('files').filter((f) => typeof f !== 'string');
  await Promise.all(
    files.map((f, i) =>
      cache.put(
        `/shared/${id}/${i}`,
        new Response(f, {
          headers: { 'Content-Type': f.type || 'application/octet-stream', 'X-Name': encodeURIComponent(f.name) },
        }),
      ),
    ),
  );
  const text = [form.get('title'), form.get('text')].filter((v) => typeof v === 'string' && v).join('\n');
  if (text) await cache.put(`/shared/${id}/text`, new Response(text));
  return Response.redirect(`/share?id=${id}`, 303);
}

// Web Push: Burrow's server sends each event the account chose (encrypted for this browser);
// shown even when no tab is open. A click brings a Burrow window forward (or opens one).
self.addEventListener('push', (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = { title: 'Burrow', body: event.data ? event.data.text() : '' };
  }
  event.waitUntil(
    (async () => {
      await self.registration.showNotification(data.title || 'Burrow', {
        body: data.body || '',
        tag: data.id,
        icon: '/icon-192.png',
        data: { url: '/' },
      });
      // Open tabs refresh their bell.
      for (const c of await self.clients.matchAll({ type: 'window' })) c.postMessage({ type: 'burrow-push' });
    })(),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  event.waitUntil(
    (async () => {
      const open = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
      if (open[0]) return open[0].focus();
      return self.clients.openWindow('/');
    })(),
  );
});

// Background Sync (where the browser has it): a page whose uploads were held by a lost network
// registers UPLOADS_SYNC, and the browser wakes this worker once the network is back — also when
// the page was closed meanwhile. With a Burrow page open, that page goes on itself (told so here).
// With none, this worker goes on with the signed-in account's kept resumable uploads (IndexedDB
// 'burrow-uploads', written by ui/src/upload/kept.ts): each from the server's offset (HEAD), or
// made first when it never reached the server, then forgotten once placed. A server's refusal
// leaves an upload kept for the next page, which says why; a network failure rejects, so the
// browser tries the sync again later. Paused and failed uploads wait for the person.
const UPLOADS_SYNC = 'burrow-uploads';
const TUS = { 'Tus-Resumable': '1.0.0' };
const PATCH_BYTES = 8 * 1024 * 1024;

self.addEventListener('sync', (event) => {
  if (event.tag === UPLOADS_SYNC) event.waitUntil(goOnWithUploads());
});

async function goOnWithUploads() {
  const open = await self.clients.matchAll({ type: 'window' });
  if (open.length) {
    for (const c of open) c.postMessage({ type: 'burrow-uploads-online' });
    return;
  }
  const status = await fetch('/api/auth/status', { headers: { accept: 'application/json' } }).then((r) => r.json());
  const account = status.user?.id ?? (status.authEnabled === false ? 'local' : null);
  if (!account) return; // signed out: the next page, once signed in, takes them up
  const db = await keptDatabase();
  const kept = (await keptAll(db))
    .filter((k) => k.account === account && k.chunked && !k.paused && !k.failed)
    .sort((a, b) => (a.key < b.key ? -1 : 1));
  for (const k of kept) await sendKept(db, k);
}

async function sendKept(db, k) {
  const size = k.file.size;
  let url = k.url;
  let offset = 0;
  if (url) {
    const head = await fetch(url, { method: 'HEAD', headers: TUS });
    if (head.ok) offset = Number(head.headers.get('Upload-Offset'));
    else if (head.status === 404 || head.status === 410)
      url = undefined; // expired: made again
    else return;
  }
  if (!url) {
    const name = k.relativePath.split('/').pop() || k.file.name;
    const meta = {
      filename: name,
      uploadTo: k.target,
      relativePath: k.relativePath,
      filetype: k.file.type || 'application/octet-stream',
      ...(k.conflict ? { conflict: k.conflict } : {}),
    };
    const made = await fetch('/api/upload/tus', {
      method: 'POST',
      headers: {
        ...TUS,
        'Upload-Length': String(size),
        'Upload-Metadata': Object.entries(meta)
          .map(([key, v]) => `${key} ${base64(v)}`)
          .join(','),
      },
    });
    if (made.status !== 201) return;
    url = new URL(made.headers.get('Location'), self.location.origin).href;
    offset = Number(made.headers.get('Upload-Offset') ?? 0);
    await keptPut(db, { ...k, url });
  }
  while (offset < size) {
    const res = await fetch(url, {
      method: 'PATCH',
      headers: { ...TUS, 'Upload-Offset': String(offset), 'Content-Type': 'application/offset+octet-stream' },
      body: k.file.slice(offset, offset + PATCH_BYTES),
    });
    if (res.status !== 204) return;
    offset = Number(res.headers.get('Upload-Offset'));
  }
  await keptDelete(db, k.key);
}

const base64 = (text) => btoa(Array.from(new TextEncoder().encode(text), (b) => String.fromCharCode(b)).join(''));

function keptDatabase() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open('burrow-uploads', 1);
    req.onupgradeneeded = () => req.result.createObjectStore('uploads', { keyPath: 'key' });
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function keptTransaction(db, mode, act) {
  return new Promise((resolve, reject) => {
    const tx = db.transaction('uploads', mode);
    const req = act(tx.objectStore('uploads'));
    tx.oncomplete = () => resolve(req.result);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error);
  });
}
const keptAll = (db) => keptTransaction(db, 'readonly', (s) => s.getAll());
const keptPut = (db, k) => keptTransaction(db, 'readwrite', (s) => s.put(k));
const keptDelete = (db, key) => keptTransaction(db, 'readwrite', (s) => s.delete(key));

// Background Fetch (where the browser has it): a page about to be hidden hands each running or
// queued upload of the account to the browser as one PATCH of its rest, from the server's offset
// (ui/src/upload/uploader.ts), under the id `burrow-upload:<its kept key>`. Once the server
// answered 204 (the upload complete and placed) the kept upload is forgotten; a failed or aborted
// fetch leaves it kept, and it goes on by TUS from the server's offset (a page, or Background
// Sync). Open pages are told either way.
const HANDED = 'burrow-upload:';

self.addEventListener('backgroundfetchsuccess', (event) => {
  const id = event.registration.id;
  if (!id.startsWith(HANDED)) return;
  event.waitUntil(
    (async () => {
      const [record] = await event.registration.matchAll();
      const res = record ? await record.responseReady.catch(() => null) : null;
      if (res?.status === 204) await keptDelete(await keptDatabase(), id.slice(HANDED.length));
      await tellHanded(id);
    })(),
  );
});

for (const type of ['backgroundfetchfail', 'backgroundfetchabort'])
  self.addEventListener(type, (event) => {
    if (event.registration.id.startsWith(HANDED)) event.waitUntil(tellHanded(event.registration.id));
  });

async function tellHanded(id) {
  for (const c of await self.clients.matchAll({ type: 'window' })) c.postMessage({ type: 'burrow-upload-handed', id });
}

// The uploader, loaded on first use. Chunked (TUS, resumable) when the server has it on,
// one multipart request per file otherwise. Three files travel at once.
import * as tus from 'tus-js-client';
import { apiPath, errorFrom, sessionExpired, joinPath } from '../api/client.ts';
import type { UploadedItem } from '../api/types.ts';
import { toast } from '../state/toasts.ts';
import { uploads, uploadSpeed, updateUpload, type UploadEntry } from '../state/uploads.ts';
import { user } from '../state/session.ts';
import { FIRST_CHUNK, LARGEST_CHUNK, nextChunkSize } from './chunk-size.ts';
import { forget, keep, mark, newKey, SYNC_TAG, type KeptUpload } from './kept.ts';

export interface PickedFile {
  file: File;
  relativePath: string;
  /** The user's answer to a taken name (unset: keep both). */
  conflict?: 'rename' | 'skip' | 'replace';
}

const PARALLEL = 3;
/** The longest PATCH sent: lowered to FIRST_CHUNK for good once a proxy refused a longer one. */
let largestChunk = LARGEST_CHUNK;

/** Where uploads go: the account's routes, or a share link's (`/api/share/<token>/tus`, `/upload`). */
export interface UploadEndpoints {
  tus: string;
  multipart: string;
}
const OWN: UploadEndpoints = { tus: apiPath('POST /api/upload/tus'), multipart: apiPath('POST /api/upload') };

interface Job {
  entry: UploadEntry;
  file: File;
  chunked: boolean;
  onDone: () => void;
  endpoints: UploadEndpoints;
  tus?: tus.Upload;
  xhr?: XMLHttpRequest;
  /** Its key in the browser's kept uploads (kept.ts): the account's own uploads only. */
  kept?: string;
  /** Paused because the browser went offline: goes on by itself when it is back. */
  heldOffline?: boolean;
  /** The resumable upload's address at the server, once made (kept with a kept upload). */
  url?: string;
  /** Its rest is with the browser's Background Fetch (or being asked whether it is): this page sends nothing of it. */
  handed?: boolean;
}
const jobs = new Map<number, Job>();
let nextId = 1;
let running = 0;

function pump(): void {
  if (!navigator.onLine) return;
  for (const job of jobs.values()) {
    if (running >= PARALLEL) return;
    if (
      !job.handed &&
      job.entry.state === 'queued' &&
      uploads.value.find((u) => u.id === job.entry.id)?.state === 'queued'
    )
      start(job);
  }
}

function finish(job: Job, patch: Partial<UploadEntry>): void {
  running--;
  updateUpload(job.entry.id, patch);
  if (patch.state === 'done') {
    job.onDone();
    jobs.delete(job.entry.id);
  }
  // Kept until it is done: a paused one stays paused on the next page, a failed one stays
  // failed with its reason (Retry goes on from the server's offset, Remove forgets it).
  if (job.kept && patch.state === 'done') void forget(job.kept);
  if (job.kept && patch.state === 'paused') void mark(job.kept, { paused: true });
  if (job.kept && patch.state === 'failed')
    void mark(job.kept, {
      paused: false,
      failed: { error: patch.error ?? 'Upload failed', ...(patch.requestId ? { requestId: patch.requestId } : {}) },
    });
  stayAwake();
  // A paused or failed upload stays known, with its file: Resume or Retry starts it again
  // (Cancel forgets it).
  pump();
}

function start(job: Job): void {
  running++;
  updateUpload(job.entry.id, { state: 'uploading', startedAt: Date.now(), error: undefined });
  if (job.chunked) startTus(job);
  else startMultipart(job);
  stayAwake();
}

function storedNameFrom(header: string | null | undefined, fallback: string): string {
  if (!header) return fallback;
  try {
    return decodeURIComponent(header);
  } catch {
    return header;
  }
}

/** The name the file is stored under (the last part of its relative path). */
const nameOf = ({ entry, file }: Job) => entry.relativePath.split('/').pop() ?? file.name;

/** What the server is told of a resumable upload when it is made (Upload-Metadata): by tus-js-client, or by the hand-over. */
function tusMetadata(job: Job): Record<string, string> {
  const { entry, file } = job;
  return {
    filename: nameOf(job),
    uploadTo: entry.target,
    relativePath: entry.relativePath,
    filetype: file.type || 'application/octet-stream',
    ...(entry.conflict ? { conflict: entry.conflict } : {}),
  };
}

/** The resumable upload of a job, not started (startTus starts it; cancel terminates it). */
function tusUpload(job: Job): tus.Upload {
  const { entry, file } = job;
  const name = nameOf(job);
  let chunkStarted = performance.now();
  const upload = new tus.Upload(file, {
    endpoint: job.endpoints.tus,
    metadata: tusMetadata(job),
    chunkSize: Math.min(FIRST_CHUNK, largestChunk),
    retryDelays: [0, 1000, 3000, 6000],
    // A kept upload keeps its address itself (kept.ts, where the service worker reads it too);
    // a link holder's is found again by the file's fingerprint.
    ...(job.url ? { uploadUrl: job.url } : {}),
    storeFingerprintForResuming: !job.kept,
    removeFingerprintOnSuccess: true,
    onUploadUrlAvailable: () => {
      if (!upload.url || upload.url === job.url) return;
      job.url = upload.url;
      if (job.kept) void mark(job.kept, { url: upload.url });
    },
    // Each PATCH is sized from how fast the one before it went (chunk-size.ts).
    onChunkComplete: (bytes) => {
      const now = performance.now();
      upload.options.chunkSize = nextChunkSize(bytes, now - chunkStarted, largestChunk);
      chunkStarted = now;
    },
    onShouldRetry: (err, _attempt, options) => {
      const res = err.originalResponse;
      const status = res?.getStatus() ?? 0;
      // A 413 without Tus-Resumable is a proxy's body limit, not Burrow's (whose TUS answers all
      // carry it): go on with the smallest PATCHes.
      if (status === 413 && !res?.getHeader('Tus-Resumable') && (options.chunkSize ?? 0) > FIRST_CHUNK) {
        largestChunk = FIRST_CHUNK;
        options.chunkSize = FIRST_CHUNK;
        return true;
      }
      // A gateway's passing failure is tried again; Burrow's own refusals (507: over a quota, the
      // volume full) are not — they would only be refused again.
      return status === 0 || status === 409 || status === 423 || (status >= 502 && status <= 504);
    },
    onProgress: (sent) => updateUpload(entry.id, { sent }),
    onSuccess: ({ lastResponse }) => {
      // The server names where the file landed (`name (1)` when the name was taken).
      const stored = storedNameFrom(lastResponse?.getHeader('Upload-File-Path'), '').split('/').pop() ?? '';
      const outcome = (lastResponse?.getHeader('Upload-Outcome') ?? undefined) as UploadEntry['outcome'];
      finish(job, {
        state: 'done',
        sent: entry.size,
        storedAs: stored && stored !== name ? stored : undefined,
        outcome,
      });
    },
    onError: (err) => {
      const res = (err as tus.DetailedError).originalResponse;
      const status = res?.getStatus() ?? 0;
      if (status === 401) {
        sessionExpired.value = true;
        finish(job, { state: 'paused', error: 'Sign in again, then resume.' });
        return;
      }
      let message = status ? '' : 'The server cannot be reached.';
      let requestId: string | undefined;
      let code: string | undefined;
      if (res) {
        requestId = res.getHeader('X-Request-Id') ?? undefined;
        const finalize = res.getHeader('Upload-Finalize-Error');
        try {
          const body = JSON.parse(res.getBody() || '{}');
          message = body?.error?.message ?? message;
          requestId = body?.error?.requestId ?? requestId;
          code = body?.error?.code;
        } catch {
          /* not JSON */
        }
        if (finalize) message = storedNameFrom(finalize, message);
        if (status === 413) message = `Too large: ${message || 'the server refused the size'}`;
        // Over a quota the server's sentence says whose quota, what is used and what was needed.
        if (status === 507)
          message = code === 'QUOTA_EXCEEDED' ? `Over quota: ${message}` : `The volume is full: ${message}`;
        if (!message) message = `Upload failed (${status})`;
      }
      finish(job, { state: 'failed', error: message, requestId });
    },
  });
  return upload;
}

/** Goes on with the upload the server holds for this file when there is one (its address is kept by fingerprint). */
async function withPrevious(upload: tus.Upload): Promise<tus.Upload> {
  const previous = await upload.findPreviousUploads().catch(() => []);
  if (previous.length) upload.resumeFromPreviousUpload(previous[0]!);
  return upload;
}

function startTus(job: Job): void {
  const upload = tusUpload(job);
  job.tus = upload;
  if (job.url) upload.start();
  else void withPrevious(upload).then(() => upload.start());
}

function startMultipart(job: Job): void {
  const { entry, file } = job;
  const form = new FormData();
  form.append('uploadTo', entry.target);
  form.append('relativePath', entry.relativePath);
  if (entry.conflict) form.append('conflict', entry.conflict);
  form.append('filedata', file, nameOf(job));
  const xhr = new XMLHttpRequest();
  job.xhr = xhr;
  xhr.open('POST', job.endpoints.multipart);
  xhr.setRequestHeader('accept', 'application/json');
  xhr.upload.onprogress = (e) => updateUpload(entry.id, { sent: e.loaded });
  xhr.onerror = () => finish(job, { state: 'failed', error: 'The server cannot be reached.' });
  xhr.onabort = () => {
    /* cancel() already recorded the state */
  };
  xhr.onload = async () => {
    const res = new Response(xhr.responseText, {
      status: xhr.status,
      headers: { 'x-request-id': xhr.getResponseHeader('x-request-id') ?? '' },
    });
    if (xhr.status >= 200 && xhr.status < 300) {
      let stored: string | undefined;
      let outcome: UploadEntry['outcome'];
      try {
        // The answer is an array of FileItem with the stored names and what became of each.
        const body = JSON.parse(xhr.responseText) as UploadedItem[];
        stored = body[0]?.name;
        outcome = body[0]?.outcome;
      } catch {
        /* keep the asked name */
      }
      const asked = entry.relativePath.split('/').pop();
      finish(job, {
        state: 'done',
        sent: entry.size,
        storedAs: stored && stored !== asked ? stored : undefined,
        outcome,
      });
      return;
    }
    if (xhr.status === 401) {
      sessionExpired.value = true;
    }
    const err = await errorFrom(res);
    const error = err.code === 'QUOTA_EXCEEDED' ? `Over quota: ${err.message}` : err.message;
    finish(job, { state: 'failed', error, requestId: err.requestId });
  };
  xhr.send(form);
}

export function enqueue(
  files: PickedFile[],
  target: string,
  chunked: boolean,
  onDone: () => void,
  endpoints: UploadEndpoints = OWN,
  restored?: Pick<KeptUpload, 'key' | 'paused' | 'failed' | 'url'>[],
): void {
  const fresh: UploadEntry[] = files.map(({ file, relativePath, conflict }) => ({
    id: nextId++,
    name: file.name,
    target,
    relativePath,
    conflict,
    size: file.size,
    sent: 0,
    state: 'queued',
  }));
  restored?.forEach((r, i) => {
    if (r.paused) fresh[i]!.state = 'paused';
    if (r.failed) Object.assign(fresh[i]!, { state: 'failed', ...r.failed });
  });
  uploads.value = [...uploads.value, ...fresh];
  // The account's own uploads are kept in the browser until they are done (a link holder's are not).
  const account = user.value?.id ?? 'local';
  fresh.forEach((entry, i) => {
    const job: Job = { entry, file: files[i]!.file, chunked, onDone, endpoints, url: restored?.[i]?.url };
    if (endpoints === OWN) {
      job.kept = restored?.[i]?.key ?? newKey();
      if (!restored)
        void keep({
          key: job.kept,
          account,
          file: job.file,
          target,
          relativePath: entry.relativePath,
          ...(entry.conflict ? { conflict: entry.conflict } : {}),
          chunked,
          paused: false,
        });
    }
    // A kept upload an earlier page handed to Background Fetch waits while that fetch is active.
    const r = restored?.[i];
    if (job.kept && job.url && job.chunked && r && !r.paused && !r.failed && 'BackgroundFetchManager' in window) {
      job.handed = true;
      void watchHanded(job);
    }
    jobs.set(entry.id, job);
  });
  watchSpeed();
  pump();
}

/** Uploads kept by an earlier page of this account (kept.ts), queued again where they were. */
export function restore(kept: KeptUpload[]): void {
  const known = new Set([...jobs.values()].map((j) => j.kept));
  const fresh = kept.filter((k) => !known.has(k.key));
  for (const k of fresh)
    enqueue(
      [{ file: k.file, relativePath: k.relativePath, ...(k.conflict ? { conflict: k.conflict } : {}) }],
      k.target,
      k.chunked,
      () => undefined,
      OWN,
      [k],
    );
  const going = fresh.filter((k) => !k.failed).length;
  const failed = fresh.length - going;
  if (going) toast(`Going on with ${going === 1 ? 'an upload' : `${going} uploads`} from before`);
  if (failed)
    toast(
      `${failed === 1 ? 'An upload' : `${failed} uploads`} from before failed: Retry or Remove ${failed === 1 ? 'it' : 'them'} in the uploads list`,
      'info',
    );
}

// Offline, running uploads pause and say why (instead of retrying into nothing), and go on by
// themselves when the network is back.
window.addEventListener('offline', () => {
  for (const job of jobs.values()) {
    const state = uploads.value.find((u) => u.id === job.entry.id)?.state;
    // A handed upload is the browser's fetch to carry on or fail (follow() takes it back then).
    if (state !== 'uploading' || job.handed) continue;
    job.heldOffline = true;
    if (job.tus) void job.tus.abort(false);
    job.xhr?.abort();
    running--;
    updateUpload(job.entry.id, { state: 'paused', error: 'Offline: it goes on when the network is back.' });
  }
  stayAwake();
  if ([...jobs.values()].some((j) => j.kept)) syncWhenOnline();
});

function goOn(): void {
  for (const job of jobs.values()) {
    if (!job.heldOffline) continue;
    job.heldOffline = false;
    resume(job.entry.id);
  }
  pump();
}
window.addEventListener('online', goOn);

// Background Sync, where the browser has it: the browser wakes the service worker once the
// network is back, even when this page was closed meanwhile; it then goes on with the kept
// uploads itself (public/sw.js), or, with a page open, tells it to (the page's own 'online'
// event usually came first). Elsewhere uploads go on when a page is open again, as before.
interface SyncRegistration {
  sync?: { register(tag: string): Promise<void> };
}
function syncWhenOnline(): void {
  if (!('SyncManager' in window) || !navigator.serviceWorker) return;
  void navigator.serviceWorker.ready
    .then((reg) => (reg as ServiceWorkerRegistration & SyncRegistration).sync?.register(SYNC_TAG))
    .catch(() => undefined); // refused (the permission withheld): the page still goes on when online
}
// The worker's word is not the network's: the browser may fire the sync while this page is
// still offline (it learns of a lost network after the page, or a network that came and went at
// once). Then the sync was spent while the uploads are still held: it is registered again, and
// this page's own 'online' event goes on with them.
navigator.serviceWorker?.addEventListener('message', (e: MessageEvent<{ type?: string }>) => {
  if (e.data?.type !== 'burrow-uploads-online') return;
  if (navigator.onLine) goOn();
  else if ([...jobs.values()].some((j) => j.kept && j.heldOffline)) syncWhenOnline();
});

// The screen stays on while uploads run and the page is in front (a phone that sleeps stops them).
let wakeLock: WakeLockSentinel | null = null;
let asking = false;
function stayAwake(): void {
  const active = uploads.value.some((u) => u.state === 'uploading');
  if (!active || document.visibilityState !== 'visible') {
    void wakeLock?.release().catch(() => undefined);
    wakeLock = null;
    return;
  }
  if (wakeLock || asking || !('wakeLock' in navigator)) return;
  asking = true;
  navigator.wakeLock.request('screen').then(
    (lock) => {
      asking = false;
      wakeLock = lock;
      lock.addEventListener('release', () => {
        if (wakeLock === lock) wakeLock = null;
      });
      // Uploads may have ended meanwhile.
      if (!uploads.value.some((u) => u.state === 'uploading')) stayAwake();
    },
    () => {
      asking = false; // refused (battery saver, no user gesture yet): uploads go on anyway
    },
  );
}
document.addEventListener('visibilitychange', stayAwake);

// Background Fetch, where the browser has it (Chromium): a hidden page is frozen or closed
// before long, so when it is hidden with the account's resumable uploads running or queued, each
// is handed to the browser, which sends it on with the page gone. The page's own TUS upload is
// stopped first and the server's offset read (HEAD; the upload made first when it never reached
// the server); the rest goes as one PATCH from that offset, with the TUS headers, the session
// cookie and this origin as any request of the page. While that fetch is active no page sends a
// PATCH of that upload (a page shown again, or opened later, asks for it by its id). The service
// worker forgets the kept upload once the server answered 204 (public/sw.js); a failed or
// aborted fetch leaves it kept, and it goes on by TUS from the server's offset.
interface BgFetchRegistration extends EventTarget {
  result: '' | 'success' | 'failure';
  uploaded: number;
}
interface BgFetchManager {
  fetch(
    id: string,
    requests: Request,
    options?: { title?: string; uploadTotal?: number },
  ): Promise<BgFetchRegistration>;
  get(id: string): Promise<BgFetchRegistration | undefined>;
}
/** The Background Fetch id of a kept upload (public/sw.js reads the key back from it). */
const fetchId = (key: string) => `burrow-upload:${key}`;

async function backgroundFetch(): Promise<BgFetchManager | undefined> {
  if (!('BackgroundFetchManager' in window) || !navigator.serviceWorker) return undefined;
  const reg = await navigator.serviceWorker.getRegistration().catch(() => undefined);
  return (reg as (ServiceWorkerRegistration & { backgroundFetch?: BgFetchManager }) | undefined)?.backgroundFetch;
}

const base64 = (text: string) =>
  btoa(Array.from(new TextEncoder().encode(text), (b) => String.fromCharCode(b)).join(''));
const TUS_HEADERS = { 'Tus-Resumable': '1.0.0' };

// A document being unloaded (a reload, another address, the tab closed) hears 'pagehide' and
// then goes hidden, but the rest of a hand-over (the worker's registration, a HEAD, the fetch
// itself) would run while it is torn down: stopped part way, it would leave the page's own
// upload aborted and perhaps a fetch the next page then waits on. There is none then: the next
// page goes on from the kept uploads, the service worker by Background Sync. A page put in the
// back-forward cache is frozen likewise, until it is shown again.
let unloading = false;
window.addEventListener('pagehide', () => (unloading = true));
window.addEventListener('pageshow', () => (unloading = false));

function handOver(): void {
  if (document.visibilityState !== 'hidden' || unloading || !navigator.onLine || !('BackgroundFetchManager' in window))
    return;
  for (const job of jobs.values()) {
    const state = uploads.value.find((u) => u.id === job.entry.id)?.state;
    if (!job.kept || !job.chunked || job.handed || (state !== 'uploading' && state !== 'queued')) continue;
    job.handed = true;
    void handOne(job, state === 'uploading');
  }
}

async function handOne(job: Job, wasRunning: boolean): Promise<void> {
  const { entry, file } = job;
  try {
    const bg = await backgroundFetch();
    if (!bg) throw new Error('no Background Fetch');
    if (wasRunning) {
      running--;
      const stopped = job.tus;
      job.tus = undefined;
      await stopped?.abort(false);
    }
    if (!job.url) {
      const made = await fetch(job.endpoints.tus, {
        method: 'POST',
        headers: {
          ...TUS_HEADERS,
          'Upload-Length': String(file.size),
          'Upload-Metadata': Object.entries(tusMetadata(job))
            .map(([k, v]) => `${k} ${base64(v)}`)
            .join(','),
        },
      });
      if (made.status !== 201) throw new Error(`not made (${made.status})`);
      job.url = new URL(made.headers.get('Location') ?? '', location.href).href;
      await mark(job.kept!, { url: job.url });
    }
    const head = await fetch(job.url, { method: 'HEAD', headers: TUS_HEADERS, cache: 'no-store' });
    const offset = Number(head.headers.get('Upload-Offset'));
    if (!head.ok || !Number.isInteger(offset) || offset >= file.size) throw new Error('nothing to hand over');
    const reg = await bg.fetch(
      fetchId(job.kept!),
      new Request(job.url, {
        method: 'PATCH',
        headers: {
          ...TUS_HEADERS,
          'Upload-Offset': String(offset),
          'Content-Type': 'application/offset+octet-stream',
        },
        body: file.slice(offset),
      }),
      { title: nameOf(job), uploadTotal: file.size - offset },
    );
    updateUpload(entry.id, { state: 'uploading', sent: offset });
    follow(job, reg, offset);
  } catch {
    // Not handed (no Background Fetch, refused, the server not reached): the page goes on itself.
    goOnHere(job);
  }
}

/** Follows a handed upload's fetch; once it ended (whatever its result) the page goes on by TUS from the server's offset. */
function follow(job: Job, reg: BgFetchRegistration, from: number): void {
  const ended = () => {
    if (reg.result === '' || !job.handed) return;
    reg.removeEventListener('progress', ended);
    goOnHere(job);
  };
  reg.addEventListener('progress', () => updateUpload(job.entry.id, { sent: from + reg.uploaded }));
  reg.addEventListener('progress', ended);
  ended();
}

/** A handed (or maybe handed) upload taken back: TUS asks the server's offset (complete: done). */
function goOnHere(job: Job): void {
  if (!job.handed || !jobs.has(job.entry.id)) return;
  job.handed = false;
  updateUpload(job.entry.id, { state: 'queued' });
  pump();
}

async function watchHanded(job: Job): Promise<void> {
  const bg = await backgroundFetch();
  const reg = await bg?.get(fetchId(job.kept!)).catch(() => undefined);
  if (reg && reg.result === '') {
    updateUpload(job.entry.id, { state: 'uploading' });
    follow(job, reg, uploads.value.find((u) => u.id === job.entry.id)?.sent ?? 0);
  } else goOnHere(job);
}

document.addEventListener('visibilitychange', handOver);

/** Whether the screen is held on now (tests and the tray). */
export const screenHeld = () => wakeLock !== null;

export function pause(id: number): void {
  const job = jobs.get(id);
  if (!job?.tus) return;
  void job.tus.abort(false);
  finish(job, { state: 'paused' });
}

export function resume(id: number): void {
  const job = jobs.get(id);
  if (!job) return;
  running++;
  // A resumable upload goes on from the server's offset; a multipart one is sent again whole.
  updateUpload(id, {
    state: 'uploading',
    error: undefined,
    requestId: undefined,
    ...(job.tus || job.chunked ? {} : { sent: 0 }),
  });
  if (job.kept) void mark(job.kept, { paused: false, failed: undefined });
  if (job.tus) job.tus.start();
  else if (job.chunked) startTus(job);
  else startMultipart(job);
  stayAwake();
}

export function cancel(id: number): void {
  const job = jobs.get(id);
  const entry = uploads.value.find((u) => u.id === id);
  if (!job || !entry) return;
  const wasRunning = entry.state === 'uploading' && !job.handed;
  // Handed to Background Fetch: that fetch is ended too.
  if (job.handed && job.kept) {
    const id = fetchId(job.kept);
    void backgroundFetch()
      .then((bg) => bg?.get(id))
      .then((reg) => (reg as (BgFetchRegistration & { abort?: () => Promise<boolean> }) | undefined)?.abort?.())
      .catch(() => undefined);
  }
  if (job.tus) void job.tus.abort(true).catch(() => undefined);
  // Taken up from an earlier page and never started here: the upload the server may hold for it
  // (a failed one that had sent part of its bytes) is ended too, so it leaves nothing behind.
  else if (job.url) void tus.Upload.terminate(job.url).catch(() => undefined);
  else if (job.chunked)
    void withPrevious(tusUpload(job))
      .then((upload) => upload.abort(true))
      .catch(() => undefined);
  job.xhr?.abort();
  // A failed one is removed from the list (there is nothing left to follow); others say cancelled.
  if (entry.state === 'failed') uploads.value = uploads.value.filter((u) => u.id !== id);
  else updateUpload(id, { state: 'cancelled' });
  if (job.kept) void forget(job.kept);
  jobs.delete(id);
  if (wasRunning) running--;
  pump();
}

let speedTimer: ReturnType<typeof setInterval> | undefined;
function watchSpeed(): void {
  if (speedTimer) return;
  let last = total();
  let lastAt = performance.now();
  speedTimer = setInterval(() => {
    const now = performance.now();
    const sent = total();
    const instant = ((sent - last) / (now - lastAt)) * 1000;
    uploadSpeed.value = uploadSpeed.value ? uploadSpeed.value * 0.6 + instant * 0.4 : instant;
    last = sent;
    lastAt = now;
    if (!uploads.value.some((u) => u.state === 'uploading' || u.state === 'queued')) {
      clearInterval(speedTimer);
      speedTimer = undefined;
      uploadSpeed.value = 0;
      const failed = uploads.value.filter((u) => u.state === 'failed').length;
      if (!failed) toast('Uploads finished');
    }
  }, 1000);
}

function total(): number {
  return uploads.value.reduce((n, u) => n + (u.state === 'cancelled' ? 0 : u.sent), 0);
}

export { joinPath };

// The walker's thread: all file-system calls of the indexer happen here, so a slow disk or a
// large tree never holds up the event loop that answers requests. Results go back in batches;
// the main thread writes them to the one database connection.
import { parentPort, workerData } from 'node:worker_threads';
import { nodeFs, nodeSyncFs, type FsLayer, type FsLayerFactory, type SyncFsLayer } from './fs-layer.ts';
import { noBeat, SyncBeat } from './watchdog.ts';
import { IoGuard } from './io-guard.ts';
import { workerHold, workerPace } from '../core/load.ts';
import { documentKind, hasSearchFacts, plainText, type Extracted } from './extract.ts';
import { DocumentReader } from './extract-pool.ts';
import { openRegularFileIn, type OpenedFile } from '../files/confined.ts';
import { listFolder, walk } from './walker.ts';
import { walkSync } from './walker-sync.ts';
import type { DocRecord, EntryRecord, FromWorker, ToWorker, WorkerOptions } from './protocol.ts';

/** Why an open inside the root refuses a file the walk met (files/confined.ts openRegularFileIn). */
const SKIPPED = new Set(['ELOOP', 'PATH_OUTSIDE', 'NOT_A_FILE']);

/** Small batches: each is cloned into the main thread's heap while requests wait. */
const FLUSH_ENTRIES = 500;
const FLUSH_MS = 100;
/** Batches sent and not yet written by the main thread: past this, the walk waits (memory stays flat). */
const CREDITS = 4;

async function main(): Promise<void> {
  const port = parentPort!;
  const options = workerData as WorkerOptions;
  let fs: FsLayer = nodeFs;
  /** Absent: every walk is the guarded one (a test layer that only simulates network mounts). */
  let syncFs: SyncFsLayer | undefined = nodeSyncFs;
  if (options.fsModule) {
    const mod = (await import(options.fsModule)) as { createFsLayer: FsLayerFactory };
    const layer = mod.createFsLayer(options.fsOptions);
    fs = layer;
    syncFs = layer.sync;
  }
  const beat = options.beat ? new SyncBeat(options.beat) : noBeat;
  const send = (m: FromWorker) => port.postMessage(m);
  const guard = new IoGuard(options.ioTimeoutMs, options.maxStalledIo, (stalled, paused) =>
    send({ type: 'io', stalled, paused }),
  );
  const cancelled = new Set<number>();
  // Documents other than plain text are read by the extractor thread, one at a time, bounded.
  const limits = options.extract ?? { maxBytes: 100 * 1024 * 1024, maxPages: 2000, timeoutMs: 60_000, runMs: 0 };
  const reader = new DocumentReader(limits);
  // One pace for the walks and the extraction: together one slice per MAX_DEFER_MS while busy.
  const pace = workerPace(options.load);
  const hold = workerHold(options.load);
  /** Per job: batches in flight, and who waits for room. */
  const inFlight = new Map<number, { sent: number; waiters: (() => void)[] }>();
  // The timer is cleared when the read answers: one per document, never one left per file.
  const withTimeout = <T>(p: Promise<T>): Promise<T> => {
    if (options.ioTimeoutMs <= 0) return p;
    let timer: NodeJS.Timeout | undefined;
    // Too slow is no answer (rejected): the text already known stays; null would say "no text".
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('the read timed out')), options.ioTimeoutMs);
      timer.unref();
    });
    return Promise.race([p, late]).finally(() => clearTimeout(timer));
  };

  port.on('message', (message: ToWorker) => {
    if (message.type === 'cancel') {
      cancelled.add(message.id);
      const flow = inFlight.get(message.id);
      if (flow) {
        flow.sent = 0;
        for (const w of flow.waiters.splice(0)) w();
      }
      return;
    }
    if (message.type === 'ack') {
      const flow = inFlight.get(message.id);
      if (!flow) return;
      flow.sent = Math.max(0, flow.sent - 1);
      if (flow.sent < CREDITS) for (const w of flow.waiters.splice(0)) w();
      return;
    }
    if (message.type === 'list') {
      const { id, root, rel, excludes } = message.job;
      listFolder(root, rel, fs, guard, excludes)
        .then((listing) => send({ type: 'listed', id, listing }))
        .catch((err: Error) => send({ type: 'failed', id, message: err.message }));
      return;
    }
    const job = message.job;
    const flow = { sent: 0, waiters: [] as (() => void)[] };
    inFlight.set(job.id, flow);
    let entries: EntryRecord[] = [];
    let docs: DocRecord[] = [];
    let timer: NodeJS.Timeout | undefined;
    const flush = () => {
      if (timer) {
        clearTimeout(timer);
        timer = undefined;
      }
      if (!entries.length && !docs.length) return;
      send({ type: 'out', id: job.id, entries, docs });
      flow.sent++;
      entries = [];
      docs = [];
    };
    const later = () => {
      timer ??= setTimeout(flush, FLUSH_MS);
    };
    // The sizes phase sends folder records only (one per folder): larger batches, so a walk
    // started while the main thread is still busy building the server does not stop for acks.
    const flushAt = job.emit === 'dirs' ? 4 * FLUSH_ENTRIES : FLUSH_ENTRIES;
    const sink = {
      entry(r: EntryRecord) {
        entries.push(r);
        if (entries.length >= flushAt) flush();
        else later();
      },
      // A document is sent after its entry: the entry batch goes first.
      doc(d: DocRecord) {
        docs.push(d);
        if (docs.length >= 50) flush();
        else later();
      },
      full: () => flow.sent >= CREDITS && !cancelled.has(job.id),
      room: () => new Promise<void>((r) => flow.waiters.push(r)),
    };
    // Extraction reads through the thread pool the requests' file reads share: it waits too.
    // The extractor's time in this walk is bounded (SEARCH_EXTRACT_RUN_MS): past it, documents
    // are deferred to the next walk of their folder.
    let spent = 0;
    const extract = job.content
      ? async (file: string, name: string, size: number): Promise<Extracted> => {
          const kind = documentKind(name);
          if (kind === null && !hasSearchFacts(name)) return { text: null };
          await pace();
          if (kind !== 'text' && limits.runMs > 0 && spent >= limits.runMs)
            // A photo or song left for later says nothing: its facts are read at the next walk.
            return kind === null ? { text: null } : { text: null, state: { kind, status: 'deferred' } };
          // Confined at use: the bytes read are those of a descriptor opened inside the root (its
          // final name never followed) and checked there; the readers get `/proc/self/fd/<fd>`,
          // never the name again. A link or a special file put in its place since the walk met it,
          // or a folder on the way swapped for a link, is skipped: nothing indexed, its old text kept.
          let opened: OpenedFile;
          const opening = openRegularFileIn(job.root, file);
          try {
            opened = await withTimeout(opening);
          } catch (err) {
            // An open answered after its timeout is closed then.
            opening.then(
              (late) => late.close(),
              () => {},
            );
            // Only a file no longer a regular file inside its folder is a skip to tell; one deleted
            // since the walk, or a disk that did not answer in time, fails as any read does.
            const code = (err as { code?: string }).code;
            if (code !== undefined && SKIPPED.has(code)) send({ type: 'skipped', id: job.id, file, reason: code });
            throw err;
          }
          try {
            if (kind === 'text') return { text: await withTimeout(plainText(opened.path, opened.stat.size)) };
            const started = performance.now();
            try {
              return await reader.read(opened.path, name, opened.stat.size);
            } finally {
              spent += performance.now() - started;
            }
          } finally {
            await opened.close();
          }
        }
      : null;
    const isCancelled = () => cancelled.has(job.id);
    const end = () => {
      flush();
      cancelled.delete(job.id);
      inFlight.delete(job.id);
    };
    (job.sync && syncFs
      ? walkSync(job, sink, extract, isCancelled, syncFs, beat, pace, hold)
      : walk(job, fs, guard, sink, extract, isCancelled, hold, pace)
    )
      .then((summary) => {
        end();
        send({ type: 'done', id: job.id, summary });
      })
      .catch((err: Error) => {
        end();
        send({ type: 'failed', id: job.id, message: err.message });
      });
  });
}

void main();

// The walker's thread: all file-system calls of the indexer happen here, so a slow disk or a
// large tree never holds up the event loop that answers requests. Results go back in batches;
// the main thread writes them to the one database connection.
import { parentPort, workerData } from 'node:worker_threads';
import { nodeFs, type FsLayer, type FsLayerFactory } from './fs-layer.ts';
import { IoGuard } from './io-guard.ts';
import { extractText } from './extract.ts';
import { listFolder, walk } from './walker.ts';
import type { DocRecord, EntryRecord, FromWorker, ToWorker, WorkerOptions } from './protocol.ts';

const FLUSH_ENTRIES = 2000;
const FLUSH_MS = 100;

async function main(): Promise<void> {
  const port = parentPort!;
  const options = workerData as WorkerOptions;
  let fs: FsLayer = nodeFs;
  if (options.fsModule) {
    const mod = (await import(options.fsModule)) as { createFsLayer: FsLayerFactory };
    fs = mod.createFsLayer(options.fsOptions);
  }
  const send = (m: FromWorker) => port.postMessage(m);
  const guard = new IoGuard(options.ioTimeoutMs, options.maxStalledIo, (stalled, paused) => send({ type: 'io', stalled, paused }));
  const cancelled = new Set<number>();
  const withTimeout = <T>(p: Promise<T>): Promise<T | null> => {
    if (options.ioTimeoutMs <= 0) return p;
    return Promise.race([p, new Promise<null>((r) => setTimeout(() => r(null), options.ioTimeoutMs).unref())]);
  };

  port.on('message', (message: ToWorker) => {
    if (message.type === 'cancel') {
      cancelled.add(message.id);
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
    let entries: EntryRecord[] = [];
    let docs: DocRecord[] = [];
    let timer: NodeJS.Timeout | undefined;
    const flush = () => {
      if (timer) { clearTimeout(timer); timer = undefined; }
      if (!entries.length && !docs.length) return;
      send({ type: 'out', id: job.id, entries, docs });
      entries = [];
      docs = [];
    };
    const later = () => { timer ??= setTimeout(flush, FLUSH_MS); };
    const sink = {
      entry(r: EntryRecord) { entries.push(r); if (entries.length >= FLUSH_ENTRIES) flush(); else later(); },
      // A document is sent after its entry: the entry batch goes first.
      doc(d: DocRecord) { docs.push(d); if (docs.length >= 50) flush(); else later(); },
    };
    walk(job, fs, guard, sink, job.content ? (file, name, size) => withTimeout(extractText(file, name, size)) : null, () => cancelled.has(job.id))
      .then((summary) => { flush(); cancelled.delete(job.id); send({ type: 'done', id: job.id, summary }); })
      .catch((err: Error) => { flush(); cancelled.delete(job.id); send({ type: 'failed', id: job.id, message: err.message }); });
  });
}

void main();

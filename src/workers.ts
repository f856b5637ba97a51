// Starting a worker thread the same way from source and from inside the executable.
//
// The rule (build/README.md): a worker's entry file is named `src/<capability>/<name>.worker.ts`.
// The build bundles each such file on its own and embeds it as the asset
// `workers/<capability>/<name>.worker.js.br` (brotli: the largest carry pdf.js and libheif's
// WebAssembly as text); inside the executable it starts from that code, decompressed as it
// starts (`eval: true`, nothing is written to disk), from source from the .ts file itself.
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { readEmbeddedAsset, unbrotli } from './assets.ts';

/**
 * Starts `src/<file>` (e.g. `indexer/walk.worker.ts`) as a worker thread.
 * Keep `workerData` to structured-clonable values.
 */
export function startWorker(file: string, options: WorkerOptions = {}): Worker {
  if (!/^[a-z0-9_-]+(\/[a-z0-9_.-]+)*\.worker\.ts$/i.test(file))
    throw new Error(`worker entries are src/**/*.worker.ts files, not ${file}`);
  const packed = readEmbeddedAsset(`workers/${file.replace(/\.ts$/, '.js')}.br`);
  if (packed) return new Worker(unbrotli(packed).toString('utf8'), { ...options, eval: true });
  return new Worker(fileURLToPath(new URL(file, import.meta.url)), options);
}

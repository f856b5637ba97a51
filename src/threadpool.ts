// libuv's thread pool does Node's file system work (every open, read, write, stat and flush
// not made synchronously). Node starts it with 4 threads on its first use, reading
// UV_THREADPOOL_SIZE then. An upload keeps one write in flight and flushes its file before
// placing it, each holding a thread for as long as the disk takes, so with 4 threads a zip (an
// open and reads per file), a listing or a download queued behind a few uploads: issue 33 had a
// 28-file zip at 15 ms idle and 1.3-3.4 s during uploads. A thread waiting on the disk costs a
// stack and no CPU. Imported first by main.ts, before anything can have started the pool; a
// value the person set is kept (config.ts checks it).
export const THREAD_POOL_DEFAULT = 16;

if (!process.env.UV_THREADPOOL_SIZE?.trim()) process.env.UV_THREADPOOL_SIZE = String(THREAD_POOL_DEFAULT);

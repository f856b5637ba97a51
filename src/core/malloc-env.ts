// glibc's allocator, told at the executable's start to give memory back (Linux). By default
// every thread that allocates gets an arena of its own (up to 8 per core: libuv's 16 pool
// threads, the image add-on's threads), and after the first large block is freed glibc raises
// its mmap threshold to that size (up to 32 MiB), so later decoded pictures, zip and transfer
// buffers are carved from those arenas, where freed memory stays with the process. Measured
// through the executable (test/bench/memory.ts): 8 thumbnails and renditions of 3000×2000 JPEGs
// left 490 MB resident for good, 150 MB with these two settings; the bench workload (listings,
// search, upload, downloads, zip, thumbnails) 427 → 156 MB 60 s after. `arena_max=2`: two arenas
// for all threads (the machine kind has 2 cores); `mmap_threshold=131072` (glibc's starting
// value, now fixed): blocks of 128 KiB and more are mapped on their own and unmapped when freed.
//
// The allocator reads GLIBC_TUNABLES only when a program starts, so the executable starts itself
// again with it (execve: the same process id, open descriptors and arguments; nothing has run
// yet). A GLIBC_TUNABLES that already names a malloc tunable is the person's and is kept as it is,
// and a service unit may set it (then there is no second start). Only the executable does this:
// from source the developer's `node` runs as started. Other C libraries ignore the variable.
import { isExecutable } from '../assets.ts';

export const MALLOC_TUNABLES = 'glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=131072';

/** The environment the executable should run with, or null when it already does. */
export function mallocEnvironment(env: NodeJS.ProcessEnv, platform = process.platform): NodeJS.ProcessEnv | null {
  if (platform !== 'linux') return null;
  const current = env.GLIBC_TUNABLES ?? '';
  if (current.includes('glibc.malloc.')) return null;
  return { ...env, GLIBC_TUNABLES: current ? `${current}:${MALLOC_TUNABLES}` : MALLOC_TUNABLES };
}

const execve = process.execve?.bind(process);
const wanted = isExecutable() && execve ? mallocEnvironment(process.env) : null;
// In the executable process.argv is [executable, executable, ...arguments]: the second is Node's own.
if (wanted && execve) execve(process.execPath, [process.execPath, ...process.argv.slice(2)], wanted);

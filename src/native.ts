// Optional native add-ons: @napi-rs/image (thumbnails, dimensions) and @lydell/node-pty
// (the admin terminal). Each is loaded on first use, and a broken one disables its feature,
// never the server. Prefer createNativeAddons(); a lazy `createRequire(import.meta.url)(pkg)`
// inside a try also works (the build routes it to requireAddonFromCache). Never a static
// import: it would load at startup, and a broken add-on would stop the server.
//
// From source they come from node_modules. Inside the executable each add-on is a pack
// (its JS loader + the platform's `.node` files, see build/README.md) extracted once to
// CACHE_DIR/native/<name>-<hash>/node_modules/… and required from there, so the packages'
// own resolution of their per-platform binary works unchanged.
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type * as ImageModule from '@napi-rs/image';
import type * as PtyModule from '@lydell/node-pty';
import { embeddedPacks, extractPack, isExecutable, removeUnfinished } from './assets.ts';

export type ImageAddon = typeof ImageModule;
export type PtyAddon = typeof PtyModule;

const PACKAGES = { image: '@napi-rs/image', pty: '@lydell/node-pty' } as const;
export type AddonName = keyof typeof PACKAGES;

export interface AddonStatus {
  readonly available: boolean;
  /** Why it is not available (shown to administrators and in the startup log). */
  readonly reason?: string;
}

export interface NativeAddons {
  /** The image add-on, or null when it cannot load on this machine. */
  image(): ImageAddon | null;
  /** The pty add-on, or null when it cannot load on this machine. */
  pty(): PtyAddon | null;
  /** Loads every add-on now and tells which work (the startup self-check). */
  check(): Record<AddonName, AddonStatus>;
}

/** CACHE_DIR of the add-ons this process made: the build routes bare add-on requires through it. */
let processCacheDir: string | undefined;

export function createNativeAddons(cacheDir: string): NativeAddons {
  processCacheDir = cacheDir;
  const loaded = new Map<AddonName, { module: unknown } | { error: string }>();

  function load(name: AddonName): unknown {
    let result = loaded.get(name);
    if (!result) {
      try {
        result = { module: requireAddon(name, cacheDir) };
      } catch (err) {
        result = { error: (err as Error).message.split('\n')[0] ?? String(err) };
      }
      loaded.set(name, result);
    }
    return 'module' in result ? result.module : null;
  }

  return {
    image: () => load('image') as ImageAddon | null,
    pty: () => load('pty') as PtyAddon | null,
    check() {
      const out = {} as Record<AddonName, AddonStatus>;
      for (const name of Object.keys(PACKAGES) as AddonName[]) {
        load(name);
        const r = loaded.get(name)!;
        out[name] = 'module' in r ? { available: true } : { available: false, reason: r.error };
      }
      return out;
    },
  };
}

/**
 * For a plain lazy `require('@napi-rs/image')` elsewhere in src/: inside the executable the
 * build routes it here, and the add-on comes from the CACHE_DIR of the process's add-ons
 * (createNativeAddons, made from the Config at startup).
 */
export function requireAddonFromCache(name: AddonName): unknown {
  if (processCacheDir === undefined)
    throw new Error(`${PACKAGES[name]} was required before the add-ons were set up (createNativeAddons)`);
  return requireAddon(name, processCacheDir);
}

/** Where the add-ons are extracted: `CACHE_DIR/native`. */
const nativeDir = (cacheDir: string) => path.join(cacheDir, 'native');

/**
 * Removes the add-on folder process `pid` (a child of this one, ended: killed while it
 * extracted) left half-written in CACHE_DIR/native.
 */
export function removeUnfinishedAddons(cacheDir: string, pid: number): void {
  try {
    removeUnfinished(nativeDir(cacheDir), pid);
  } catch {
    /* not removable now: a folder named for a process that has ended, never used */
  }
}

function requireAddon(name: AddonName, cacheDir: string): unknown {
  const pkg = PACKAGES[name];
  if (!isExecutable()) return createRequire(import.meta.url)(pkg);
  if (!embeddedPacks().includes(`addon-${name}`)) throw new Error(`${pkg} is not built for this platform`);
  const dir = extractPack(`addon-${name}`, nativeDir(cacheDir));
  // Resolve from inside the extracted tree: `<dir>/node_modules/<pkg>`.
  // Both packages load their .node file when required, so a broken add-on fails here.
  return createRequire(path.join(dir, 'index.js'))(pkg);
}

/** Burrow's own add-on (src/core/malloc-trim.c): glibc's malloc_trim, and the executable's pages given back. */
export interface MemoryTrim {
  /** Gives the free memory inside glibc's arenas back to the system; true when some went back. */
  trim(): boolean;
  /**
   * Gives back the pages of the executable's own file this process has in memory: Node's and
   * V8's code and read-only data, and the SEA blob (the bundle's source and code cache, the
   * packs, the workers' code). Most are touched once, at the start or by a burst of work; a page
   * touched again comes back from the page cache. Answers the bytes of the mappings released.
   */
  releaseExecutable(): number;
}

/**
 * The malloc_trim add-on, loaded into this process: inside a Linux executable built with it
 * (build/build.ts), else null — from source, and on macOS and Windows, whose allocators have
 * no such call. It is loaded at start, not on first use, so a broken one is known at once; it
 * is a single glibc call and is not run in a child.
 */
export function loadMemoryTrim(cacheDir: string): MemoryTrim | null {
  if (!isExecutable() || !embeddedPacks().includes('addon-trim')) return null;
  const dir = extractPack('addon-trim', nativeDir(cacheDir));
  const module = { exports: {} as Partial<MemoryTrim> };
  process.dlopen(module, path.join(dir, 'malloc-trim.node'));
  const { trim, releaseExecutable } = module.exports;
  if (typeof trim !== 'function' || typeof releaseExecutable !== 'function')
    throw new Error('malloc-trim.node has no trim() or releaseExecutable()');
  return { trim, releaseExecutable };
}

/**
 * The arguments that start this program again, before its own options (`--check-addons`,
 * `--picture-child …`): none for the executable; from source Node's own options (e.g. the
 * TypeScript loader's) and src/main.ts — not process.argv[1], which is the test runner when
 * the server runs inside a test.
 */
export function selfArgs(): string[] {
  return isExecutable() ? [] : [...process.execArgv, fileURLToPath(new URL('./main.ts', import.meta.url))];
}

/**
 * Runs `burrow --check-addons` (this environment, or the one given) and returns what it found.
 * A child that crashes while loading an add-on reports every add-on as unavailable.
 *
 * The child writes: inside the executable it extracts the add-ons into CACHE_DIR/native. A
 * server that stops aborts `signal`; the child is killed and the promise settles once it has
 * exited and what it left half-extracted is removed (given `cacheDir`) — left running, it went
 * on writing into CACHE_DIR after its server had stopped. Killed outright (SIGKILL, also at the
 * timeout): it holds nothing that needs an orderly end, and a low-priority child on a busy
 * machine might answer a SIGTERM late. (Not execFile's own `signal` option: it calls back as
 * soon as the kill is sent, before the child has exited.)
 */
export function checkInChild(
  env: NodeJS.ProcessEnv = process.env,
  options: { signal?: AbortSignal; cacheDir?: string } = {},
): Promise<Record<AddonName, AddonStatus>> {
  const unavailable = (reason: string) =>
    Object.fromEntries((Object.keys(PACKAGES) as AddonName[]).map((n) => [n, { available: false, reason }])) as Record<
      AddonName,
      AddonStatus
    >;
  const { signal, cacheDir } = options;
  if (signal?.aborted) return Promise.resolve(unavailable('self-check not run: stopping'));
  return new Promise((resolve) => {
    const end = () => child.kill('SIGKILL');
    const child = execFile(
      process.execPath,
      [...selfArgs(), '--check-addons'],
      { timeout: 60_000, killSignal: 'SIGKILL', windowsHide: true, env },
      // Called once the child has exited (and its output is read), or when it could not start.
      (err, stdout, stderr) => {
        signal?.removeEventListener('abort', end);
        // A killed child left the folder it was writing behind.
        if (err && cacheDir !== undefined && child.pid !== undefined) removeUnfinishedAddons(cacheDir, child.pid);
        try {
          if (!err) return resolve(JSON.parse(stdout.trim().split('\n').pop()!) as Record<AddonName, AddonStatus>);
        } catch {
          /* fall through: report the failure below */
        }
        resolve(
          unavailable(
            `self-check failed: ${err?.message.split('\n')[0] ?? 'unreadable answer'} ${stderr.trim().split('\n').pop() ?? ''}`.trim(),
          ),
        );
      },
    );
    signal?.addEventListener('abort', end, { once: true });
    // Background work: a second start of this program, right after launch, must not slow the
    // first walks of the indexes (or anyone's requests) on a small machine.
    try {
      if (child.pid !== undefined) os.setPriority(child.pid, os.constants.priority.PRIORITY_LOW);
    } catch {
      /* not permitted here: it simply runs at normal priority */
    }
  });
}

/**
 * On Windows, @lydell/node-pty forks `conpty_console_list_agent.js` with process.execPath,
 * which inside the executable is Burrow itself. The entry point calls this first: when this
 * process is that child, it runs the agent and returns true (and Burrow must not start).
 */
export function runForkedAddonHelper(argv: readonly string[] = process.argv): boolean {
  if (typeof process.send !== 'function') return false;
  const script = argv.slice(1).find((a) => /[\\/]conpty_console_list_agent(\.js)?$/.test(a));
  if (!script) return false;
  const file = script.endsWith('.js') ? script : `${script}.js`;
  // The agent reads its pid from argv[2], like `node agent.js <pid>`.
  process.argv = [process.execPath, file, ...argv.slice(argv.indexOf(script) + 1)];
  createRequire(file)(file);
  return true;
}

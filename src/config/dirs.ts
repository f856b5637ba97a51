// The data folders, made and checked once at startup so that a folder that cannot be created
// or written is one clear line instead of a stack trace. Node's recursive mkdir never returns
// on a parent that exists but refuses children with ENOENT (/proc, some FUSE mounts), so
// folders are made one level at a time.
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import { ConfigError } from './variables.ts';

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'not permitted',
  EROFS: 'the file system is read-only',
  ENOENT: 'a parent folder refuses new folders',
  ENOTDIR: 'a part of the path is a file',
  ENOSPC: 'the disk is full',
  EEXIST: 'a file is in the way',
  ELOOP: 'too many symbolic links',
};

/** Why a file-system call failed, in words (no stack, no code path). */
export function fsReason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return (code && REASONS[code]) ?? (err as Error)?.message ?? String(err);
}

/** mkdir -p that always ends: each missing level is made once, the first refusal is thrown. */
export function ensureDirSync(dir: string): void {
  const missing: string[] = [];
  let current = path.resolve(dir);
  for (;;) {
    let st: fs.Stats;
    try {
      st = fs.statSync(current);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      missing.push(current);
      const parent = path.dirname(current);
      if (parent === current) break;
      current = parent;
      continue;
    }
    if (!st.isDirectory())
      throw Object.assign(new Error(`ENOTDIR: not a directory, '${current}'`), { code: 'ENOTDIR', path: current });
    break;
  }
  for (const d of missing.reverse()) {
    try {
      fs.mkdirSync(d);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

function usable(name: string, dir: string): void {
  try {
    ensureDirSync(dir);
    fs.accessSync(dir, fs.constants.W_OK | fs.constants.X_OK);
  } catch (err) {
    const who = typeof process.getuid === 'function' ? ` for this user (uid ${process.getuid()})` : '';
    throw new ConfigError(
      `${name} (${dir}) cannot be used${who}: ${fsReason(err)}. Point ${name} at a folder Burrow may write, or fix its permissions.`,
    );
  }
}

/** Makes CONFIG_DIR and CACHE_DIR (and the folder the default VOLUME_ROOT goes in) or throws one ConfigError line. */
export function prepareDataDirs(config: Config, volumeRootExplicit: boolean): void {
  usable('CONFIG_DIR', config.storage.configDir);
  usable('CACHE_DIR', config.storage.cacheDir);
  if (!volumeRootExplicit && !fs.existsSync(config.storage.volumeRoot))
    usable('VOLUME_ROOT', path.dirname(config.storage.volumeRoot));
}

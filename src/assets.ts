// Files that travel inside the executable (UI, migrations, the SQLite .wasm, add-ons, workers).
// From a source checkout they are read from the tree instead.
//
// Folder trees (the UI, each native add-on with its small JS loader) travel as one "pack"
// asset each (format: build/pack.ts). A pack is extracted once to a folder named by its
// content hash, written under a temporary name and renamed into place, so two processes
// starting together, or a crash half-way, never leave a half-written folder in use.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';

type Sea = { isSea(): boolean; getRawAsset(key: string): ArrayBuffer };

let sea: Sea | null | undefined;
function seaModule(): Sea | null {
  if (sea === undefined) {
    try {
      const mod = createRequire(import.meta.url)('node:sea') as Sea;
      sea = mod.isSea() ? mod : null;
    } catch {
      sea = null;
    }
  }
  return sea;
}

export function isExecutable(): boolean {
  return seaModule() !== null;
}

/** An asset embedded in the executable (a copy), or null when running from source (or absent). */
export function readEmbeddedAsset(key: string): Buffer | null {
  const inPlace = embeddedAssetInPlace(key);
  return inPlace ? Buffer.from(inPlace) : null;
}

/**
 * An embedded asset in place: the executable's own pages, not a copy (never written to). Null
 * from source or when absent.
 */
export function embeddedAssetInPlace(key: string): ArrayBuffer | null {
  try {
    return seaModule()?.getRawAsset(key) ?? null;
  } catch {
    return null;
  }
}

/**
 * Brotli-decompresses an embedded asset (a pack, a worker's code) in 1 MiB steps. With zlib's
 * default 16 KiB steps the output is gathered in hundreds of small blocks that glibc carves from
 * its main arena, and once freed the arena keeps them: unpacking the UI pack (5.7 MB) left
 * 5.7 MB in `[heap]` for the life of the process. Blocks of 1 MiB are above glibc's mmap
 * threshold (128 KiB, core/malloc-env.ts): each is mapped on its own and unmapped when freed.
 */
export function unbrotli(packed: Buffer): Buffer {
  return zlib.brotliDecompressSync(packed, { chunkSize: UNBROTLI_STEP });
}

const UNBROTLI_STEP = 1024 * 1024;

/** What the build wrote about each pack: `packs.json`. */
export interface PackInfo {
  /** SHA-256 (hex) of the pack bytes as embedded. */
  readonly hash: string;
  readonly compressed: boolean;
}

export class AssetError extends Error {}

function packIndex(): Record<string, PackInfo> {
  const raw = readEmbeddedAsset('packs.json');
  return raw ? (JSON.parse(raw.toString('utf8')) as Record<string, PackInfo>) : {};
}

/** Names of the packs in this executable (empty from source). */
export function embeddedPacks(): string[] {
  return Object.keys(packIndex());
}

interface PackEntry {
  path: string;
  size: number;
  mode: number;
}

/** Unpacks `bytes` (see build/pack.ts) into `dir`, which must not exist yet. */
export function unpack(bytes: Buffer, dir: string): void {
  const headerLength = bytes.readUInt32LE(0);
  const entries = JSON.parse(bytes.subarray(4, 4 + headerLength).toString('utf8')) as PackEntry[];
  let offset = 4 + headerLength;
  fs.mkdirSync(dir, { recursive: true });
  const root = path.resolve(dir);
  for (const entry of entries) {
    const target = path.resolve(root, entry.path);
    // The pack is ours, but a path leaving the folder would still be a bug worth refusing.
    if (!target.startsWith(root + path.sep)) throw new AssetError(`pack entry outside its folder: ${entry.path}`);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, bytes.subarray(offset, offset + entry.size), { mode: entry.mode });
    offset += entry.size;
  }
}

/**
 * Extracts the embedded pack `name` once to `<baseDir>/<name>-<hash>/` and returns that folder.
 * Later calls (and later runs) find the folder and return at once.
 */
export function extractPack(name: string, baseDir: string): string {
  const info = packIndex()[name];
  if (!info) throw new AssetError(`this executable carries no ${name}`);
  const dir = path.join(baseDir, `${name}-${info.hash.slice(0, 16)}`);
  if (fs.existsSync(path.join(dir, '.complete'))) return dir;
  const raw = readEmbeddedAsset(`${name}.pack`);
  if (!raw) throw new AssetError(`this executable carries no ${name}.pack`);
  const bytes = info.compressed ? unbrotli(raw) : raw;
  const temp = `${dir}${unfinishedMark(process.pid)}${randomBytes(4).toString('hex')}`;
  try {
    unpack(bytes, temp);
    fs.writeFileSync(path.join(temp, '.complete'), info.hash);
    try {
      fs.renameSync(temp, dir);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // Someone else finished first (or left a broken folder behind): keep a complete one.
      if (code !== 'EEXIST' && code !== 'ENOTEMPTY' && code !== 'EPERM') throw err;
      if (!fs.existsSync(path.join(dir, '.complete'))) {
        fs.rmSync(dir, { recursive: true, force: true });
        fs.renameSync(temp, dir);
      }
    }
  } finally {
    fs.rmSync(temp, { recursive: true, force: true });
  }
  return dir;
}

/** What a pack's folder is named after while process `pid` writes it: `<name>-<hash>.tmp-<pid>-<random>`. */
const unfinishedMark = (pid: number) => `.tmp-${pid}-`;

/**
 * Removes what process `pid`, which has ended, left half-extracted in `baseDir`: a process
 * killed while it wrote a pack (the add-on check stopped with its server) neither renamed
 * nor removed the folder.
 */
export function removeUnfinished(baseDir: string, pid: number): void {
  let names: string[];
  try {
    names = fs.readdirSync(baseDir);
  } catch {
    return;
  }
  for (const name of names)
    if (name.includes(unfinishedMark(pid))) fs.rmSync(path.join(baseDir, name), { recursive: true, force: true });
}

/**
 * The folder of the built UI to serve: inside the executable, the embedded UI extracted to
 * `CACHE_DIR/ui-<hash>/`; from source, `ui/dist` (null when there is nothing to serve).
 */
export function uiDir(cacheDir: string, sourceUiDir: string): string | null {
  if (!isExecutable()) return sourceUiDir;
  if (!packIndex().ui) return null;
  return extractPack('ui', cacheDir);
}

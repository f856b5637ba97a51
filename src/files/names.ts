// Names: nothing is ever written over. A taken name becomes `name (1)`, `name (2)`… before
// the extension (one rule for files and folders), and every candidate is claimed by an
// operation that fails when the name exists (open 'wx', mkdir, link) — never check-then-write.
import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../core/errors.ts';
import { splitName } from './name-split.ts';

export { splitName };

/** Most candidates tried before giving up (a folder with this many copies is a runaway). */
const MAX_ATTEMPTS = 10_000;

/** The n-th candidate for `name` (0 = the name itself); `notes (1).txt` continues as `notes (2).txt`. */
export function candidateName(name: string, n: number): string {
  if (n === 0) return name;
  const { stem, ext } = splitName(name);
  const numbered = /^(.*) \((\d+)\)$/.exec(stem);
  const base = numbered ? numbered[1]! : stem;
  const start = numbered ? Number(numbered[2]) : 0;
  return `${base} (${start + n})${ext}`;
}

/** Is `name` a plain name (no separators, NUL, `.`/`..`, reserved, empty or over 255 bytes)? */
export function isPlainName(name: unknown): name is string {
  try {
    assertPlainName(name);
    return true;
  } catch {
    return false;
  }
}

/** Throws 400 unless `name` is a plain name. */
export function assertPlainName(name: unknown, what = 'name'): string {
  if (typeof name !== 'string' || name.trim() === '') throw new AppError('BAD_NAME', `The ${what} is empty.`);
  if (/[/\\]/.test(name)) throw new AppError('BAD_NAME', `The ${what} may not contain / or \\.`);
  if (name.includes('\0')) throw new AppError('BAD_NAME', `The ${what} may not contain a NUL byte.`);
  if (name === '.' || name === '..') throw new AppError('BAD_NAME', `The ${what} may not be "." or "..".`);
  if (Buffer.byteLength(name) > 255) throw new AppError('NAME_TOO_LONG', `The ${what} is longer than 255 bytes.`);
  if (isReservedName(name)) throw new AppError('BAD_NAME', `The ${what} "${name}" is reserved by Burrow.`);
  return name;
}

/** Burrow's own hidden folder in each space root, and its temporaries next to their targets. */
export const RESERVED_DIR = '.burrow';
export const TEMP_PREFIX = '.burrow-tmp-';

export function isReservedName(name: string): boolean {
  return name === RESERVED_DIR || name.startsWith(TEMP_PREFIX);
}

/** A hidden temporary name beside its destination (same filesystem, never listed). */
export function temporaryName(): string {
  return TEMP_PREFIX + randomBytes(9).toString('base64url');
}

/**
 * Holds a candidate name across the instances of a cluster (cluster/claims.ts): the release
 * function while held, null when another instance is placing an entry there now.
 */
export interface NameGuard {
  hold(candidatePath: string): (() => void) | null;
}

let guard: NameGuard | null = null;

/** Set by the composition root on PostgreSQL (the embedded installation has none); the answer takes it away again. */
export function guardNames(g: NameGuard): () => void {
  guard = g;
  return () => {
    if (guard === g) guard = null;
  };
}

/**
 * Claims `name`, `name (1)`, `name (2)`… in `dir` atomically: `claim(candidatePath)` must fail
 * with EEXIST when taken (open 'wx', mkdir, link). Returns the final name.
 */
export async function allocateFreeName(
  dir: string,
  name: string,
  claim: (candidatePath: string) => Promise<void>,
): Promise<string> {
  for (let n = 0; n < MAX_ATTEMPTS; n++) {
    const candidate = candidateName(name, n);
    if (Buffer.byteLength(candidate) > 255) throw new AppError('NAME_TOO_LONG', 'The name is too long to number.');
    const release = guard ? guard.hold(path.join(dir, candidate)) : () => {};
    if (!release) continue; // another instance is placing an entry under this name now
    try {
      await claim(path.join(dir, candidate));
      return candidate;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // ENOTEMPTY: a claimed empty folder was filled by someone else before we moved onto it.
      if (code !== 'EEXIST' && code !== 'ENOTEMPTY') throw err;
    } finally {
      release();
    }
  }
  throw new AppError('EXISTS', `No free name is left for "${name}".`);
}

/**
 * Moves a finished temporary file (same filesystem) into `dir` under a free name without
 * ever overwriting: link(temp, candidate) then unlink(temp). Returns the final name.
 */
export async function placeFile(tempPath: string, dir: string, name: string): Promise<string> {
  let linkWorks = true;
  const final = await allocateFreeName(dir, name, async (candidate) => {
    if (linkWorks) {
      try {
        await fsp.link(tempPath, candidate);
        return;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        // Filesystems without hard links (FAT, some network mounts): claim an empty file, then
        // rename onto our own claim — still never over somebody else's file.
        if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw err;
        linkWorks = false;
      }
    }
    const handle = await fsp.open(candidate, 'wx');
    await handle.close();
    await fsp.rename(tempPath, candidate);
  });
  if (linkWorks) await fsp.unlink(tempPath);
  return final;
}

/**
 * Moves a finished temporary folder into `dir` under a free name: mkdir(candidate) claims
 * the name, then rename(temp, candidate) replaces that empty folder (ENOTEMPTY if someone
 * filled it meanwhile, and the next name is tried).
 */
export async function placeDirectory(tempPath: string, dir: string, name: string): Promise<string> {
  return allocateFreeName(dir, name, async (candidate) => {
    await fsp.mkdir(candidate);
    try {
      await fsp.rename(tempPath, candidate);
    } catch (err) {
      await fsp.rmdir(candidate).catch(() => {});
      throw err;
    }
  });
}

/** Renames `from` (any kind) into `dir` under a free name, on one filesystem; never overwrites. */
export async function renameToFreeName(from: string, dir: string, name: string, isDirectory: boolean): Promise<string> {
  if (isDirectory) return placeDirectory(from, dir, name);
  return placeFile(from, dir, name);
}

/**
 * What to do when the name an item goes to is taken: `rename` keeps both (the newcomer becomes
 * `name (1)`), `skip` leaves the item where it is, `replace` puts it in the old one's place and
 * keeps the old one (a file's content as a version, anything else in the trash).
 */
export type ConflictPolicy = 'rename' | 'skip' | 'replace';
/** What became of one item: it took its own name, kept both, took the old one's place, or was left. */
export type Outcome = 'placed' | 'renamed' | 'replaced' | 'skipped';
/** Where a replaced item's old content went. */
export interface Displaced {
  versionId?: string;
  trashId?: string;
}
export interface PlacedEntry {
  name: string;
  outcome: Outcome;
  displaced?: Displaced;
}
/**
 * Puts `incoming` in the place of the entry holding `name` in `dir`, keeping that entry; null
 * when the place was not freed (the newcomer then keeps both). Called only with `replace`.
 */
export type Replacer = (incoming: string, name: string, isDirectory: boolean) => Promise<Displaced | null>;

const taken = (err: unknown) => {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'EEXIST' || code === 'ENOTEMPTY';
};

/**
 * Moves `incoming` (a finished temporary, or an item being moved on one filesystem) into `dir`
 * as `name` by the conflict policy. The name itself is claimed exactly as placeFile and
 * placeDirectory claim it (never over anything); only a `replace` through `replacer` takes a
 * taken name, and it keeps what was there.
 */
export async function placeEntry(
  incoming: string,
  dir: string,
  name: string,
  isDirectory: boolean,
  policy: ConflictPolicy = 'rename',
  replacer?: Replacer,
): Promise<PlacedEntry> {
  if (policy !== 'rename') {
    try {
      await claimExact(incoming, path.join(dir, name), isDirectory);
      return { name, outcome: 'placed' };
    } catch (err) {
      if (!taken(err)) throw err;
    }
    if (policy === 'skip') return { name, outcome: 'skipped' };
    if (!replacer) throw new AppError('EXISTS', `"${name}" already exists here.`);
    const displaced = await replacer(incoming, name, isDirectory);
    if (displaced) return { name, outcome: 'replaced', displaced };
  }
  const final = await renameToFreeName(incoming, dir, name, isDirectory);
  return { name: final, outcome: final === name ? 'placed' : 'renamed' };
}

/** One attempt at the name itself, as placeFile / placeDirectory make it (EEXIST when taken). */
export async function claimExact(incoming: string, target: string, isDirectory: boolean): Promise<void> {
  if (isDirectory) {
    await fsp.mkdir(target);
    try {
      await fsp.rename(incoming, target);
    } catch (err) {
      await fsp.rmdir(target).catch(() => {});
      throw err;
    }
    return;
  }
  try {
    await fsp.link(incoming, target);
    await fsp.unlink(incoming);
    return;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw err;
  }
  const handle = await fsp.open(target, 'wx');
  await handle.close();
  await fsp.rename(incoming, target);
}

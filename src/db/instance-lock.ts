// One Burrow per CONFIG_DIR. The lock is one the kernel keeps for the process and drops when
// the process ends, however it ends (a clean stop, kill -9, a crash, a power cut): an exclusive
// SQLite lock on CONFIG_DIR/burrow.lock, held by a transaction of Node's own SQLite (node:sqlite)
// that stays open for the process's life — an fcntl() lock on POSIX systems, LockFileEx on
// Windows, taken in one call that either gets it or answers "busy". So nothing stale can block a
// start: after a power cut the pid a leftover file names may belong to any live process (pid
// reuse), which a pid-file check took for a running Burrow, and the service never came back.
//
// Why node:sqlite: Node has no flock()/fcntl(), and the other ways were weighed. A native add-on
// (fs-ext and forks) must be compiled and packed for five targets and brings its own failure at
// load; neither add-on we ship (images, terminal) exposes a lock. node-sqlite3-wasm locks with a
// mkdir (that is what leaves `burrow.db.lock` behind). An abstract Unix socket is released by the
// kernel too, but is Linux-only and per network namespace (two containers sharing CONFIG_DIR
// would both start); macOS's O_EXLOCK and Windows' share modes are one more mechanism each. The
// SQLite compiled into every Node 24 build holds a real file lock on every platform, across
// namespaces, with code that is already in the executable: measured 1.2-1.5 MB of RSS for the
// module and the open connection (code pages and SQLite's lookaside), 1-16 ms to take it.
//
// burrow.pid beside it says who holds the lock (pid, start, release) for people and for `burrow
// doctor`; it decides nothing. Only once the lock is ours is a SQLite lock directory left by a
// crash (`<db>.lock`, see node-sqlite3-wasm) removed.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';
import { ensureDirSync } from '../config/dirs.ts';
import { VERSION } from '../version.ts';

export class InstanceLockError extends Error {}

const heldInThisProcess = new Set<string>();

export const LOCK_FILE = 'burrow.lock';
export const PID_FILE = 'burrow.pid';

/** What burrow.pid says: the holder's pid, when it started and its release. */
export interface LockHolder {
  pid: number;
  started: string | null;
  release: string | null;
}

export interface InstanceLock {
  release(): void;
}

/** SQLITE_BUSY (5) and SQLITE_LOCKED (6): another connection holds the lock. */
const isBusy = (err: unknown) => [5, 6].includes((err as { errcode?: number }).errcode ?? -1);
/** SQLITE_NOTADB (26): not ours to keep; the lock file holds no data, so it is made anew. */
const isNotADatabase = (err: unknown) => (err as { errcode?: number }).errcode === 26;

/** Takes the lock (true) or finds it held (false); the connection stays open while it is ours. */
function tryLock(file: string): DatabaseSync | null {
  for (let attempt = 0; ; attempt++) {
    const db = new DatabaseSync(file, { timeout: 0 });
    try {
      db.exec('BEGIN EXCLUSIVE');
      return db;
    } catch (err) {
      db.close();
      if (isBusy(err)) return null;
      if (isNotADatabase(err) && attempt === 0) {
        fs.rmSync(file, { force: true });
        continue;
      }
      throw err;
    }
  }
}

/** burrow.pid's holder, or null when there is none or it cannot be read. */
export function readHolder(configDir: string): LockHolder | null {
  try {
    const [pid, started, release] = fs.readFileSync(path.join(configDir, PID_FILE), 'utf8').split('\n');
    const n = Number.parseInt(pid ?? '', 10);
    if (!Number.isInteger(n) || n <= 0) return null;
    return { pid: n, started: started || null, release: release || null };
  } catch {
    return null;
  }
}

const describe = (h: LockHolder | null) =>
  h ? `pid ${h.pid}${h.started ? `, started ${h.started}` : ''}${h.release ? `, release ${h.release}` : ''}` : null;

export function acquireInstanceLock(configDir: string, databaseFile: string): InstanceLock {
  ensureDirSync(configDir);
  const lockFile = path.join(configDir, LOCK_FILE);
  const pidFile = path.join(configDir, PID_FILE);
  const key = path.resolve(lockFile);
  if (heldInThisProcess.has(key))
    throw new InstanceLockError(`Another Burrow is already running with this config folder (${configDir}).`);
  const db = tryLock(lockFile);
  if (!db) {
    const who = describe(readHolder(configDir));
    throw new InstanceLockError(
      `Another Burrow${who ? ` (${who})` : ''} is already running with this config folder (${configDir}); stop it first.`,
    );
  }
  heldInThisProcess.add(key);
  try {
    // Whatever burrow.pid said before belongs to a process that no longer holds the lock.
    const temp = `${pidFile}.${randomBytes(6).toString('hex')}`;
    fs.writeFileSync(temp, `${process.pid}\n${new Date().toISOString()}\n${VERSION}\n`);
    fs.renameSync(temp, pidFile);
    // No other Burrow uses the folder, so a SQLite lock directory can only be a crash's leftover.
    fs.rmSync(`${databaseFile}.lock`, { recursive: true, force: true });
  } catch (err) {
    heldInThisProcess.delete(key);
    db.close();
    throw err;
  }
  return {
    release() {
      if (!heldInThisProcess.delete(key)) return;
      if (readHolder(configDir)?.pid === process.pid) fs.rmSync(pidFile, { force: true });
      db.close(); // ends the transaction: the lock is free
    },
  };
}

export type LockState =
  | { state: 'held'; holder: LockHolder | null }
  | {
      state: 'free';
      /** What a burrow.pid left by an unclean stop names. */
      stale: LockHolder | null;
      /** SQLite's lock directory a crash left, removed while the lock was held here. */
      leftoverRemoved: boolean;
      /** Lets the lock go (it is held from the probe on, so nothing starts while the database is read). */
      release(): void;
    }
  | { state: 'unknown'; reason: string };

/**
 * Is the lock held, and by whom (for `burrow doctor`)? When it is free it is taken and kept
 * until `release()`: a crash's leftover SQLite lock directory is removed as a start would, and
 * the database can be read with nothing starting meanwhile. burrow.pid is not touched.
 */
export function probeInstanceLock(configDir: string, databaseFile: string): LockState {
  const lockFile = path.join(configDir, LOCK_FILE);
  const key = path.resolve(lockFile);
  if (heldInThisProcess.has(key)) return { state: 'held', holder: readHolder(configDir) };
  if (!fs.existsSync(configDir)) return { state: 'free', stale: null, leftoverRemoved: false, release: () => {} };
  let db: DatabaseSync | null;
  try {
    db = tryLock(lockFile);
  } catch (err) {
    return { state: 'unknown', reason: (err as Error).message };
  }
  if (!db) return { state: 'held', holder: readHolder(configDir) };
  heldInThisProcess.add(key);
  const leftover = `${databaseFile}.lock`;
  const leftoverRemoved = fs.existsSync(leftover);
  if (leftoverRemoved) fs.rmSync(leftover, { recursive: true, force: true });
  return {
    state: 'free',
    stale: readHolder(configDir),
    leftoverRemoved,
    release() {
      if (heldInThisProcess.delete(key)) db.close();
    },
  };
}

/** A secret generated once and kept in CONFIG_DIR (mode 0600), unless given. */
export function loadOrCreateSecret(configDir: string, name: string, given: string | null): string {
  if (given) return given;
  const file = path.join(configDir, name);
  try {
    fs.writeFileSync(file, randomBytes(32).toString('base64url'), { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return fs.readFileSync(file, 'utf8').trim();
}

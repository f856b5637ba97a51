// One Burrow per CONFIG_DIR. The lock is a pid file claimed with link() (atomic: exactly one
// of two starting processes wins). A pid file whose process is gone is stale and taken over;
// only then is a SQLite lock directory left by a crash removed.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { ensureDirSync } from '../config/dirs.ts';

export class InstanceLockError extends Error {}

const heldInThisProcess = new Set<string>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface InstanceLock {
  release(): void;
}

export function acquireInstanceLock(configDir: string, databaseFile: string): InstanceLock {
  ensureDirSync(configDir);
  const pidFile = path.join(configDir, 'burrow.pid');
  const key = path.resolve(pidFile);
  if (heldInThisProcess.has(key))
    throw new InstanceLockError(`Another Burrow is already running with this config folder (${configDir}).`);
  const temp = `${pidFile}.${randomBytes(6).toString('hex')}`;
  fs.writeFileSync(temp, `${process.pid}\n`);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        fs.linkSync(temp, pidFile);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 3) throw err;
        const pid = Number.parseInt(fs.readFileSync(pidFile, 'utf8'), 10);
        if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
          throw new InstanceLockError(
            `Another Burrow (pid ${pid}) is already running with this config folder (${configDir}); stop it first.`,
          );
        }
        // Stale: its process is gone (or it is our own pid left by an earlier run of this pid).
        fs.rmSync(pidFile, { force: true });
      }
    }
  } finally {
    fs.rmSync(temp, { force: true });
  }
  heldInThisProcess.add(key);
  // No other Burrow uses the folder, so a SQLite lock directory can only be a crash's leftover.
  fs.rmSync(`${databaseFile}.lock`, { recursive: true, force: true });
  return {
    release() {
      heldInThisProcess.delete(key);
      try {
        if (Number.parseInt(fs.readFileSync(pidFile, 'utf8'), 10) === process.pid) fs.rmSync(pidFile, { force: true });
      } catch {
        /* already gone */
      }
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

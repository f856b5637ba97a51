// Host account and group names <-> ids, as the host's name service sees them (getent covers
// LDAP/NSS as well as /etc/passwd). Looked up with execFile (no shell) and cached briefly.
import { execFile } from 'node:child_process';
import fs from 'node:fs';

type Db = 'passwd' | 'group';
const TTL_MS = 60_000;
const cache = new Map<string, { at: number; value: { name: string; id: number } | null }>();

function fromFile(db: Db, key: string): { name: string; id: number } | null {
  try {
    for (const line of fs.readFileSync(`/etc/${db}`, 'utf8').split('\n')) {
      const f = line.split(':');
      if (f.length >= 3 && (f[0] === key || f[2] === key)) return { name: f[0]!, id: Number(f[2]) };
    }
  } catch {
    /* no such file on this host */
  }
  return null;
}

function getent(db: Db, key: string): Promise<{ name: string; id: number } | null> {
  return new Promise((resolve) => {
    execFile('getent', [db, key], { timeout: 3000, windowsHide: true }, (err, stdout) => {
      if (err) {
        // Exit 2 = not found; anything else (no getent): the files are the next best source.
        return resolve((err as { code?: unknown }).code === 2 ? null : fromFile(db, key));
      }
      const f = stdout.split('\n')[0]!.split(':');
      resolve(f.length >= 3 && /^\d+$/.test(f[2]!) ? { name: f[0]!, id: Number(f[2]) } : null);
    });
  });
}

export async function lookup(db: Db, key: string): Promise<{ name: string; id: number } | null> {
  const k = `${db}:${key}`;
  const hit = cache.get(k);
  if (hit && Date.now() - hit.at < TTL_MS) return hit.value;
  const value = await getent(db, key);
  cache.set(k, { at: Date.now(), value });
  return value;
}

/** A name or a numeric id → the id; null when the host knows no such name. */
export async function idOf(db: Db, nameOrId: string): Promise<number | null> {
  if (/^\d+$/.test(nameOrId)) return Number(nameOrId);
  return (await lookup(db, nameOrId))?.id ?? null;
}

/** An id → its name, or the number as text when the host has no name for it. */
export async function nameOf(db: Db, id: number): Promise<string> {
  return (await lookup(db, String(id)))?.name ?? String(id);
}

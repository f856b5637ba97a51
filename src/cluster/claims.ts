// Name claims atomic across instances (DATABASE_URL=postgres://…): before an instance places an
// entry at a candidate name it holds that name's row in PostgreSQL; a name another instance
// holds counts as taken (the next candidate is tried), as EEXIST does on one machine. The file
// system's exclusive create (link, open 'wx', mkdir) still guards the name on disk; the row
// keeps instances apart where a network file system does not promise it.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { Database } from '../db/database.ts';
import type { NameGuard } from '../files/names.ts';
import { createClaimStore } from './claims-store.ts';

/** Longest a claim holds when its instance died mid-placement. */
const CLAIM_MS = 2 * 60_000;

/**
 * The host path of a candidate: placements name it through the checked folder's descriptor
 * (`/proc/self/fd/N/name`), which means nothing to another instance; the folder's path does.
 */
function hostPath(candidate: string): string {
  const m = /^\/proc\/self\/fd\/(\d+)(\/.*)$/.exec(candidate);
  if (!m) return candidate;
  try {
    return fs.readlinkSync(`/proc/self/fd/${m[1]}`) + m[2];
  } catch {
    return candidate;
  }
}

export function createNameGuard(db: Database): NameGuard {
  const store = createClaimStore(db);
  const hashOf = (p: string) => createHash('sha256').update(p, 'utf8').digest('hex');
  return {
    hold(candidatePath) {
      const owner = randomBytes(12).toString('base64url');
      const now = Date.now();
      const key = hashOf(hostPath(candidatePath));
      if (!store.hold(key, owner, new Date(now).toISOString(), new Date(now + CLAIM_MS).toISOString())) return null;
      return () => store.release(key, owner);
    },
  };
}

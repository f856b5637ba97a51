// Every space's real root on this host: the volumes under VOLUME_ROOT, the personal folders, the
// folders assigned to accounts and the host folders served as volumes. Versions ask it which
// stored copies still have a space; the start moves old own folders out of each; the indexes
// ask whether a host folder is still served.
import fs from 'node:fs';
import path from 'node:path';

export interface SpaceRootSources {
  volumeRoot: string;
  /** Personal folders of the accounts (personal.ts). */
  personal: () => Iterable<string>;
  /** Folders assigned to accounts (volumes/store.ts). */
  assigned: () => Iterable<string>;
  /** Host folders served as volumes (volumes/host-store.ts). */
  host: () => Iterable<string>;
}

export function spaceRootsOf(sources: SpaceRootSources): () => string[] {
  const real = (p: string) => {
    try {
      return fs.realpathSync(p);
    } catch {
      return null;
    }
  };
  return () => {
    const candidates: string[] = [];
    try {
      for (const name of fs.readdirSync(sources.volumeRoot)) candidates.push(path.join(sources.volumeRoot, name));
    } catch {
      /* no volume root yet */
    }
    candidates.push(...sources.personal(), ...sources.assigned(), ...sources.host());
    const roots: string[] = [];
    for (const p of candidates) {
      const r = real(p);
      if (r) roots.push(r);
    }
    return roots;
  };
}

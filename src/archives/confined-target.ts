// The product's ExtractTarget: extraction confined at use (files/confined.ts). The destination
// is opened as a folder descriptor and checked inside its space before anything is written;
// every file and folder is then created relative to a descriptor (`/proc/self/fd/<fd>/<name>`:
// openat/mkdirat from plain Node), exclusively, never following the final name. Folders this
// run made are reopened through their parent's descriptor with O_NOFOLLOW, so a link swapped in
// for one of them is refused, never followed. A bounded pool keeps the descriptors of recently
// used folders open (an archive with 50,000 folders must not hold 50,000 descriptors).
import fsp from 'node:fs/promises';
import path from 'node:path';
import { createFileAt, openChildDir, openDirIn, type Dir } from '../files/confined.ts';
import { placeTemporary, syncDescriptor, type DirHandle, type ExtractTarget } from './target.ts';

const OPEN_FOLDERS = 32;

/** A folder of one extraction: the checked destination, or a folder made below it. */
export class ConfinedDir implements DirHandle {
  readonly path: string;
  readonly pool: FolderPool;
  readonly parent: ConfinedDir | null;
  readonly name: string;
  constructor(pool: FolderPool, parent: ConfinedDir | null, name: string, real: string) {
    this.pool = pool;
    this.parent = parent;
    this.name = name;
    this.path = real;
  }

  /** Runs `fn` with this folder's descriptor (opened, or reopened through its parent). */
  use<T>(fn: (dir: Dir) => Promise<T>): Promise<T> {
    return this.pool.use(this, fn);
  }
}

/** The destination of an extraction or a new zip; `close()` releases every descriptor it opened. */
export interface Destination extends ConfinedDir {
  close(): Promise<void>;
}

class FolderPool {
  private readonly top: Dir;
  private readonly open = new Map<ConfinedDir, { dir: Dir; users: number }>();
  constructor(top: Dir) {
    this.top = top;
  }

  async use<T>(h: ConfinedDir, fn: (dir: Dir) => Promise<T>): Promise<T> {
    if (!h.parent) return fn(this.top);
    let slot = this.open.get(h);
    if (slot) {
      this.open.delete(h);
      this.open.set(h, slot);
    } else {
      const dir = await h.parent.use((p) => openChildDir(p, h.name));
      slot = this.open.get(h);
      if (slot) await dir.close();
      else this.open.set(h, (slot = { dir, users: 0 }));
    }
    slot.users++;
    try {
      return await fn(slot.dir);
    } finally {
      slot.users--;
      this.evict();
    }
  }

  private evict(): void {
    for (const [h, slot] of this.open) {
      if (this.open.size <= OPEN_FOLDERS) return;
      if (slot.users > 0) continue;
      this.open.delete(h);
      void slot.dir.close();
    }
  }

  async close(): Promise<void> {
    for (const slot of this.open.values()) await slot.dir.close();
    this.open.clear();
    await this.top.close();
  }
}

/** Opens the folder `real` inside `root` as a checked descriptor (403 outside, 400 not a folder). */
export async function openDestination(root: string, real: string): Promise<Destination> {
  const top = await openDirIn(root, real);
  const pool = new FolderPool(top);
  const handle = new ConfinedDir(pool, null, path.basename(top.real), top.real) as Destination;
  (handle as { close: () => Promise<void> }).close = () => pool.close();
  return handle;
}

function confined(dir: DirHandle): ConfinedDir {
  if (!(dir instanceof ConfinedDir))
    throw new TypeError('the confined target writes only into a destination from openDestination()');
  return dir;
}

export const confinedTarget: ExtractTarget = {
  async createFileExclusive(dir, name) {
    const h = confined(dir);
    const fd = await h.use((d) => createFileAt(d, name));
    return { fd, path: path.join(h.path, name) };
  },
  async mkdirExclusive(dir, name) {
    const h = confined(dir);
    await h.use((d) => fsp.mkdir(d.at(name)));
    return new ConfinedDir(h.pool, h, name, path.join(h.path, name));
  },
  // The descriptor the file was created with (exclusively, through the checked folder).
  sync: syncDescriptor,
  place(dir, temp, name, isDirectory, conflict) {
    // Named through the folder's checked descriptor: the temporary and the claimed name are both its entries.
    return confined(dir).use((d) =>
      placeTemporary(d.path, temp, name, isDirectory, conflict?.policy, conflict?.replacer?.(d)),
    );
  },
  exists(dir, name) {
    return confined(dir).use((d) =>
      fsp.lstat(d.at(name)).then(
        () => true,
        () => false,
      ),
    );
  },
  async discard(dir, temp) {
    // Never followed: rm removes a link found inside as the link.
    await confined(dir).use((d) => fsp.rm(d.at(temp), { recursive: true, force: true }));
  },
  async remove(dir, name, isDirectory) {
    await confined(dir)
      .use((d) => (isDirectory ? fsp.rmdir(d.at(name)) : fsp.unlink(d.at(name))))
      .catch(() => {});
  },
  async freeSpace(dir) {
    const s = await confined(dir).use((d) => fsp.statfs(d.path));
    return s.bavail * s.bsize;
  },
  within(dir, fn) {
    return confined(dir).use((d) => fn(d.path));
  },
};

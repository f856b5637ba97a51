// Personal folders: one per account under USER_ROOT, its name claimed once (database row +
// exclusive mkdir) and kept, so no account ever inherits another's folder.
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { PersonalFolderStore } from './personal-store.ts';

export interface PersonalFolders {
  /** The account's folder (created on first use), absolute. */
  folderFor(userId: string, username: string): Promise<string>;
  /** Every claimed folder, absolute (to keep other accounts out of them). */
  all(): string[];
}

function safeFolderName(username: string): string {
  const cleaned = username
    .normalize('NFC')
    .replace(/[^\p{L}\p{N}._-]+/gu, '_')
    .replace(/^[._]+/, '')
    .slice(0, 64);
  return cleaned || 'user';
}

export interface PersonalFoldersDeps {
  store: PersonalFolderStore;
  /** USER_ROOT, where the folders are. */
  userRoot: string;
}

export function createPersonalFolders({ store, userRoot }: PersonalFoldersDeps): PersonalFolders {
  const claiming = new Map<string, Promise<string>>();

  async function claim(userId: string, username: string): Promise<string> {
    const folder = store.folderOf(userId);
    if (folder !== undefined) {
      const dir = path.join(userRoot, folder);
      await fsp.mkdir(dir, { recursive: true });
      return dir;
    }
    await fsp.mkdir(userRoot, { recursive: true });
    const base = safeFolderName(username);
    for (let n = 0; n < 1000; n++) {
      const name = n === 0 ? base : `${base}-${n + 1}`;
      if (store.taken(name)) continue;
      try {
        // A folder already on disk but unclaimed (an older database) belongs to nobody we know.
        await fsp.mkdir(path.join(userRoot, name));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue;
        throw err;
      }
      store.claim(userId, name, new Date().toISOString());
      return path.join(userRoot, name);
    }
    throw new Error('no personal folder name left');
  }

  return {
    folderFor(userId, username) {
      let pending = claiming.get(userId);
      if (!pending) {
        pending = claim(userId, username).finally(() => claiming.delete(userId));
        claiming.set(userId, pending);
      }
      return pending;
    },
    all() {
      return store.all().map((folder) => path.join(userRoot, folder));
    },
  };
}

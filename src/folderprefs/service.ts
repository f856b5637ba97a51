// Folder preferences belong to folders the account can read; nothing is written in the folder.
import type { Caller } from '../core/caller.ts';
import { AppError } from '../core/errors.ts';
import type { PathResolver } from '../files/paths.ts';
import type { FolderPrefStore } from './store.ts';
import type { FolderPrefs, FolderPrefsAnswer } from './wire.ts';

export function createFolderPrefs(deps: { resolver: PathResolver; store: FolderPrefStore }) {
  const { store } = deps;
  /** The folder's normalised virtual path; '' is the top. */
  async function folderOf(caller: Caller, virtual: string): Promise<string> {
    const target = await deps.resolver.resolve(caller, virtual, { mustExist: true });
    if (!target.isDirectory) throw new AppError('NOT_A_FOLDER', 'View preferences belong to folders; this is a file.');
    return target.virtualPath;
  }
  return {
    read: async (caller: Caller, virtual: string): Promise<FolderPrefsAnswer> =>
      store.read(caller.userId, await folderOf(caller, virtual)),
    async write(caller: Caller, virtual: string, change: Partial<FolderPrefs>): Promise<FolderPrefsAnswer> {
      const folder = await folderOf(caller, virtual);
      const { view, sortBy, sortDir } = store.read(caller.userId, folder);
      store.write(caller.userId, folder, { view, sortBy, sortDir, ...change });
      return store.read(caller.userId, folder);
    },
    async forget(caller: Caller, virtual: string): Promise<void> {
      store.forget(caller.userId, await folderOf(caller, virtual));
    },
  };
}
export type FolderPrefService = ReturnType<typeof createFolderPrefs>;

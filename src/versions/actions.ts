// What the versions rows do: the version service addressed by the caller's paths, the copy
// answered as a FileItem, the text of a version.
import fsp from 'node:fs/promises';
import type { Caller } from '../core/caller.ts';
import { fileItem } from '../files/items.ts';
import type { PathResolver } from '../files/paths.ts';
import { readTextFile } from '../files/text.ts';
import type { ItemAnswer } from '../files/wire.ts';
import { storedRoot, type VersionService } from './service.ts';
import type { VersionText } from './wire.ts';

export function createVersionActions(deps: { versions: VersionService; resolver: PathResolver; maxTextBytes: number }) {
  const { versions } = deps;
  return {
    async list(caller: Caller, virtual: string) {
      const file = await deps.resolver.resolveInside(caller, virtual, { atTop: 'Name a file.' });
      return { items: versions.list(caller, file) };
    },
    async text(caller: Caller, id: string): Promise<VersionText> {
      const { row, virtualPath } = await versions.find(caller, id);
      const text = await readTextFile(storedRoot(row.stored_path), row.stored_path, deps.maxTextBytes);
      return { content: text.content, path: virtualPath };
    },
    restore: async (caller: Caller, id: string) => ({ success: true, path: await versions.restore(caller, id) }),
    async restoreAsCopy(caller: Caller, id: string): Promise<ItemAnswer> {
      const done = await versions.restoreAsCopy(caller, id);
      return { success: true, item: fileItem(done.parent, done.name, await fsp.stat(done.real)) };
    },
    remove: (caller: Caller, id: string) => versions.remove(caller, id),
  };
}
export type VersionActions = ReturnType<typeof createVersionActions>;

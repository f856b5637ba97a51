// What the trash rows do: the trash service with a chosen destination checked as a writable
// folder, the restored item answered as a FileItem, and the text of a trashed file. Restore,
// purge and empty each write one activity row.
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Caller } from '../core/caller.ts';
import { AppError } from '../core/errors.ts';
import { fileItem } from '../files/items.ts';
import { fileEvent, type ActivitySink } from '../files/activity.ts';
import type { FileOps } from '../files/ops.ts';
import { ownFolderOf } from '../files/own.ts';
import { readTextFile } from '../files/text.ts';
import type { TrashService } from './service.ts';
import type { RestoreAnswer, TrashText } from './wire.ts';

export interface TrashActionsDeps {
  trash: TrashService;
  ops: FileOps;
  maxTextBytes: number;
  activity: ActivitySink;
}

export function createTrashActions(deps: TrashActionsDeps) {
  const { trash, activity } = deps;
  return {
    list: async (caller: Caller) => ({ items: await trash.list(caller) }),
    async restore(caller: Caller, id: string, destination?: string): Promise<RestoreAnswer> {
      const into = destination !== undefined ? await deps.ops.writableFolder(caller, destination) : undefined;
      const done = await trash.restore(caller, id, into);
      activity.record(
        fileEvent(caller, 'trash.restore', {
          path: `${done.parentVirtual}/${done.name}`,
          from: done.entry.originalPath,
          isDirectory: done.isDirectory,
        }),
      );
      return {
        success: true,
        item: fileItem(done.parentVirtual, done.name, await fsp.stat(path.join(done.dir, done.name))),
        path: `${done.parentVirtual}/${done.name}`,
      };
    },
    async purge(caller: Caller, id: string): Promise<void> {
      const entry = await trash.purge(caller, id);
      activity.record(fileEvent(caller, 'trash.purge', { path: entry.originalPath, isDirectory: entry.isDirectory }));
    },
    async empty(caller: Caller) {
      const removed = await trash.empty(caller);
      if (removed) activity.record(fileEvent(caller, 'trash.empty', { count: removed }));
      return { removed };
    },
    async text(caller: Caller, id: string): Promise<TrashText> {
      const found = await trash.find(caller, id);
      if (found.entry.isDirectory) throw new AppError('IS_A_FOLDER');
      const text = await readTextFile(ownFolderOf(found.storedPath), found.storedPath, deps.maxTextBytes);
      return { content: text.content, name: found.entry.name };
    },
  };
}
export type TrashActions = ReturnType<typeof createTrashActions>;

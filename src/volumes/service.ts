// Assigned volumes (administrator): labelled host folders given to an account, read-only or
// read-write; and "server files", the host's folders for picking those paths. These carry
// absolute host paths: they are for administrators and about host paths.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.ts';
import { AppError } from '../core/errors.ts';
import { assertPlainName } from '../files/names.ts';
import { RESERVED_PREFIXES } from '../files/paths.ts';
import type { UserVolume, UserVolumeStore } from './store.ts';

type AccessMode = 'readonly' | 'readwrite';

export interface HostFolders {
  current: string;
  parent: string | null;
  directories: { name: string; path: string }[];
}

export function createAssignedVolumes(deps: { store: UserVolumeStore; config: Config }) {
  const { store, config } = deps;
  const assertUser = (id: string) => {
    if (!store.accountExists(id)) throw new AppError('NOT_FOUND', 'No such account.');
  };
  const checkLabel = (label: string) => {
    assertPlainName(label, 'label');
    if (RESERVED_PREFIXES.has(label)) throw new AppError('BAD_NAME', `"${label}" is reserved; choose another label.`);
    return label;
  };
  const assertLabelFree = (userId: string, label: string, except?: string) => {
    if (store.list(userId).some((v) => v.label === label && v.id !== except))
      throw new AppError('EXISTS', `The account already has a volume labelled "${label}".`);
  };

  return {
    list(userId: string): { volumes: UserVolume[] } {
      assertUser(userId);
      return { volumes: store.list(userId) };
    },

    async assign(
      userId: string,
      input: { label: string; path: string; accessMode: AccessMode },
    ): Promise<{ volume: UserVolume }> {
      assertUser(userId);
      if (!config.storage.userVolumes)
        throw new AppError('FEATURE_OFF', 'Assigned volumes are off (USER_VOLUMES=false).');
      const label = checkLabel(input.label.trim());
      if (!path.isAbsolute(input.path)) throw new AppError('BAD_PATH', 'The path must be an absolute host folder.');
      const st = await fsp.stat(input.path).catch(() => null);
      if (!st?.isDirectory()) throw new AppError('NOT_A_FOLDER', 'The path is not an existing folder.');
      assertLabelFree(userId, label);
      return {
        volume: store.add(userId, { label, path: await fsp.realpath(input.path), accessMode: input.accessMode }),
      };
    },

    change(
      userId: string,
      volumeId: string,
      input: { accessMode?: AccessMode | undefined; label?: string | undefined },
    ): { volume: UserVolume } {
      const label = input.label !== undefined ? checkLabel(input.label.trim()) : undefined;
      if (label) assertLabelFree(userId, label, volumeId);
      const volume = store.update(userId, volumeId, { accessMode: input.accessMode, label });
      if (!volume) throw new AppError('NOT_FOUND', 'No such assigned volume.');
      return { volume };
    },

    remove(userId: string, volumeId: string): void {
      if (!store.remove(userId, volumeId)) throw new AppError('NOT_FOUND', 'No such assigned volume.');
    },

    /** The folders inside a host folder (default VOLUME_ROOT), links to folders included. */
    async hostFolders(wantedPath: string | undefined): Promise<HostFolders> {
      let wanted = wantedPath && wantedPath.trim() ? wantedPath : config.storage.volumeRoot;
      if (!path.isAbsolute(wanted) || wanted.includes('\0'))
        throw new AppError('BAD_PATH', 'The path must be an absolute host folder.');
      const current = path.resolve(wanted);
      const entries = await fsp.readdir(current, { withFileTypes: true });
      const directories = [];
      for (const e of entries) {
        const full = path.join(current, e.name);
        if (e.isDirectory() || (e.isSymbolicLink() && (await fsp.stat(full).catch(() => null))?.isDirectory()))
          directories.push({ name: e.name, path: full });
      }
      directories.sort((a, b) => a.name.localeCompare(b.name));
      const parent = path.dirname(current);
      return { current, parent: parent === current ? null : parent, directories };
    },
  };
}

export type AssignedVolumes = ReturnType<typeof createAssignedVolumes>;

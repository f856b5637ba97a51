// The files capability as app.ts sees it: the path resolver (handed to uploads, search,
// shares…) and every route of files, browse, downloads, trash, versions, favourites and
// assigned volumes, built on one set of services.
import path from 'node:path';
import type { Capability } from '../app.ts';
import type { ChangeSink } from '../changes.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { Logger } from '../http/log.ts';
import type { RouteDef } from '../http/route.ts';
import { createUserVolumeStore, type UserVolumeStore } from '../volumes/store.ts';
import type { AccessRule } from './access.ts';
import { createPathResolver, type PathResolver } from './paths.ts';
import { createPersonalFolders } from './personal.ts';

export interface FilesSettings {
  /** Access rules of the installation (settings service). */
  accessRules: () => readonly AccessRule[];
  /** The account's preferences; `showHiddenFiles` decides whether dot-files are listed. */
  userPrefs: (userId: string) => { showHiddenFiles?: boolean } & Record<string, unknown>;
}

export interface FilesDeps {
  config: Config;
  db: Database;
  changes: ChangeSink;
  log: Logger;
}

export interface FilesCapability extends Capability {
  readonly resolver: PathResolver;
  readonly userVolumes: UserVolumeStore;
  /** Connects the settings service once it exists (access rules, per-account preferences). */
  useSettings(settings: Partial<FilesSettings>): void;
}

export function createFilesCapability(deps: FilesDeps): FilesCapability {
  const { config, db } = deps;
  const settings: FilesSettings = { accessRules: () => [], userPrefs: () => ({}) };
  const userVolumes = createUserVolumeStore(db);
  const personal = createPersonalFolders(db, config.storage.userRoot);
  const resolver = createPathResolver({
    volumeRoot: config.storage.volumeRoot,
    userDirEnabled: config.storage.userDirEnabled,
    userVolumesEnabled: config.storage.userVolumes,
    personal,
    privateDirs: [config.storage.configDir, config.storage.cacheDir].map((d) => path.resolve(d)),
    accessRules: () => settings.accessRules(),
    assignedVolumes: (userId) => userVolumes.list(userId),
  });
  const routes: RouteDef[] = [];
  return {
    routes,
    resolver,
    userVolumes,
    useSettings(next) {
      Object.assign(settings, next);
    },
    features: () => ({
      userVolumes: { enabled: config.storage.userVolumes },
      volumeUsage: { enabled: config.features.showVolumeUsage },
      personal: { enabled: config.storage.userDirEnabled },
    }),
  };
}

// Folder preferences as app.ts mounts them.
import type { Capability } from '../http/capability.ts';
import type { Database } from '../db/database.ts';
import type { PathResolver } from '../files/paths.ts';
import { folderPrefRoutes } from './routes.ts';
import { createFolderPrefs } from './service.ts';
import { createFolderPrefStore } from './store.ts';

export function createFolderPrefsCapability(deps: { db: Database; resolver: PathResolver }): Capability {
  return {
    routes: folderPrefRoutes(createFolderPrefs({ resolver: deps.resolver, store: createFolderPrefStore(deps.db) })),
  };
}

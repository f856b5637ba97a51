// Browsing as app.ts mounts it: the listing service over the files resolver, its routes.
import type { Stats } from 'node:fs';
import type { Capability } from '../http/capability.ts';
import type { PathResolver } from '../files/paths.ts';
import { browseRoutes } from './routes.ts';
import { createBrowse } from './service.ts';

export function createBrowseCapability(deps: {
  resolver: PathResolver;
  showHidden: (userId: string) => boolean;
  /** A folder was listed (the indexes re-check it in the background). */
  viewed: (realPath: string) => void;
  /** When a file was created, kept across the saves that replace it (versions/service.ts). */
  createdAt?: (realPath: string, st: Stats) => Date;
  /** A folder's recursive size from the folder-size index, or null. */
  held: NonNullable<Parameters<typeof createBrowse>[0]['held']>;
}): Capability {
  return { routes: browseRoutes(createBrowse(deps)) };
}

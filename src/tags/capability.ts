// Tags as app.ts mounts them.
import type { Capability } from '../http/capability.ts';
import type { Database } from '../db/database.ts';
import type { PathResolver } from '../files/paths.ts';
import { tagRoutes } from './routes.ts';
import { createTags } from './service.ts';
import type { TagStore } from './store.ts';

export function createTagsCapability(deps: {
  store: TagStore;
  resolver: PathResolver;
  groupsOf: (userId: string) => { id: string; name: string }[];
}): Capability {
  return { routes: tagRoutes(createTags(deps)) };
}

// Favourites as app.ts mounts them.
import type { Capability } from '../http/capability.ts';
import type { Database } from '../db/database.ts';
import type { PathResolver } from '../files/paths.ts';
import { favoriteRoutes } from './routes.ts';
import { createFavorites } from './service.ts';
import { createFavoriteStore } from './store.ts';

export function createFavoritesCapability(deps: { db: Database; resolver: PathResolver }): Capability {
  return { routes: favoriteRoutes(createFavorites({ resolver: deps.resolver, store: createFavoriteStore(deps.db) })) };
}

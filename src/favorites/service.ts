// Favourites: a favourite names an existing item inside a space, as the account sees it.
import type { Caller } from '../core/caller.ts';
import { AppError } from '../core/errors.ts';
import type { PathResolver } from '../files/paths.ts';
import type { FavoriteStore } from './store.ts';
import type { Favorite, FavoriteChange } from './wire.ts';

export function createFavorites(deps: { resolver: PathResolver; store: FavoriteStore }) {
  const { store } = deps;
  return {
    list: (caller: Caller): Favorite[] => store.list(caller.userId),
    async add(caller: Caller, path: string, change: FavoriteChange): Promise<Favorite> {
      const target = await deps.resolver.resolveInside(caller, path, {
        mustExist: true,
        atTop: 'The top cannot be a favourite.',
      });
      return store.put(caller.userId, target.virtualPath, change);
    },
    reorder(caller: Caller, order: string[]): Favorite[] {
      if (!store.reorder(caller.userId, order)) throw new AppError('BAD_ORDER');
      return store.list(caller.userId);
    },
    change(caller: Caller, id: string, change: FavoriteChange): Favorite {
      const favorite = store.change(caller.userId, id, change);
      if (!favorite) throw new AppError('NOT_FOUND', 'No such favourite.');
      return favorite;
    },
    removePath(caller: Caller, path: string): Favorite[] {
      store.removePath(caller.userId, path.replace(/^\/+|\/+$/g, ''));
      return store.list(caller.userId);
    },
    remove(caller: Caller, id: string): Favorite[] {
      store.remove(caller.userId, id);
      return store.list(caller.userId);
    },
  };
}
export type Favorites = ReturnType<typeof createFavorites>;

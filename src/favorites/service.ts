// Favourites: a favourite names an existing item inside a space, as the account sees it.
import type { Caller } from '../core/caller.ts';
import { AppError } from '../core/errors.ts';
import type { PathResolver } from '../files/paths.ts';
import type { FavoriteStore } from './store.ts';
import type { Favorite, FavoriteChange } from './wire.ts';

export function createFavorites(deps: { resolver: PathResolver; store: FavoriteStore }) {
  const { store, resolver } = deps;
  /** A favourite an access rule now hides stays kept, and is not shown (it comes back with the rule gone). */
  const shown = (caller: Caller): Favorite[] =>
    store.list(caller.userId).filter((f) => !resolver.isHiddenByRule(caller, f.path));
  return {
    list: shown,
    async add(caller: Caller, path: string, change: FavoriteChange): Promise<Favorite> {
      const target = await deps.resolver.resolveInside(caller, path, {
        mustExist: true,
        atTop: 'The top cannot be a favourite.',
      });
      return store.put(caller.userId, target.virtualPath, change);
    },
    reorder(caller: Caller, order: string[]): Favorite[] {
      if (!store.reorder(caller.userId, order)) throw new AppError('BAD_ORDER');
      return shown(caller);
    },
    change(caller: Caller, id: string, change: FavoriteChange): Favorite {
      const favorite = shown(caller).some((f) => f.id === id) ? store.change(caller.userId, id, change) : null;
      if (!favorite) throw new AppError('NOT_FOUND', 'No such favourite.');
      return favorite;
    },
    removePath(caller: Caller, path: string): Favorite[] {
      store.removePath(caller.userId, path.replace(/^\/+|\/+$/g, ''));
      return shown(caller);
    },
    remove(caller: Caller, id: string): Favorite[] {
      store.remove(caller.userId, id);
      return shown(caller);
    },
  };
}
export type Favorites = ReturnType<typeof createFavorites>;

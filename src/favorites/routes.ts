// Favourites (wire-shapes §8): bare answers; reorder is matched before :id.
import { z } from 'zod';
import { route } from '../http/route.ts';
import type { Favorites } from './service.ts';
import { addBody, changeBody, favorite, favoriteParams, favorites as favoriteList } from './wire.ts';

export function favoriteRoutes(favorites: Favorites) {
  return [
    route({
      method: 'GET',
      path: '/api/favorites',
      access: 'account',
      summary: 'Favourites of this account, in order',
      tags: ['Favourites'],
      responses: { 200: { description: 'Bare array', schema: favoriteList } },
      handler: ({ caller }) => favorites.list(caller),
    }),
    route({
      method: 'POST',
      path: '/api/favorites',
      access: 'account',
      summary: 'Add a favourite (an existing one is updated)',
      tags: ['Favourites'],
      status: 201,
      body: addBody,
      responses: { 201: { description: 'The favourite', schema: favorite } },
      handler: ({ caller, body }) => favorites.add(caller, body.path, body),
    }),
    route({
      method: 'PATCH',
      path: '/api/favorites/reorder',
      access: 'account',
      summary: 'Reorder: every id exactly once',
      tags: ['Favourites'],
      body: z.object({ order: z.array(z.string()) }),
      responses: { 200: { description: 'The full array in the new order', schema: favoriteList } },
      handler: ({ caller, body }) => favorites.reorder(caller, body.order),
    }),
    route({
      method: 'PATCH',
      path: '/api/favorites/:id',
      access: 'account',
      summary: 'Change label, icon or colour (null clears label and colour)',
      tags: ['Favourites'],
      params: favoriteParams,
      body: changeBody,
      responses: { 200: { description: 'The updated favourite', schema: favorite } },
      handler: ({ caller, params, body }) => favorites.change(caller, params.id, body),
    }),
    route({
      method: 'DELETE',
      path: '/api/favorites',
      access: 'account',
      summary: 'Remove the favourite of a path',
      tags: ['Favourites'],
      body: z.object({ path: z.string() }),
      responses: { 200: { description: 'The remaining favourites', schema: favoriteList } },
      handler: ({ caller, body }) => favorites.removePath(caller, body.path),
    }),
    route({
      method: 'DELETE',
      path: '/api/favorites/:id',
      access: 'account',
      summary: 'Remove a favourite by id',
      tags: ['Favourites'],
      params: favoriteParams,
      responses: { 200: { description: 'The remaining favourites', schema: favoriteList } },
      handler: ({ caller, params }) => favorites.remove(caller, params.id),
    }),
  ];
}

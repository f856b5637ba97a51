// Favourites (wire-shapes §8): bare answers; reorder is matched before :id.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Database } from '../db/database.ts';
import { AppError } from '../core/errors.ts';
import { route, type RouteDef } from '../http/route.ts';
import type { PathResolver } from '../files/paths.ts';

interface Row { id: string; path: string; label: string | null; icon: string; color: string | null; position: number; created_at: string; updated_at: string }
const toFavorite = (r: Row) => ({ id: r.id, path: r.path, label: r.label, icon: r.icon, color: r.color, position: r.position, createdAt: r.created_at, updatedAt: r.updated_at });
const favorite = z.object({ id: z.string(), path: z.string(), label: z.string().nullable(), icon: z.string(), color: z.string().nullable(), position: z.number(), createdAt: z.string(), updatedAt: z.string() });

export function favoriteRoutes(deps: { db: Database; resolver: PathResolver }): RouteDef[] {
  const { db } = deps;
  const list = (userId: string) => db.all<Row>('SELECT * FROM favorites WHERE user_id = ? ORDER BY position, created_at', [userId]).map(toFavorite);
  return [
    route({
      method: 'GET', path: '/api/favorites', access: 'account', summary: 'Favourites of this account, in order', tags: ['Favourites'],
      responses: { 200: { description: 'Bare array', schema: z.array(favorite) } },
      handler: ({ caller }) => list(caller!.userId),
    }),
    route({
      method: 'POST', path: '/api/favorites', access: 'account', summary: 'Add a favourite (an existing one is updated)', tags: ['Favourites'], status: 201,
      body: z.object({ path: z.string(), label: z.string().nullable().optional(), icon: z.string().optional(), color: z.string().nullable().optional() }),
      responses: { 201: { description: 'The favourite', schema: favorite } },
      handler: async ({ caller, body }) => {
        const target = await deps.resolver.resolve(caller!, body.path, { mustExist: true });
        if (!target.space) throw new AppError('TOP_LEVEL', 'The top cannot be a favourite.');
        const now = new Date().toISOString();
        const existing = db.get<Row>('SELECT * FROM favorites WHERE user_id = ? AND path = ?', [caller!.userId, target.virtualPath]);
        if (existing) {
          db.run('UPDATE favorites SET label = ?, icon = ?, color = ?, updated_at = ? WHERE id = ?',
            [body.label !== undefined ? body.label : existing.label, body.icon ?? existing.icon, body.color !== undefined ? body.color : existing.color, now, existing.id]);
          return toFavorite(db.get<Row>('SELECT * FROM favorites WHERE id = ?', [existing.id])!);
        }
        const position = db.get<{ n: number | null }>('SELECT MAX(position) AS n FROM favorites WHERE user_id = ?', [caller!.userId])!.n;
        const id = randomUUID();
        db.run('INSERT INTO favorites (id, user_id, path, label, icon, color, position, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
          [id, caller!.userId, target.virtualPath, body.label ?? null, body.icon ?? 'outline:StarIcon', body.color ?? null, position === null ? 0 : position + 1, now, now]);
        return toFavorite(db.get<Row>('SELECT * FROM favorites WHERE id = ?', [id])!);
      },
    }),
    route({
      method: 'PATCH', path: '/api/favorites/reorder', access: 'account', summary: 'Reorder: every id exactly once', tags: ['Favourites'],
      body: z.object({ order: z.array(z.string()) }),
      responses: { 200: { description: 'The full array in the new order', schema: z.array(favorite) } },
      handler: ({ caller, body }) => {
        const ids = db.all<{ id: string }>('SELECT id FROM favorites WHERE user_id = ?', [caller!.userId]).map((r) => r.id);
        const wanted = new Set(body.order);
        if (wanted.size !== body.order.length || wanted.size !== ids.length || ids.some((id) => !wanted.has(id))) {
          throw new AppError('BAD_ORDER');
        }
        const now = new Date().toISOString();
        db.transaction(() => body.order.forEach((id, i) => db.run('UPDATE favorites SET position = ?, updated_at = ? WHERE id = ? AND user_id = ?', [i, now, id, caller!.userId])));
        return list(caller!.userId);
      },
    }),
    route({
      method: 'PATCH', path: '/api/favorites/:id', access: 'account', summary: 'Change label, icon or colour (null clears label and colour)', tags: ['Favourites'],
      body: z.object({ label: z.string().nullable().optional(), icon: z.string().min(1).optional(), color: z.string().nullable().optional() }),
      responses: { 200: { description: 'The updated favourite', schema: favorite } },
      handler: ({ caller, params, body }) => {
        const row = db.get<Row>('SELECT * FROM favorites WHERE id = ? AND user_id = ?', [params.id!, caller!.userId]);
        if (!row) throw new AppError('NOT_FOUND', 'No such favourite.');
        db.run('UPDATE favorites SET label = ?, icon = ?, color = ?, updated_at = ? WHERE id = ?',
          [body.label !== undefined ? body.label : row.label, body.icon ?? row.icon, body.color !== undefined ? body.color : row.color, new Date().toISOString(), row.id]);
        return toFavorite(db.get<Row>('SELECT * FROM favorites WHERE id = ?', [row.id])!);
      },
    }),
    route({
      method: 'DELETE', path: '/api/favorites', access: 'account', summary: 'Remove the favourite of a path', tags: ['Favourites'],
      body: z.object({ path: z.string() }),
      responses: { 200: { description: 'The remaining favourites', schema: z.array(favorite) } },
      handler: ({ caller, body }) => {
        const p = body.path.replace(/^\/+|\/+$/g, '');
        db.run('DELETE FROM favorites WHERE user_id = ? AND path = ?', [caller!.userId, p]);
        return list(caller!.userId);
      },
    }),
    route({
      method: 'DELETE', path: '/api/favorites/:id', access: 'account', summary: 'Remove a favourite by id', tags: ['Favourites'],
      responses: { 200: { description: 'The remaining favourites', schema: z.array(favorite) } },
      handler: ({ caller, params }) => {
        db.run('DELETE FROM favorites WHERE user_id = ? AND id = ?', [caller!.userId, params.id!]);
        return list(caller!.userId);
      },
    }),
  ];
}

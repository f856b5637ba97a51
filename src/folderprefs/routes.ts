// Per-folder view and sort preferences of an account (`folder_prefs`, a binding: forgotten when
// the folder is deleted, carried when it is renamed or moved — see files/bindings.ts).
// GET answers the defaults with `saved: false` when the account never chose for this folder.
import { z } from 'zod';
import type { Database } from '../db/database.ts';
import { AppError } from '../core/errors.ts';
import { noContent, route, type RouteDef } from '../http/route.ts';
import type { Caller } from '../core/caller.ts';
import type { PathResolver } from '../files/paths.ts';

const prefsFields = {
  view: z.enum(['list', 'grid']),
  sortBy: z.enum(['name', 'size', 'modified', 'kind']),
  sortDir: z.enum(['asc', 'desc']),
};
const prefs = z.object(prefsFields);
type FolderPrefs = z.infer<typeof prefs>;
const DEFAULTS: FolderPrefs = { view: 'list', sortBy: 'name', sortDir: 'asc' };
const answer = z.object({ path: z.string(), ...prefsFields, saved: z.boolean(), updatedAt: z.string().nullable() });

export function folderPrefRoutes(deps: { db: Database; resolver: PathResolver }): RouteDef[] {
  const { db, resolver } = deps;

  /** The folder's normalised virtual path; '' is the top. */
  async function folderOf(caller: Caller, virtual: string): Promise<string> {
    const target = await resolver.resolve(caller, virtual, { mustExist: true });
    if (!target.isDirectory) throw new AppError('NOT_A_FOLDER', 'View preferences belong to folders; this is a file.');
    return target.virtualPath;
  }

  function read(userId: string, folder: string) {
    const row = db.get<{ prefs: string; updated_at: string }>('SELECT prefs, updated_at FROM folder_prefs WHERE user_id = ? AND path = ?', [userId, folder]);
    let stored: Partial<FolderPrefs> = {};
    if (row) {
      // A row written by an older release may miss keys or hold values no longer offered.
      try { stored = prefs.partial().catch({}).parse(JSON.parse(row.prefs)); } catch { stored = {}; }
    }
    return { path: folder, ...DEFAULTS, ...stored, saved: Boolean(row), updatedAt: row?.updated_at ?? null };
  }

  return [
    route({
      method: 'GET', path: '/api/folder-prefs/*', access: 'account', summary: "This account's view and sort for a folder", tags: ['Browse'],
      description: 'Root = `/api/folder-prefs/`. Answers the defaults (`list`, `name`, `asc`) with `saved: false` when nothing was chosen for the folder.',
      responses: { 200: { description: 'The preferences', schema: answer } },
      handler: async ({ caller, params }) => read(caller!.userId, await folderOf(caller!, params.path ?? '')),
    }),
    route({
      method: 'PUT', path: '/api/folder-prefs/*', access: 'account', summary: "Remember this account's view and sort for a folder", tags: ['Browse'],
      description: 'Any of `view` (`list`|`grid`), `sortBy` (`name`|`size`|`modified`|`kind`), `sortDir` (`asc`|`desc`); keys left out keep their value. Only reading the folder is needed: nothing is written in it.',
      body: prefs.partial().strict(),
      responses: { 200: { description: 'The preferences now in force', schema: answer } },
      handler: async ({ caller, params, body }) => {
        const folder = await folderOf(caller!, params.path ?? '');
        const { path: _p, saved: _s, updatedAt: _u, ...current } = read(caller!.userId, folder);
        const next: FolderPrefs = { ...current, ...body };
        db.run('INSERT INTO folder_prefs (user_id, path, prefs, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (user_id, path) DO UPDATE SET prefs = excluded.prefs, updated_at = excluded.updated_at',
          [caller!.userId, folder, JSON.stringify(next), new Date().toISOString()]);
        return read(caller!.userId, folder);
      },
    }),
    route({
      method: 'DELETE', path: '/api/folder-prefs/*', access: 'account', summary: "Forget this account's view and sort for a folder", tags: ['Browse'],
      responses: { 204: 'Forgotten (also when nothing was saved)' },
      handler: async ({ caller, params }) => {
        const folder = await folderOf(caller!, params.path ?? '');
        db.run('DELETE FROM folder_prefs WHERE user_id = ? AND path = ?', [caller!.userId, folder]);
        return noContent();
      },
    }),
  ];
}

// The SQL of tags (`tags`, a binding: see files/bindings.ts). Paths are virtual paths the
// service resolved; tags arrive already checked and spelled (service.ts).
import type { Database } from '../db/database.ts';
import { pathTable } from '../files/bindings-store.ts';
import type { BindingTable } from '../files/bindings.ts';

export interface TagRow {
  path: string;
  tag: string;
}

export interface TagStore {
  /** Every tag of the account with how many paths carry it, by name. */
  vocabulary(userId: string): { name: string; count: number }[];
  /** The spelling the account already uses for a key, if any. */
  spelling(userId: string, key: string): string | undefined;
  /** Adds and removes in one transaction. */
  apply(userId: string, paths: string[], add: { tag: string; key: string }[], removeKeys: string[]): void;
  /** Paths carrying the tag, in path order. */
  pathsWith(userId: string, key: string): string[];
  /** The tags of these paths. */
  tagsOf(userId: string, paths: string[]): Map<string, string[]>;
  /** Tagged items directly inside `folder` ('' the top) with their tags. */
  childrenOf(userId: string, folder: string): TagRow[];
  /** Renames a tag everywhere (merging into a tag of that name); false when the account has no such tag. */
  rename(userId: string, key: string, to: { tag: string; key: string }): boolean;
  /** Takes a tag off everything (and out of the groups it was shared with); the number of paths it was on. */
  drop(userId: string, key: string): number;
  /** The groups this account shares each of its tags with, by tag key. */
  sharedGroups(userId: string): Map<string, string[]>;
  /** Shares a tag with a group (again: nothing changes). */
  share(userId: string, tag: { tag: string; key: string }, groupId: string): void;
  /** Stops sharing; false when it was not shared there. */
  unshare(userId: string, key: string, groupId: string): boolean;
  /** Tags others share with these groups, each with the groups it is shared with; only a sharer still in the group counts. */
  sharedWith(userId: string, groupIds: string[]): { tag: string; key: string; groupId: string }[];
}

export function createTagStore(db: Database): TagStore {
  const group = (rows: TagRow[]) => {
    const out = new Map<string, string[]>();
    for (const r of rows) out.set(r.path, [...(out.get(r.path) ?? []), r.tag]);
    return out;
  };
  return {
    vocabulary: (userId) =>
      db.all<{ name: string; count: number }>(
        'SELECT MIN(tag) AS name, COUNT(*) AS count FROM tags WHERE user_id = ? GROUP BY tag_key ORDER BY tag_key',
        [userId],
      ),
    spelling: (userId, key) =>
      db.get<{ tag: string }>('SELECT tag FROM tags WHERE user_id = ? AND tag_key = ? LIMIT 1', [userId, key])?.tag,
    apply(userId, paths, add, removeKeys) {
      const now = new Date().toISOString();
      db.transaction(() => {
        for (const p of paths) {
          for (const t of add)
            db.run(
              'INSERT INTO tags (user_id, path, tag, tag_key, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
              [userId, p, t.tag, t.key, now],
            );
          for (const key of removeKeys)
            db.run('DELETE FROM tags WHERE user_id = ? AND path = ? AND tag_key = ?', [userId, p, key]);
        }
      });
    },
    pathsWith: (userId, key) =>
      db
        .all<{ path: string }>('SELECT path FROM tags WHERE user_id = ? AND tag_key = ? ORDER BY path', [userId, key])
        .map((r) => r.path),
    tagsOf(userId, paths) {
      const rows: TagRow[] = [];
      for (let i = 0; i < paths.length; i += 500) {
        const part = paths.slice(i, i + 500);
        rows.push(
          ...db.all<TagRow>(
            `SELECT path, tag FROM tags WHERE user_id = ? AND path IN (${part.map(() => '?').join(',')}) ORDER BY tag_key`,
            [userId, ...part],
          ),
        );
      }
      return group(rows);
    },
    childrenOf(userId, folder) {
      if (folder === '')
        return db.all<TagRow>(
          "SELECT path, tag FROM tags WHERE user_id = ? AND instr(path, '/') = 0 ORDER BY tag_key",
          [userId],
        );
      return db.all<TagRow>(
        `SELECT path, tag FROM tags WHERE user_id = ? AND path >= ? AND path < ?
         AND instr(substr(path, length(?) + 1), '/') = 0 ORDER BY tag_key`,
        [userId, folder + '/', folder + '0', folder + '/'],
      );
    },
    rename(userId, key, to) {
      return db.transaction(() => {
        if (key === to.key)
          return db.run('UPDATE tags SET tag = ? WHERE user_id = ? AND tag_key = ?', [to.tag, userId, key]).changes > 0;
        // Rows whose path already carries the new tag are left (both engines read this form).
        const moved = db.run(
          `UPDATE tags SET tag = ?, tag_key = ? WHERE user_id = ? AND tag_key = ?
           AND NOT EXISTS (SELECT 1 FROM tags t WHERE t.user_id = tags.user_id AND t.path = tags.path AND t.tag_key = ?)`,
          [to.tag, to.key, userId, key, to.key],
        ).changes;
        // Paths that already carried the new tag keep that row; the old one goes.
        const merged = db.run('DELETE FROM tags WHERE user_id = ? AND tag_key = ?', [userId, key]).changes;
        db.run('UPDATE tags SET tag = ? WHERE user_id = ? AND tag_key = ?', [to.tag, userId, to.key]);
        // Its sharing follows the new name (merged into the new name's where both were shared).
        db.run(
          `UPDATE tag_groups SET tag = ?, tag_key = ? WHERE user_id = ? AND tag_key = ?
           AND NOT EXISTS (SELECT 1 FROM tag_groups t WHERE t.user_id = tag_groups.user_id
             AND t.group_id = tag_groups.group_id AND t.tag_key = ?)`,
          [to.tag, to.key, userId, key, to.key],
        );
        if (key !== to.key) db.run('DELETE FROM tag_groups WHERE user_id = ? AND tag_key = ?', [userId, key]);
        db.run('UPDATE tag_groups SET tag = ? WHERE user_id = ? AND tag_key = ?', [to.tag, userId, to.key]);
        return moved + merged > 0;
      });
    },
    drop: (userId, key) =>
      db.transaction(() => {
        db.run('DELETE FROM tag_groups WHERE user_id = ? AND tag_key = ?', [userId, key]);
        return db.run('DELETE FROM tags WHERE user_id = ? AND tag_key = ?', [userId, key]).changes;
      }),
    sharedGroups(userId) {
      const out = new Map<string, string[]>();
      for (const r of db.all<{ key: string; groupId: string }>(
        'SELECT tag_key AS key, group_id AS groupId FROM tag_groups WHERE user_id = ? ORDER BY group_id',
        [userId],
      ))
        out.set(r.key, [...(out.get(r.key) ?? []), r.groupId]);
      return out;
    },
    share(userId, tag, groupId) {
      db.run(
        'INSERT INTO tag_groups (user_id, tag_key, tag, group_id, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
        [userId, tag.key, tag.tag, groupId, new Date().toISOString()],
      );
    },
    unshare: (userId, key, groupId) =>
      db.run('DELETE FROM tag_groups WHERE user_id = ? AND tag_key = ? AND group_id = ?', [userId, key, groupId])
        .changes > 0,
    sharedWith(userId, groupIds) {
      if (groupIds.length === 0) return [];
      return db.all<{ tag: string; key: string; groupId: string }>(
        `SELECT g.tag AS tag, g.tag_key AS key, g.group_id AS groupId FROM tag_groups g
         JOIN access_group_members m ON m.group_id = g.group_id AND m.user_id = g.user_id
         WHERE g.user_id != ? AND g.group_id IN (${groupIds.map(() => '?').join(',')})
         ORDER BY g.tag_key, g.group_id`,
        [userId, ...groupIds],
      );
    },
  };
}

/** Tags follow their path (files/bindings.ts). */
export const tagBindings = (db: Database): BindingTable => pathTable(db, 'tags');

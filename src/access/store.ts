// The access model's rows: groups, their members, and the per-folder rules (003_access_model.sql).
import { randomUUID } from 'node:crypto';
import { foldName } from '../core/fold.ts';
import { isUniqueViolation, type Database } from '../db/database.ts';
import { LEVELS, type AccessLevel } from '../files/access.ts';
import type { BindingTable } from '../files/bindings.ts';
import type { Rule } from './decide.ts';

export interface GroupRow {
  id: string;
  name: string;
  createdAt: string;
  updatedAt: string;
}

interface RuleRow {
  id: string;
  path: string;
  subject_kind: Rule['subjectKind'];
  subject_id: string;
  level: AccessLevel;
  inherit: number;
}

const toRule = (r: RuleRow): Rule => ({
  id: r.id,
  path: r.path,
  subjectKind: r.subject_kind,
  subjectId: r.subject_id,
  level: r.level,
  inherit: r.inherit === 1,
});

export type AccessStore = ReturnType<typeof createAccessStore>;

export function createAccessStore(db: Database) {
  const now = () => new Date().toISOString();
  // Groups from before access/005_group_name_key.sql get their keys (none to write at every later
  // start), in the order of their ids as UsersStore's accounts (instances starting together).
  const unkeyed = db.all<{ id: string; name: string }>(
    'SELECT id, name FROM access_groups WHERE name_key IS NULL ORDER BY id',
  );
  if (unkeyed.length)
    db.transaction(() => {
      for (const g of unkeyed)
        db.run('UPDATE access_groups SET name_key = ? WHERE id = ? AND name_key IS NULL', [foldName(g.name), g.id]);
    });
  const groupOf = (r: { id: string; name: string; created_at: string; updated_at: string }): GroupRow => ({
    id: r.id,
    name: r.name,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  });
  return {
    groups: (): GroupRow[] =>
      db
        .all<{ id: string; name: string; created_at: string; updated_at: string }>(
          'SELECT * FROM access_groups ORDER BY name',
        )
        .map(groupOf),
    group(id: string): GroupRow | undefined {
      const r = db.get<{ id: string; name: string; created_at: string; updated_at: string }>(
        'SELECT * FROM access_groups WHERE id = ?',
        [id],
      );
      return r ? groupOf(r) : undefined;
    },
    /**
     * The group of that name whatever its case, in every script (Jürgen and JÜRGEN): the
     * column's `nocase` folds ASCII alone on SQLite (PostgreSQL's folds all), so a group is
     * found by its folded key (access/005_group_name_key.sql) — or, written before the key,
     * by its name compared here.
     */
    groupNamed(name: string): GroupRow | undefined {
      const wanted = foldName(name);
      const r = db
        .all<{ id: string; name: string; created_at: string; updated_at: string }>(
          'SELECT id, name, created_at, updated_at FROM access_groups WHERE name_key = ? OR name_key IS NULL ORDER BY created_at',
          [wanted],
        )
        .find((g) => foldName(g.name) === wanted);
      return r ? groupOf(r) : undefined;
    },
    /**
     * A new group, or undefined when the name is taken — whatever its case, and also by another
     * instance's request at the same moment (the unique name decides, never a read before).
     */
    addGroup(name: string): GroupRow | undefined {
      const id = randomUUID();
      const at = now();
      const made = db.run(
        'INSERT INTO access_groups (id, name, name_key, created_at, updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
        [id, name, foldName(name), at, at],
      ).changes;
      return made ? { id, name, createdAt: at, updatedAt: at } : undefined;
    },
    /**
     * The group named `name`, made when there is none (`made`: by this call). A directory's
     * sign-ins on several instances at once may make the same group: the unique name decides —
     * the insert of the one that comes second waits for the first's and does nothing, and the
     * statement after it reads the group the first made (READ COMMITTED).
     */
    groupNamedOrMade(name: string): { group: GroupRow; made: boolean } {
      const at = now();
      const made =
        db.run(
          'INSERT INTO access_groups (id, name, name_key, created_at, updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
          [randomUUID(), name, foldName(name), at, at],
        ).changes > 0;
      const r = db.get<{ id: string; name: string; created_at: string; updated_at: string }>(
        'SELECT * FROM access_groups WHERE name = ?',
        [name],
      );
      return { group: groupOf(r!), made };
    },
    /** Renames a group; 'taken' when another group has the name (the unique name decides, as for addGroup). */
    renameGroup(id: string, name: string): 'renamed' | 'missing' | 'taken' {
      try {
        const n = db.run('UPDATE access_groups SET name = ?, name_key = ?, updated_at = ? WHERE id = ?', [
          name,
          foldName(name),
          now(),
          id,
        ]).changes;
        return n ? 'renamed' : 'missing';
      } catch (err) {
        if (isUniqueViolation(err)) return 'taken';
        throw err;
      }
    },
    /** The group, its memberships and its rules, in one transaction. */
    removeGroup: (id: string): boolean =>
      db.transaction(() => {
        db.run("DELETE FROM access_rules WHERE subject_kind = 'group' AND subject_id = ?", [id]);
        return db.run('DELETE FROM access_groups WHERE id = ?', [id]).changes > 0;
      }),
    /** Every membership; `source` names the directory that made it (null: added by hand). */
    memberships: (): { groupId: string; userId: string; source: string | null }[] =>
      db.all<{ groupId: string; userId: string; source: string | null }>(
        'SELECT group_id AS groupId, user_id AS userId, source FROM access_group_members',
      ),
    /** A membership added by hand: a new one, or a directory's one that becomes the administrator's (kept by sign-ins). */
    addMember: (groupId: string, userId: string): boolean =>
      db.transaction(() => {
        db.run(
          'UPDATE access_group_members SET source = NULL WHERE group_id = ? AND user_id = ? AND source IS NOT NULL',
          [groupId, userId],
        );
        return (
          db.run(
            'INSERT INTO access_group_members (group_id, user_id, added_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
            [groupId, userId, now()],
          ).changes > 0
        );
      }),
    /** The groups an account is in (any source), and which of them a directory made. */
    membershipsOf: (userId: string): { groupId: string; source: string | null }[] =>
      db.all<{ groupId: string; source: string | null }>(
        'SELECT group_id AS groupId, source FROM access_group_members WHERE user_id = ?',
        [userId],
      ),
    addDirectoryMember: (groupId: string, userId: string, source: string): boolean =>
      db.run(
        'INSERT INTO access_group_members (group_id, user_id, added_at, source) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
        [groupId, userId, now(), source],
      ).changes > 0,
    removeDirectoryMember: (groupId: string, userId: string, source: string): boolean =>
      db.run('DELETE FROM access_group_members WHERE group_id = ? AND user_id = ? AND source = ?', [
        groupId,
        userId,
        source,
      ]).changes > 0,
    transaction: <T>(fn: () => T): T => db.transaction(fn),
    removeMember: (groupId: string, userId: string): boolean =>
      db.run('DELETE FROM access_group_members WHERE group_id = ? AND user_id = ?', [groupId, userId]).changes > 0,
    accountExists: (userId: string): boolean =>
      db.get('SELECT 1 AS one FROM users WHERE id = ?', [userId]) !== undefined,
    accounts: (): { id: string; username: string }[] =>
      db.all<{ id: string; username: string }>('SELECT id, username FROM users ORDER BY username'),
    /** An account's rules go with it (memberships cascade). */
    forgetAccount: (userId: string): void =>
      void db.run("DELETE FROM access_rules WHERE subject_kind = 'account' AND subject_id = ?", [userId]),

    rules: (): Rule[] =>
      db.all<RuleRow>('SELECT * FROM access_rules ORDER BY path, subject_kind, subject_id').map(toRule),
    /** Everyone's rules in the order they were written (the settings' list keeps its order). */
    everyoneRules: (): Rule[] =>
      db.all<RuleRow>("SELECT * FROM access_rules WHERE subject_kind = 'everyone' ORDER BY rowid").map(toRule),
    rule(id: string): Rule | undefined {
      const r = db.get<RuleRow>('SELECT * FROM access_rules WHERE id = ?', [id]);
      return r ? toRule(r) : undefined;
    },
    /** One rule per folder and subject: a second one for the same pair replaces the first's level. */
    putRule(input: Omit<Rule, 'id'>): Rule {
      const at = now();
      db.run(
        `INSERT INTO access_rules (id, path, subject_kind, subject_id, level, inherit, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (path, subject_kind, subject_id) DO UPDATE SET level = excluded.level, inherit = excluded.inherit, updated_at = excluded.updated_at`,
        [randomUUID(), input.path, input.subjectKind, input.subjectId, input.level, input.inherit ? 1 : 0, at, at],
      );
      return toRule(
        db.get<RuleRow>('SELECT * FROM access_rules WHERE path = ? AND subject_kind = ? AND subject_id = ?', [
          input.path,
          input.subjectKind,
          input.subjectId,
        ])!,
      );
    },
    removeRule: (id: string): boolean => db.run('DELETE FROM access_rules WHERE id = ?', [id]).changes > 0,
    /**
     * Rules follow their folder when it is renamed or moved (files/bindings.ts, in the move's
     * transaction); met at the destination by a rule for the same person, the lower level stays.
     * A deletion keeps them: a folder restored from the trash is as hidden as it was. Personal
     * folders' paths are every account's own, so their rules stay where they are.
     */
    binding(onChange: () => void): BindingTable {
      return {
        forget: () => 0,
        carry(from, to, scope) {
          if (scope.userId !== null) return;
          const f = from.normalize('NFC');
          const t = to.normalize('NFC');
          const moving = db.all<RuleRow>('SELECT * FROM access_rules').filter((r) => {
            const p = r.path.normalize('NFC');
            return p === f || p.startsWith(f + '/');
          });
          if (moving.length === 0) return;
          for (const r of moving) {
            const next = t + r.path.normalize('NFC').slice(f.length);
            const there = db.get<RuleRow>(
              'SELECT * FROM access_rules WHERE path = ? AND subject_kind = ? AND subject_id = ? AND id <> ?',
              [next, r.subject_kind, r.subject_id, r.id],
            );
            if (there) {
              if (LEVELS.indexOf(r.level) < LEVELS.indexOf(there.level))
                db.run('UPDATE access_rules SET level = ?, updated_at = ? WHERE id = ?', [r.level, now(), there.id]);
              db.run('DELETE FROM access_rules WHERE id = ?', [r.id]);
            } else db.run('UPDATE access_rules SET path = ?, updated_at = ? WHERE id = ?', [next, now(), r.id]);
          }
          onChange();
        },
      };
    },
    /** Everyone's rules replaced by `rules` (the installation settings' list), in one transaction. */
    replaceEveryone(rules: (Omit<Rule, 'subjectKind' | 'subjectId'> & { id: string })[]): void {
      db.transaction(() => {
        db.run("DELETE FROM access_rules WHERE subject_kind = 'everyone'");
        const at = now();
        for (const r of rules)
          db.run(
            `INSERT INTO access_rules (id, path, subject_kind, subject_id, level, inherit, created_at, updated_at)
             VALUES (?, ?, 'everyone', '', ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
            [r.id, r.path, r.level, r.inherit ? 1 : 0, at, at],
          );
      });
    },
  };
}

// The quotas an administrator set (`account_quotas`, `volume_quotas`, `group_quotas`): a limit in
// bytes per account id or per volume name, and a group's default for its members. Held in the
// configuration cache (cluster/config-cache.ts): every upload chunk asks them, and on PostgreSQL
// a quota set through one instance holds on the next request through any other (the quota
// tables move the configuration's version, 004_config_version.pg.sql beside this file).
import type { ConfigCache } from '../cluster/config-cache.ts';
import type { Database } from '../db/database.ts';

export interface QuotaStore {
  /** The account's limit, or null when it has none. */
  account(userId: string): number | null;
  /** The volume's limit (by name, case-insensitive), or null. */
  volume(name: string): number | null;
  /** A group's default for its members without a quota of their own, or null. */
  group(groupId: string): number | null;
  setAccount(userId: string, limitBytes: number | null): void;
  setGroup(groupId: string, limitBytes: number | null): void;
  setVolume(name: string, limitBytes: number | null): void;
  accounts(): { userId: string; limitBytes: number }[];
  volumes(): { volume: string; limitBytes: number }[];
}

interface Limits {
  byAccount: Map<string, number>;
  byVolume: Map<string, { volume: string; limitBytes: number }>;
  byGroup: Map<string, number>;
}

export function createQuotaStore(db: Database, cache: ConfigCache): QuotaStore {
  function read(): Limits {
    const limits: Limits = { byAccount: new Map(), byVolume: new Map(), byGroup: new Map() };
    for (const r of db.all<{ group_id: string; limit_bytes: number }>('SELECT group_id, limit_bytes FROM group_quotas'))
      limits.byGroup.set(r.group_id, r.limit_bytes);
    for (const r of db.all<{ user_id: string; limit_bytes: number }>('SELECT user_id, limit_bytes FROM account_quotas'))
      limits.byAccount.set(r.user_id, r.limit_bytes);
    for (const r of db.all<{ volume: string; limit_bytes: number }>('SELECT volume, limit_bytes FROM volume_quotas'))
      limits.byVolume.set(r.volume.toLowerCase(), { volume: r.volume, limitBytes: r.limit_bytes });
    return limits;
  }
  const limits = () => cache.read('quotas', read);
  /** This instance changed a quota: every cached entry is read again (the others by the version row). */
  const load = () => cache.drop();
  return {
    account: (userId) => limits().byAccount.get(userId) ?? null,
    volume: (name) => limits().byVolume.get(name.toLowerCase())?.limitBytes ?? null,
    group: (groupId) => limits().byGroup.get(groupId) ?? null,
    setGroup(groupId, limitBytes) {
      if (limitBytes === null) db.run('DELETE FROM group_quotas WHERE group_id = ?', [groupId]);
      else
        db.run(
          'INSERT INTO group_quotas (group_id, limit_bytes, updated_at) VALUES (?, ?, ?) ON CONFLICT (group_id) DO UPDATE SET limit_bytes = excluded.limit_bytes, updated_at = excluded.updated_at',
          [groupId, limitBytes, new Date().toISOString()],
        );
      load();
    },
    setAccount(userId, limitBytes) {
      if (limitBytes === null) db.run('DELETE FROM account_quotas WHERE user_id = ?', [userId]);
      else
        db.run(
          'INSERT INTO account_quotas (user_id, limit_bytes, updated_at) VALUES (?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET limit_bytes = excluded.limit_bytes, updated_at = excluded.updated_at',
          [userId, limitBytes, new Date().toISOString()],
        );
      load();
    },
    setVolume(name, limitBytes) {
      if (limitBytes === null) db.run('DELETE FROM volume_quotas WHERE volume = ?', [name]);
      else
        db.run(
          'INSERT INTO volume_quotas (volume, limit_bytes, updated_at) VALUES (?, ?, ?) ON CONFLICT (volume) DO UPDATE SET volume = excluded.volume, limit_bytes = excluded.limit_bytes, updated_at = excluded.updated_at',
          [name, limitBytes, new Date().toISOString()],
        );
      load();
    },
    accounts: () => [...limits().byAccount].map(([userId, limitBytes]) => ({ userId, limitBytes })),
    volumes: () => [...limits().byVolume.values()],
  };
}

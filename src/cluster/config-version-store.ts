// The configuration's version row (cluster_config_version, moved up by the triggers of
// 004_config_version.pg.sql in every writer's transaction): what config-cache.ts reads to know
// whether its entries are current.
import type { Database } from '../db/database.ts';

export interface ConfigVersionStore {
  /** The version of `name` (0 before any change was recorded). */
  version(name: string): number;
}

export function createConfigVersionStore(db: Database): ConfigVersionStore {
  return {
    version: (name) =>
      Number(
        db.get<{ version: number | string }>('SELECT version FROM cluster_config_version WHERE name = ?', [name])
          ?.version ?? 0,
      ),
  };
}

// The cluster's shared secrets (cluster_secrets), sealed; the store never sees a plain value.
import type { Database } from '../db/database.ts';

export interface SecretStore {
  /** The sealed value of `name`, if any instance stored it. */
  get(name: string): string | undefined;
  /** Stores `sealed` unless another instance got there first; answers the value that stays. */
  claim(name: string, sealed: string, at: string): string;
}

export function createSecretStore(db: Database): SecretStore {
  const get = (name: string) =>
    db.get<{ sealed: string }>('SELECT sealed FROM cluster_secrets WHERE name = ?', [name])?.sealed;
  return {
    get,
    claim(name, sealed, at) {
      db.run('INSERT INTO cluster_secrets (name, sealed, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', [
        name,
        sealed,
        at,
      ]);
      return get(name)!;
    },
  };
}

// The staging folders uploads have used (`upload_staging_dirs`), so that leftovers of a crash
// are found and removed at the next start (staging.ts).
import type { Database } from '../db/database.ts';

export interface StagingDirStore {
  all(): string[];
  /** Records a folder (once). */
  add(dir: string): void;
}

export function createStagingDirStore(db: Database): StagingDirStore {
  return {
    all: () => db.all<{ dir: string }>('SELECT dir FROM upload_staging_dirs').map((r) => r.dir),
    add: (dir) => void db.run('INSERT INTO upload_staging_dirs (dir) VALUES (?) ON CONFLICT DO NOTHING', [dir]),
  };
}

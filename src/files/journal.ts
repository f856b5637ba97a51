// Work that builds something under a hidden temporary name before placing it (an extraction's
// tree) writes one row here first. A crash before the row is ended leaves the row: at the next
// start the transfer's recovery removes the temporary (phase 'copying', nothing to remove at
// the source), so a half-built tree never survives a restart, hidden or not.
import { randomUUID } from 'node:crypto';
import type { Database } from '../db/database.ts';

export interface WorkJournal {
  /** Records that `tempReal` (a real path) is being built; returns the row to end. */
  begin(tempReal: string): string;
  /** The temporary was placed, or removed: nothing is left to roll back. */
  end(id: string): void;
}

export function createWorkJournal(db: Database): WorkJournal {
  return {
    begin(tempReal) {
      const id = randomUUID();
      db.run(
        'INSERT INTO file_op_journal (id, phase, temp_path, source_path, remove_source, started_at) VALUES (?, ?, ?, ?, ?, ?)',
        [id, 'copying', tempReal, '', 0, new Date().toISOString()],
      );
      return id;
    },
    end(id) {
      db.run('DELETE FROM file_op_journal WHERE id = ?', [id]);
    },
  };
}

// The work journal's rows (`file_op_journal`): one per temporary being built in a user's folder
// (journal.ts says what they are for and transfer.ts's recovery reads what a crash left).
import { randomUUID } from 'node:crypto';
import type { Database } from '../db/database.ts';

export interface JournalRow {
  id: string;
  phase: 'copying' | 'placed';
  temp_path: string;
  source_path: string;
  remove_source: number;
}

export interface WorkJournal {
  /** Records that `tempReal` is being built (and, for a move, the source to remove); returns the row. */
  begin(tempReal: string, source?: string): string;
  /** A move's copy took its name `placedReal`: what is left is removing the source. */
  placed(id: string, placedReal: string): void;
  /** Done, or rolled back: nothing is left to do. */
  end(id: string): void;
  /** The rows a crash left. */
  left(): JournalRow[];
}

export function createWorkJournal(db: Database): WorkJournal {
  return {
    begin(tempReal, source) {
      const id = randomUUID();
      db.run(
        'INSERT INTO file_op_journal (id, phase, temp_path, source_path, remove_source, started_at) VALUES (?, ?, ?, ?, ?, ?)',
        [id, 'copying', tempReal, source ?? '', source ? 1 : 0, new Date().toISOString()],
      );
      return id;
    },
    placed(id, placedReal) {
      db.run("UPDATE file_op_journal SET phase = 'placed', temp_path = ? WHERE id = ?", [placedReal, id]);
    },
    end(id) {
      db.run('DELETE FROM file_op_journal WHERE id = ?', [id]);
    },
    left: () => db.all<JournalRow>('SELECT id, phase, temp_path, source_path, remove_source FROM file_op_journal'),
  };
}

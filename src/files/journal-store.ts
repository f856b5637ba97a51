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
  /** The instance that wrote it (cluster/leases.ts; '' before instances were named). */
  owner: string;
}

export interface WorkJournal {
  /** Records that `tempReal` is being built (and, for a move, the source to remove); returns the row. */
  begin(tempReal: string, source?: string): string;
  /** A move's copy took its name `placedReal`: what is left is removing the source. */
  placed(id: string, placedReal: string): void;
  /** Done, or rolled back: nothing is left to do. */
  end(id: string): void;
  /** The rows left by instances that are not alive (a crash, or an instance gone from a cluster). */
  left(): JournalRow[];
  /** Takes `row` over from its dead owner; false when another instance took it first. */
  claim(row: JournalRow): boolean;
  /** Whether a live instance (this one or another) is building `tempReal` now. */
  building(tempReal: string): boolean;
}

/** Who writes the rows, and whether a row's writer still lives (cluster/leases.ts). */
export interface JournalOwner {
  readonly instance: string;
  alive(owner: string): boolean;
}

export function createWorkJournal(db: Database, owner: JournalOwner): WorkJournal {
  return {
    begin(tempReal, source) {
      const id = randomUUID();
      db.run(
        'INSERT INTO file_op_journal (id, phase, temp_path, source_path, remove_source, started_at, owner) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [id, 'copying', tempReal, source ?? '', source ? 1 : 0, new Date().toISOString(), owner.instance],
      );
      return id;
    },
    placed(id, placedReal) {
      db.run("UPDATE file_op_journal SET phase = 'placed', temp_path = ? WHERE id = ?", [placedReal, id]);
    },
    end(id) {
      db.run('DELETE FROM file_op_journal WHERE id = ?', [id]);
    },
    left() {
      const rows = db.all<JournalRow>(
        'SELECT id, phase, temp_path, source_path, remove_source, owner FROM file_op_journal WHERE owner <> ?',
        [owner.instance],
      );
      const alive = new Map<string, boolean>();
      return rows.filter((r) => {
        if (!alive.has(r.owner)) alive.set(r.owner, owner.alive(r.owner));
        return !alive.get(r.owner);
      });
    },
    building: (tempReal) =>
      db
        .all<{ owner: string }>('SELECT owner FROM file_op_journal WHERE temp_path = ?', [tempReal])
        .some((r) => r.owner === owner.instance || owner.alive(r.owner)),
    claim: (row) =>
      db.run('UPDATE file_op_journal SET owner = ? WHERE id = ? AND owner = ?', [owner.instance, row.id, row.owner])
        .changes === 1,
  };
}

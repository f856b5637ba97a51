// A work journal for unit tests: rows kept in memory, and at each begin and end whether the
// temporary existed on disk. The rule a crash relies on: the row is written before the
// temporary exists and ended only once it is gone (placed under its name, or removed).
import fs from 'node:fs';
import type { JournalRow, WorkJournal } from '../../src/files/journal.ts';

export interface JournalStep {
  step: 'begin' | 'end';
  temp: string;
  /** Whether something was at `temp` at that moment. */
  existed: boolean;
}

export interface RecordingJournal extends WorkJournal {
  readonly steps: JournalStep[];
  /** The temporaries whose rows are open now. */
  open(): string[];
}

export function recordingJournal(): RecordingJournal {
  const rows = new Map<string, JournalRow>();
  const steps: JournalStep[] = [];
  let next = 0;
  return {
    steps,
    open: () => [...rows.values()].map((r) => r.temp_path),
    begin(tempReal, source) {
      const id = `row-${++next}`;
      steps.push({ step: 'begin', temp: tempReal, existed: fs.existsSync(tempReal) });
      rows.set(id, {
        id,
        phase: 'copying',
        temp_path: tempReal,
        source_path: source ?? '',
        remove_source: source ? 1 : 0,
        owner: 'unit',
      });
      return id;
    },
    placed(id, placedReal) {
      const row = rows.get(id);
      if (row) rows.set(id, { ...row, phase: 'placed', temp_path: placedReal });
    },
    end(id) {
      const row = rows.get(id);
      if (!row) return;
      steps.push({ step: 'end', temp: row.temp_path, existed: fs.existsSync(row.temp_path) });
      rows.delete(id);
    },
    left: () => [...rows.values()],
    claim: (row) => rows.has(row.id),
    building: (tempReal) => [...rows.values()].some((r) => r.temp_path === tempReal),
  };
}

/** The steps as `begin:<existed> end:<existed>` pairs, one per temporary, for assert.equal. */
export function journalled(journal: RecordingJournal): string[] {
  const byTemp = new Map<string, string[]>();
  for (const s of journal.steps) byTemp.set(s.temp, [...(byTemp.get(s.temp) ?? []), `${s.step}:${s.existed}`]);
  return [...byTemp.values()].map((v) => v.join(' '));
}

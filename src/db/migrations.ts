// Numbered migrations. Each capability keeps its own SQL beside its code
// (`src/<capability>/NNN_name.sql`); they run in number order (then capability name) at
// startup, all pending ones in one transaction: a failing migration changes nothing and
// stops startup with a message naming it.
import fs from 'node:fs';
import path from 'node:path';
import { readEmbeddedAsset } from '../assets.ts';
import type { Database } from './database.ts';

export interface Migration {
  /** `<capability>/<NNN_name>`, e.g. `auth/001_users`. */
  readonly id: string;
  readonly sql: string;
}

export class MigrationError extends Error {}

const FILE = /^(\d{3})_[A-Za-z0-9_-]+\.sql$/;

function order(a: Migration, b: Migration): number {
  const [ca, na] = a.id.split('/') as [string, string];
  const [cb, nb] = b.id.split('/') as [string, string];
  return na.slice(0, 3).localeCompare(nb.slice(0, 3)) || ca.localeCompare(cb) || na.localeCompare(nb);
}

/**
 * Reads every `src/<capability>/NNN_name.sql` and `src/plugins/<plugin>/NNN_name.sql` below
 * `srcDir`. A plugin's tables exist whether or not it is configured, so turning it on later
 * needs no separate migration step (id `<plugin>/NNN_name`).
 */
export function collectMigrations(srcDir: string): Migration[] {
  const out: Migration[] = [];
  const plugins = path.join(srcDir, 'plugins');
  const folders = fs.readdirSync(srcDir, { withFileTypes: true }).filter((e) => e.isDirectory() && e.name !== 'plugins').map((e) => ({ name: e.name, dir: path.join(srcDir, e.name) }));
  if (fs.existsSync(plugins)) {
    for (const e of fs.readdirSync(plugins, { withFileTypes: true })) if (e.isDirectory()) folders.push({ name: e.name, dir: path.join(plugins, e.name) });
  }
  for (const entry of folders) {
    const dir = entry.dir;
    for (const file of fs.readdirSync(dir)) {
      if (FILE.test(file)) out.push({ id: `${entry.name}/${file.slice(0, -4)}`, sql: fs.readFileSync(path.join(dir, file), 'utf8') });
    }
  }
  return out.sort(order);
}

/** The migrations of this build: embedded in the executable, or read from the source tree. */
export function loadMigrations(): Migration[] {
  const embedded = readEmbeddedAsset('migrations.json');
  if (embedded) return (JSON.parse(embedded.toString('utf8')) as Migration[]).sort(order);
  return collectMigrations(path.join(path.dirname(new URL(import.meta.url).pathname), '..'));
}

export function runMigrations(db: Database, migrations: readonly Migration[]): string[] {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at TEXT NOT NULL)');
  const applied = new Set(db.all<{ id: string }>('SELECT id FROM schema_migrations').map((r) => r.id));
  const pending = [...migrations].sort(order).filter((m) => !applied.has(m.id));
  if (pending.length === 0) return [];
  let current = '';
  try {
    db.transaction(() => {
      for (const m of pending) {
        current = m.id;
        db.exec(m.sql);
        db.run('INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)', [m.id, new Date().toISOString()]);
      }
    });
  } catch (err) {
    throw new MigrationError(`Database migration ${current} failed, nothing was changed: ${(err as Error).message}`);
  }
  return pending.map((m) => m.id);
}

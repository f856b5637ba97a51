// The indexes live in their own file (CACHE_DIR/index.db), ATTACHed to the one connection as
// schema `idx`. They are rebuildable from the disks, so they trade durability for speed:
// synchronous=OFF (no fsync, not even at checkpoints) in WAL like the main file (a killed
// process leaves a WAL that SQLite replays at the next open; only a power loss can damage the
// file). WAL rather than the persistent rollback journal of earlier builds: each changed page is
// appended once instead of copied to the journal first — 200,000 index rows in 1,000-row
// transactions took 2.2–3.4 s against 2.4–4.0 s, their updates 0.56–0.78 s against 0.69–0.94 s.
// A missing, unreadable or damaged file is deleted and rebuilt at startup.
//
// The schema lives here rather than in the numbered migrations: the main migrations describe
// data that must survive, while this file's layout is versioned by INDEX_FORMAT (a mismatch
// drops the whole file and walks again), which also covers a file from an older build.
import fs from 'node:fs';
import { removeDatabaseFiles, type Database } from '../db/database.ts';
import type { Logger } from '../core/log.ts';

export const INDEX_SCHEMA = 'idx';

/** Bump when the rows' meaning or the layout changes: the next start rebuilds every index once. */
export const INDEX_FORMAT = 4;

const SCHEMA_SQL = `
CREATE TABLE idx.idx_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE idx.idx_roots (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,          -- absolute real path of the indexed root
  state TEXT NOT NULL,                -- 'pending' (baseline due) | 'sized' (folder sizes known, catalogue filling) | 'ready'
  walked_at INTEGER,                  -- ms: end of the last complete baseline walk
  created_at INTEGER NOT NULL
);
-- One row per folder and file, keyed by (root, parent folder relative to the root, name); the
-- root's own row has dir = '' and name = ''. AUTOINCREMENT: ids only grow, so the rows written
-- by one batch are exactly those above the largest id before it (the name index follows them).
CREATE TABLE idx.idx_entries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  root_id INTEGER NOT NULL,
  dir TEXT NOT NULL,
  name TEXT NOT NULL,
  key TEXT NOT NULL,                  -- lower-cased NFC name, for exact and prefix lookups
  is_dir INTEGER NOT NULL,
  size INTEGER NOT NULL,              -- file: bytes; folder: bytes of its direct files
  mtime INTEGER NOT NULL,             -- ms
  entries INTEGER,                    -- folder: direct entries
  total_size INTEGER,                 -- folder: bytes of every file below it
  total_entries INTEGER,              -- folder: every file and folder below it
  complete INTEGER,                   -- folder: 1 when the whole subtree could be read
  checked_at INTEGER,                 -- ms a walk last wrote the row (a folder: or last listed it)
  updated_at INTEGER,                 -- folder: ms its figures last changed
  UNIQUE (root_id, dir, name)
);
CREATE INDEX idx.idx_entries_key ON idx_entries(key);
CREATE INDEX idx.idx_entries_check ON idx_entries(checked_at) WHERE is_dir = 1;
-- Names by substring (trigram). Contentless with deletes: rows are removed by rowid alone and
-- the names are not stored twice; matches are joined back to idx_entries.
CREATE VIRTUAL TABLE idx.idx_names USING fts5(name, content='', contentless_delete=1, tokenize='trigram');
-- Text of documents (rowid = the file's idx_entries id), ranked with bm25.
CREATE VIRTUAL TABLE idx.idx_docs USING fts5(body, tokenize='unicode61 remove_diacritics 2');
-- What became of each document of an extracted kind (PDF, EPUB, RTF, HTML, office; rowid = the
-- file's idx_entries id): the administrator's view of the content index (extract.ts DocStatus).
CREATE TABLE idx.idx_doc_state (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,                 -- 'pdf' | 'epub' | 'rtf' | 'html' | 'office'
  status TEXT NOT NULL,               -- 'indexed' | 'empty' | 'no-text-layer' | 'encrypted' | 'broken' | 'too-large' | 'timed-out' | 'deferred'
  pages INTEGER,                      -- PDF pages, EPUB chapters
  at INTEGER NOT NULL                 -- ms: when it was read
);
CREATE INDEX idx.idx_doc_state_status ON idx_doc_state(status, at);
-- What a photo or a song says about itself, for search (rowid = the file's idx_entries id;
-- metadata/read.ts readSearchFacts). A row: the file was read as it is now (its facts may all
-- be null). The *_key columns are lower-cased NFC, for taken:/camera:/artist:/album:.
CREATE TABLE idx.idx_media (
  id INTEGER PRIMARY KEY,
  taken INTEGER,                      -- ms: date taken, the camera's clock read as UTC
  camera TEXT,
  camera_key TEXT,
  artist TEXT,
  artist_key TEXT,
  album TEXT,
  album_key TEXT
);
CREATE INDEX idx.idx_media_taken ON idx_media(taken) WHERE taken IS NOT NULL;
`;

/** Attaches the index file, checking it; returns why it was rebuilt (null: kept as it was). */
export function openIndexFile(db: Database, file: string, log: Logger, rebuild = false): string | null {
  // The caller holds Burrow's instance lock, so a SQLite lock directory is a crash's leftover.
  fs.rmSync(`${file}.lock`, { recursive: true, force: true });
  let reason: string | null = rebuild ? 'FOLDER_SIZE_REBUILD' : fs.existsSync(file) ? null : 'missing';
  if (reason === null) {
    try {
      fs.accessSync(file, fs.constants.R_OK | fs.constants.W_OK);
      db.attach(file, INDEX_SCHEMA);
      const tables = db
        .all<{ name: string }>("SELECT name FROM idx.sqlite_master WHERE type = 'table'")
        .map((r) => r.name);
      if (!tables.includes('idx_meta') || !tables.includes('idx_entries')) throw new Error('not an index file');
      const format = db.get<{ value: string }>("SELECT value FROM idx.idx_meta WHERE key = 'format'")?.value;
      if (format !== String(INDEX_FORMAT)) reason = `format ${format ?? 'unknown'}`;
      // After an unclean stop, look at every page once (a clean stop skips this).
      else if (db.get<{ value: string }>("SELECT value FROM idx.idx_meta WHERE key = 'open'")?.value === '1') {
        const check = db.get<{ quick_check: string }>('PRAGMA idx.quick_check(1)')?.quick_check;
        if (check !== 'ok') reason = 'damaged';
      }
    } catch (err) {
      reason = `unreadable (${(err as Error).message})`;
    }
    if (reason !== null) {
      try {
        db.detach(INDEX_SCHEMA);
      } catch {
        /* was not attached */
      }
    }
  }
  if (reason !== null) {
    if (reason !== 'missing') log.info('rebuilding the folder-size and search indexes', { reason, to: INDEX_FORMAT });
    removeDatabaseFiles(file);
    db.attach(file, INDEX_SCHEMA);
  }
  db.exec(
    `PRAGMA ${INDEX_SCHEMA}.synchronous = OFF; PRAGMA ${INDEX_SCHEMA}.journal_mode = WAL; PRAGMA ${INDEX_SCHEMA}.journal_size_limit = ${16 * 1024 * 1024}; PRAGMA ${INDEX_SCHEMA}.cache_size = -16000;`,
  );
  // An earlier build's persistent journal (rolled back, if hot, by the reads above) is not used in WAL.
  fs.rmSync(`${file}-journal`, { force: true });
  if (reason !== null) {
    db.transaction(() => {
      db.exec(SCHEMA_SQL);
      db.run("INSERT INTO idx.idx_meta (key, value) VALUES ('format', ?)", [String(INDEX_FORMAT)]);
    });
  }
  db.run(
    "INSERT INTO idx.idx_meta (key, value) VALUES ('open', '1') ON CONFLICT (key) DO UPDATE SET value = excluded.value",
  );
  return reason;
}

/** Marks a clean stop (the next start skips the page check). */
export function closeIndexFile(db: Database): void {
  if (!db.isOpen) return;
  try {
    db.run("UPDATE idx.idx_meta SET value = '0' WHERE key = 'open'");
  } catch {
    /* the file went away: the next start rebuilds it */
  }
}

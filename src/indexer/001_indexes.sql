-- The indexes: one catalogue of folders and files per indexed root (folder sizes and the
-- name catalogue share it), a trigram index over names, and a word index over document text.
-- Rows are keyed by (root, parent folder relative to the root, name); the root's own row has
-- dir = '' and name = ''. Paths use '/' whatever the host.
CREATE TABLE idx_meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE idx_roots (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,          -- absolute real path of the indexed root
  state TEXT NOT NULL,                -- 'pending' (baseline due) | 'ready'
  walked_at INTEGER,                  -- ms: end of the last complete baseline walk
  created_at INTEGER NOT NULL
);

CREATE TABLE idx_entries (
  id INTEGER PRIMARY KEY,
  root_id INTEGER NOT NULL REFERENCES idx_roots(id) ON DELETE CASCADE,
  dir TEXT NOT NULL,                  -- parent folder relative to the root ('' = the root)
  name TEXT NOT NULL,
  key TEXT NOT NULL,                  -- lower-cased name, for exact and prefix lookups
  is_dir INTEGER NOT NULL,
  size INTEGER NOT NULL,              -- file: bytes; folder: bytes of its direct files
  mtime INTEGER NOT NULL,             -- ms
  entries INTEGER,                    -- folder: direct entries
  total_size INTEGER,                 -- folder: bytes of every file below it
  total_entries INTEGER,              -- folder: every file and folder below it
  complete INTEGER,                   -- folder: 1 when the whole subtree could be read
  checked_at INTEGER,                 -- folder: ms of the last listing
  updated_at INTEGER,                 -- folder: ms its figures last changed
  UNIQUE (root_id, dir, name)
);
CREATE INDEX idx_entries_key ON idx_entries(key);
CREATE INDEX idx_entries_check ON idx_entries(is_dir, checked_at) WHERE is_dir = 1;

-- Text of documents (rowid = the file's idx_entries id), ranked with bm25.
CREATE VIRTUAL TABLE idx_docs USING fts5(body, tokenize='unicode61 remove_diacritics 2');

-- Names by substring (trigram: any 3 characters, case-insensitive), kept in step by triggers.
CREATE VIRTUAL TABLE idx_names USING fts5(name, content='idx_entries', content_rowid='id', tokenize='trigram');
CREATE TRIGGER idx_entries_ai AFTER INSERT ON idx_entries BEGIN
  INSERT INTO idx_names(rowid, name) VALUES (new.id, new.name);
END;
CREATE TRIGGER idx_entries_ad AFTER DELETE ON idx_entries BEGIN
  INSERT INTO idx_names(idx_names, rowid, name) VALUES ('delete', old.id, old.name);
  DELETE FROM idx_docs WHERE rowid = old.id;
END;
CREATE TRIGGER idx_entries_au AFTER UPDATE OF name ON idx_entries BEGIN
  INSERT INTO idx_names(idx_names, rowid, name) VALUES ('delete', old.id, old.name);
  INSERT INTO idx_names(rowid, name) VALUES (new.id, new.name);
END;

-- Bindings keyed by virtual path (spec §1 rule 4). `path` uses BINARY collation so prefix
-- ranges are byte-exact (renaming `Docs` never touches `docs`). Rows of a personal or assigned
-- space belong to one account (`user_id`); volume rows are forgotten for every account.
CREATE TABLE recent_destinations (
  user_id TEXT NOT NULL,
  path TEXT NOT NULL,
  used_at TEXT NOT NULL,
  PRIMARY KEY (user_id, path)
);
CREATE INDEX recent_destinations_path ON recent_destinations (path);

CREATE TABLE folder_prefs (
  user_id TEXT NOT NULL,
  path TEXT NOT NULL,
  prefs TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (user_id, path)
);
CREATE INDEX folder_prefs_path ON folder_prefs (path);

-- Work in flight across filesystems: on restart, a row in phase 'copying' means the temporary
-- copy is incomplete (removed); 'placed' means the copy is complete and the source is removed.
CREATE TABLE file_op_journal (
  id TEXT PRIMARY KEY,
  phase TEXT NOT NULL CHECK (phase IN ('copying', 'placed')),
  temp_path TEXT NOT NULL,
  source_path TEXT NOT NULL,
  remove_source INTEGER NOT NULL,
  started_at TEXT NOT NULL
);

-- Resumable (TUS) uploads. The state machine of spec §3 lives here, not in memory, so a
-- restart neither loses an unfinished upload nor forgets that a finished one was placed.
-- Times are milliseconds since the epoch (compared by the expiry sweep; written on the wire
-- with toISOString / HTTP dates). No foreign key to users: with AUTH_MODE=disabled the caller
-- is the built-in local administrator, which has no row; the sweep removes orphans by age.
CREATE TABLE uploads (
  id              TEXT PRIMARY KEY,
  user_id         TEXT NOT NULL,
  state           TEXT NOT NULL CHECK (state IN ('incomplete', 'finalize-failed', 'complete')),
  upload_length   INTEGER NOT NULL CHECK (upload_length >= 0),
  upload_offset   INTEGER NOT NULL DEFAULT 0 CHECK (upload_offset >= 0),
  -- The Upload-Metadata header as sent (echoed on HEAD, as the TUS creation extension asks).
  metadata        TEXT NOT NULL,
  filename        TEXT NOT NULL,
  upload_to       TEXT NOT NULL,
  relative_path   TEXT NOT NULL,
  -- Absolute host path of the part file, on the target volume.
  staging_path    TEXT NOT NULL,
  -- Virtual path of the placed file (state complete).
  final_path      TEXT,
  finalize_error  TEXT,
  finalize_status INTEGER,
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL,
  completed_at    INTEGER
);
CREATE INDEX uploads_by_age ON uploads (updated_at);

-- Staging folders ever used (one per volume, `.burrow/uploads`), so the sweep can remove part
-- files a crash left behind without walking any volume.
CREATE TABLE upload_staging_dirs (
  dir TEXT PRIMARY KEY
);

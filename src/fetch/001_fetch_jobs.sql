-- "Add from link": each fetch is a row, so any instance of a cluster answers its state and takes
-- its cancel. `owner` is the instance receiving the body (cluster/leases.ts): a running row whose
-- owner's lease lapsed is failed by whichever instance reads it (its part file is the work
-- journal's to remove). `received` is written at most twice a second while the body streams;
-- `cancel_asked` is set by a cancel that reaches another instance than the owner, which reads it
-- as often. Finished rows are kept an hour (the newest 20 of an account). `user_id` is the
-- caller's id, not a reference: with AUTH_MODE=disabled the caller has no account row.
CREATE TABLE fetch_jobs (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  owner TEXT NOT NULL,
  url TEXT NOT NULL,
  upload_to TEXT NOT NULL,
  name TEXT NOT NULL,
  state TEXT NOT NULL,
  received INTEGER NOT NULL DEFAULT 0,
  total INTEGER,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  finished_ms INTEGER NOT NULL DEFAULT 0,
  item TEXT,
  error_code TEXT,
  error_message TEXT,
  cancel_asked INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX fetch_jobs_user ON fetch_jobs (user_id, started_at);

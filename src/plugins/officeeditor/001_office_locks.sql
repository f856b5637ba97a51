-- WOPI locks, kept across restarts: an editing server holding a lock expects it to hold until it
-- unlocks or the lock expires (30 minutes after it was taken or last refreshed).
CREATE TABLE office_locks (
  file_id TEXT PRIMARY KEY,
  lock_value TEXT NOT NULL,
  user_id TEXT,
  expires_at INTEGER NOT NULL,
  created_at TEXT NOT NULL
);

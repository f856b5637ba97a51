-- The activity log. user_id is not a foreign key: rows outlive the accounts they name
-- (the username is kept beside it for that reason).
CREATE TABLE activity (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at TEXT NOT NULL,
  action TEXT NOT NULL,
  outcome TEXT NOT NULL,
  user_id TEXT,
  username TEXT,
  ip TEXT,
  detail TEXT
);
CREATE INDEX activity_at ON activity (at);
CREATE INDEX activity_action ON activity (action, id);

-- When a refused token use was last written, per token (or per address for unknown ones),
-- so the log gets it at most once an hour.
CREATE TABLE activity_throttle (
  key TEXT PRIMARY KEY,
  logged_at INTEGER NOT NULL
);

-- Host folders an administrator assigned to an account (USER_VOLUMES). Such an account sees
-- only these, under their labels.
CREATE TABLE user_volumes (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  label TEXT NOT NULL,
  path TEXT NOT NULL,
  access_mode TEXT NOT NULL CHECK (access_mode IN ('readonly', 'readwrite')),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (user_id, label)
);
CREATE INDEX user_volumes_user ON user_volumes (user_id);

CREATE TABLE favorites (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  path TEXT NOT NULL,
  label TEXT,
  icon TEXT NOT NULL DEFAULT 'outline:StarIcon',
  color TEXT,
  position INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (user_id, path)
);
CREATE INDEX favorites_path ON favorites (path);

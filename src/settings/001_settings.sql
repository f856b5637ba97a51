-- Installation settings, one JSON document per section (branding, thumbnails, access, activity).
CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

-- Per-account preferences: one JSON object of free keys (showHiddenFiles, showThumbnails…).
-- Not tied to users(id) by a foreign key: the anonymous local administrator of
-- AUTH_MODE=disabled has preferences too; account deletion removes the row explicitly.
CREATE TABLE user_prefs (
  user_id TEXT PRIMARY KEY,
  prefs TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

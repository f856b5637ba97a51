-- Host folders an administrator added as volumes (the setup page, Administration → Volumes).
-- They are served beside the folders of VOLUME_ROOT, to every account that sees volumes.
CREATE TABLE host_volumes (
  id TEXT PRIMARY KEY,
  label TEXT NOT NULL UNIQUE COLLATE NOCASE,
  path TEXT NOT NULL,
  access_mode TEXT NOT NULL CHECK (access_mode IN ('readonly', 'readwrite')),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

-- One personal folder per account, named once and kept: the name is never handed to another
-- account, even after the first one is deleted (no foreign key on purpose).
CREATE TABLE personal_folders (
  user_id TEXT PRIMARY KEY,
  folder TEXT NOT NULL UNIQUE COLLATE NOCASE,
  created_at TEXT NOT NULL
);

-- Quotas an administrator set: per account (its personal folder, the trash it filled, the
-- versions its saves kept) and per volume (what the volume may hold). No row: no limit.
CREATE TABLE account_quotas (
  user_id TEXT PRIMARY KEY,
  limit_bytes INTEGER NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE TABLE volume_quotas (
  volume TEXT PRIMARY KEY COLLATE NOCASE,
  limit_bytes INTEGER NOT NULL,
  updated_at TEXT NOT NULL
);

-- A group's default quota: an account without a quota of its own takes the largest default of
-- the groups it is in (an allowance: joining one more group never takes room away; to give
-- someone less, set their own quota). No row: the group sets no default.
CREATE TABLE group_quotas (
  group_id TEXT PRIMARY KEY,
  limit_bytes INTEGER NOT NULL,
  updated_at TEXT NOT NULL
);

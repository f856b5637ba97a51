-- What writers hold of a quota while they write, when several instances share the database
-- (DATABASE_URL=postgres://…, quotas/hold-store.ts): one row per hold and scope (`a:<account id>`,
-- `v:<volume name, lower case>`), naming the instance whose write it is — counted while that
-- instance's lease runs (cluster_leases), so a dead instance's holds stop counting by themselves.
-- A placed write's row stays as a landed hold (landed_at, the root and the placed paths) until
-- every instance's own folder-size index has counted those paths (each asks its own) or for ten
-- minutes at most. The embedded database has one instance, which keeps its holds in its memory:
-- this table stays empty there.
CREATE TABLE quota_holds (
  id TEXT NOT NULL,
  scope_key TEXT NOT NULL,
  instance TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  taken_at INTEGER NOT NULL,
  landed_at INTEGER,
  root TEXT,
  paths TEXT,
  PRIMARY KEY (id, scope_key)
);
CREATE INDEX quota_holds_scope ON quota_holds (scope_key);

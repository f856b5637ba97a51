-- WebDAV state that outlives a request. Both are keyed by where an item is on the host (its
-- space's real root and its path inside it, like file_versions), so every account that sees the
-- item through another virtual path (a volume, an assigned label) sees the same properties and
-- the same locks.

-- Dead properties (RFC 4918 §4): any property a client sets with PROPPATCH, stored as the
-- property element serialised with its namespaces so PROPFIND gives back exactly what was set.
CREATE TABLE dav_properties (
  space_root TEXT NOT NULL,
  relative TEXT NOT NULL,
  namespace TEXT NOT NULL,
  name TEXT NOT NULL,
  xml TEXT NOT NULL,
  PRIMARY KEY (space_root, relative, namespace, name)
);

-- Write locks (RFC 4918 §6-7). depth is 0 or -1 (infinity); expires_at is epoch ms; owner_xml
-- is the client's DAV:owner element as sent. A row past expires_at is no lock at all.
CREATE TABLE dav_locks (
  token TEXT PRIMARY KEY,
  space_root TEXT NOT NULL,
  relative TEXT NOT NULL,
  depth INTEGER NOT NULL CHECK (depth IN (0, -1)),
  scope TEXT NOT NULL CHECK (scope IN ('exclusive', 'shared')),
  owner_xml TEXT,
  user_id TEXT NOT NULL,
  timeout_seconds INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX dav_locks_item ON dav_locks (space_root, relative);
CREATE INDEX dav_locks_expiry ON dav_locks (expires_at);

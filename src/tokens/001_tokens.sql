-- API tokens. Only the SHA-256 of the secret is kept; a revoked token keeps its row as a
-- tombstone (name, revocation date) with the hash cleared so it can never match again.
CREATE TABLE api_tokens (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  scope TEXT NOT NULL CHECK (scope IN ('read', 'write')),
  secret_hash TEXT,
  created_at TEXT NOT NULL,
  expires_at TEXT,
  last_used_at TEXT,
  last_used_ip TEXT,
  revoked_at TEXT
);
CREATE INDEX api_tokens_user ON api_tokens (user_id);

-- Accounts of an LDAP / Active Directory directory sign in with the method `ldap` (provider
-- `ldap`, subject the directory's name for them, lower-cased). SQLite cannot widen a CHECK in
-- place, so the table is rebuilt with its rows.
CREATE TABLE auth_methods_next (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  type TEXT NOT NULL CHECK (type IN ('local_password', 'oidc', 'ldap')),
  provider TEXT NOT NULL DEFAULT 'local',
  subject TEXT,
  last_used_at TEXT,
  created_at TEXT NOT NULL,
  UNIQUE (user_id, type, provider)
);
INSERT INTO auth_methods_next (id, user_id, type, provider, subject, last_used_at, created_at)
  SELECT id, user_id, type, provider, subject, last_used_at, created_at FROM auth_methods;
DROP TABLE auth_methods;
ALTER TABLE auth_methods_next RENAME TO auth_methods;
CREATE UNIQUE INDEX auth_methods_subject ON auth_methods (type, provider, subject) WHERE subject IS NOT NULL;

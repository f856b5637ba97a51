-- Lock caps (issue: one account made 3,000 locked empty files in 23 s): `created_resource` marks
-- a lock whose LOCK made its empty file (an unmapped URL, RFC 4918 §7.3), counted apart from
-- the account's other live locks. The per-account count query uses dav_locks_user.
ALTER TABLE dav_locks ADD COLUMN created_resource INTEGER NOT NULL DEFAULT 0;
CREATE INDEX dav_locks_user ON dav_locks (user_id, expires_at);

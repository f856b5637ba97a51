-- The access model: groups of accounts, and per-folder rules for an account, a group or everyone
-- (hidden < view < read < write < manage), inherited down the tree unless `inherit` is 0; the
-- nearest folder with a rule for the person decides, the lowest level among its rules wins.
CREATE TABLE access_groups (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL COLLATE NOCASE UNIQUE,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE access_group_members (
  group_id TEXT NOT NULL REFERENCES access_groups(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  added_at TEXT NOT NULL,
  PRIMARY KEY (group_id, user_id)
);
CREATE INDEX access_group_members_user ON access_group_members (user_id);

-- subject_id: the account's or group's id; '' for everyone. An account's or group's deletion
-- takes its rules with it (access/store.ts deletes them in the same transaction).
CREATE TABLE access_rules (
  id TEXT PRIMARY KEY,
  path TEXT NOT NULL,
  subject_kind TEXT NOT NULL CHECK (subject_kind IN ('account', 'group', 'everyone')),
  subject_id TEXT NOT NULL DEFAULT '',
  level TEXT NOT NULL CHECK (level IN ('hidden', 'view', 'read', 'write', 'manage')),
  inherit INTEGER NOT NULL DEFAULT 1,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (path, subject_kind, subject_id)
);

-- The installation-wide rules of the previous release (settings `access`) become everyone's
-- rules: hidden stays hidden (and reaches everything below), ro is read, rw is manage (what every
-- account could do there: delete and share too); a rule that was not recursive does not
-- inherit. At one path the first hidden rule wins, then the first in the list.
INSERT OR IGNORE INTO access_rules (id, path, subject_kind, subject_id, level, inherit, created_at, updated_at)
SELECT
  COALESCE(NULLIF(trim(json_extract(r.value, '$.id')), ''), lower(hex(randomblob(16)))),
  trim(json_extract(r.value, '$.path'), '/'),
  'everyone',
  '',
  CASE json_extract(r.value, '$.permissions') WHEN 'hidden' THEN 'hidden' WHEN 'ro' THEN 'read' ELSE 'manage' END,
  CASE WHEN json_extract(r.value, '$.permissions') = 'hidden' OR json_extract(r.value, '$.recursive') = 1 THEN 1 ELSE 0 END,
  s.updated_at,
  s.updated_at
FROM settings s, json_each(s.value, '$.rules') r
WHERE s.key = 'access' AND json_valid(s.value) AND trim(COALESCE(json_extract(r.value, '$.path'), ''), '/') <> ''
ORDER BY (json_extract(r.value, '$.permissions') = 'hidden') DESC, CAST(r.key AS INTEGER);

-- Before, a hidden folder hid everything below it whatever a longer rule said; now the nearest
-- rule decides, so the rules below an everyone-hidden folder (which did nothing) are dropped.
DELETE FROM access_rules
WHERE subject_kind = 'everyone' AND level <> 'hidden' AND EXISTS (
  SELECT 1 FROM access_rules h
  WHERE h.subject_kind = 'everyone' AND h.level = 'hidden'
    AND substr(access_rules.path, 1, length(h.path) + 1) = h.path || '/'
);

DELETE FROM settings WHERE key = 'access';

-- An account's own rules go with the account (its memberships cascade).
CREATE TRIGGER access_rules_account_deleted AFTER DELETE ON users BEGIN
  DELETE FROM access_rules WHERE subject_kind = 'account' AND subject_id = OLD.id;
END;

-- Tags an account put on files and folders: a binding (files/bindings.ts), carried with its
-- path on rename and move and forgotten with it on delete. `tag_key` is the tag compared
-- (NFC, lower case); `tag` is how the account first spelled it.
CREATE TABLE tags (
  user_id TEXT NOT NULL,
  path TEXT NOT NULL,
  tag TEXT NOT NULL,
  tag_key TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (user_id, path, tag_key)
);
CREATE INDEX tags_path ON tags (path);
CREATE INDEX tags_by_key ON tags (user_id, tag_key);

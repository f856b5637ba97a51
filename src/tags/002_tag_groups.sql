-- A tag an account shares with a group it is in: the group's members see its name and reuse it
-- (the vocabulary, never the files: each member's tags stay on their own items). Read through
-- the group's members now (access_group_members), so a member who leaves no longer sees it and
-- rows of a deleted group or account are never read.
CREATE TABLE tag_groups (
  user_id TEXT NOT NULL,
  tag_key TEXT NOT NULL,
  tag TEXT NOT NULL,
  group_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (user_id, tag_key, group_id)
);
CREATE INDEX tag_groups_group ON tag_groups (group_id);

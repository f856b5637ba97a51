-- A group's name as it is compared (src/core/fold.ts), written by the access store beside the
-- name: a group is found by its key (an index probe). Rows written before this column existed
-- get their keys when the store first opens the database; until then the store compares such a
-- row's name itself. Not unique, for the reason 004_name_keys.sql (auth) gives.
ALTER TABLE access_groups ADD COLUMN name_key TEXT;
CREATE INDEX access_groups_by_name_key ON access_groups (name_key);

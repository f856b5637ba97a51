-- Trashed items live in `<space root>/.burrow/trash/<id>` (deleting is a rename). A row is
-- written before the rename and dropped at startup when its stored item is missing.
CREATE TABLE trash_items (
  id TEXT PRIMARY KEY,
  space_root TEXT NOT NULL,
  original_relative TEXT NOT NULL,
  name TEXT NOT NULL,
  is_directory INTEGER NOT NULL,
  size INTEGER,
  stored_path TEXT NOT NULL,
  deleted_by TEXT NOT NULL,
  deleted_at TEXT NOT NULL
);
CREATE INDEX trash_items_root ON trash_items (space_root);
CREATE INDEX trash_items_deleted_at ON trash_items (deleted_at);

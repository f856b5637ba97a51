-- Earlier contents of files, kept before an overwrite (editor, shared editor, office save) in
-- `<space root>/.burrow/versions/<id>`; `relative` is the file's path inside the space root.
CREATE TABLE file_versions (
  id TEXT PRIMARY KEY,
  space_root TEXT NOT NULL,
  relative TEXT NOT NULL,
  size INTEGER NOT NULL,
  modified_at TEXT NOT NULL,
  stored_path TEXT NOT NULL,
  created_at TEXT NOT NULL,
  created_by TEXT
);
CREATE INDEX file_versions_file ON file_versions (space_root, relative);

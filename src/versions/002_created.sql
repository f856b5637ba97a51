-- When the file at a path was created, kept across the saves that replace it by rename (the
-- editor, WebDAV, office, a restored version, an upload or copy that replaces it): the file
-- system's birth time belongs to the newest inode, so it moved with every save, and no
-- portable call sets it back (Linux has none; utimes sets only the access and change times).
-- `inode` is the file that holds the path since the last such save: a row whose inode no longer
-- matches (the file was replaced some other way) is ignored. Rows follow renames and moves
-- with the file's versions (versionBindings).
CREATE TABLE file_created (
  space_root TEXT NOT NULL,
  relative TEXT NOT NULL,
  created_at TEXT NOT NULL,
  inode TEXT NOT NULL,
  PRIMARY KEY (space_root, relative)
);

-- Where a WOPI lock's document is on this computer, so a move, rename or delete of a folder that
-- holds it finds it (the file id is a keyed hash of that path). Locks taken before this column
-- existed bind their document once the editing server refreshes them (every few minutes).
ALTER TABLE office_locks ADD COLUMN real_path TEXT;
CREATE INDEX office_locks_real_path ON office_locks (real_path);

-- The indexes moved to their own rebuildable file (CACHE_DIR/index.db, see index-db.ts):
-- the tables of 001 leave the main database.
DROP TRIGGER IF EXISTS idx_entries_ai;
DROP TRIGGER IF EXISTS idx_entries_ad;
DROP TRIGGER IF EXISTS idx_entries_au;
DROP TABLE IF EXISTS idx_names;
DROP TABLE IF EXISTS idx_docs;
DROP TABLE IF EXISTS idx_entries;
DROP TABLE IF EXISTS idx_roots;
DROP TABLE IF EXISTS idx_meta;

-- The uploaded logos, in the database so every instance of a cluster serves the same one (they
-- were files in CONFIG_DIR/branding, which is each instance's own: logo.ts moves such a file in
-- once at startup). The name is the content hash and its kind (`<16 hex>.<png|jpg|gif|webp>`):
-- the same bytes are one row, and a name never changes meaning.
CREATE TABLE branding_logos (
  name TEXT PRIMARY KEY,
  bytes BLOB NOT NULL,
  created_at TEXT NOT NULL
);

-- Link tokens are no longer kept in clear: a copy of the database opens no link. `token_hash` is
-- SHA-256 of the token (hex), the only thing a link is looked up by; `token_sealed` is the token
-- sealed (AES-256-GCM, the share id as associated data) under CONFIG_DIR/keys/link-key, so its
-- owner can still copy the link. Rows written before this are converted at the next start by
-- the store (SQLite has no SHA-256): `token_sealed IS NULL` marks a token still in clear.
ALTER TABLE shares RENAME COLUMN token TO token_hash;
ALTER TABLE shares ADD COLUMN token_sealed TEXT;

-- Usernames and emails as they are compared (src/core/fold.ts: NFKC, lower case in every
-- script), written by the accounts store beside each name: a sign-in, a WebDAV request and a
-- refusal of a taken name look the account up by key (an index probe) instead of folding every
-- account's name. Rows written before this column existed get their keys when the store first
-- opens the database; until then (and for any row written without them) the store compares
-- such a row's names itself. Not unique: on the embedded database two accounts may fold alike
-- from before (its NOCASE folds ASCII alone); the columns' own UNIQUE still decides races.
-- (Named `_by_`: PostgreSQL names the UNIQUE constraint of users.email `users_email_key`.)
ALTER TABLE users ADD COLUMN name_key TEXT;
ALTER TABLE users ADD COLUMN email_key TEXT;
CREATE INDEX users_by_name_key ON users (name_key);
CREATE INDEX users_by_email_key ON users (email_key);

-- The instance that wrote each work journal row (cluster/leases.ts): on several instances over
-- one PostgreSQL, a row is another instance's to finish only once its owner's lease lapsed.
-- Rows from before name no instance: no live instance owns them.
ALTER TABLE file_op_journal ADD COLUMN owner TEXT NOT NULL DEFAULT '';

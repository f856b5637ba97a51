-- Quiet hours and digests: a delivery may be 'held' until next_at (the end of the account's
-- quiet hours, the next full hour, the daily time); held ones of one account and destination go
-- out as one digest delivery, each marked 'digested' with its id, in the same transaction.
ALTER TABLE notify_deliveries ADD COLUMN digest_id TEXT;

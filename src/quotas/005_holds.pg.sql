-- PostgreSQL's twin of 005_holds.sql: the table, and the one statement that takes or grows a
-- hold (quotas/hold-store.ts). It runs under a transaction-level advisory lock of the hold's
-- scope (two-key form, class 'bqta': it never meets the upload, save or migration locks), so the
-- instances check "used + every live hold + this one ≤ limit" one at a time for one scope and
-- each sees the holds the others committed. In one round trip: the lock, dropping the scope's
-- rows of instances whose lease lapsed and landed rows past their time, the sum, the upsert.
--   p_base     what the asking instance's own index counts (stored, trash, versions)
--   p_counted  landed holds (ids, space-separated) the asking instance's index has counted
--   p_need     the bytes the hold must have; p_ahead the most it takes beyond them (a streamed
--              write's step), never more than half of what the limit leaves after p_need
-- Answers what is used besides this hold: it was taken when that + p_need ≤ p_limit.
CREATE TABLE quota_holds (
  id TEXT NOT NULL,
  scope_key TEXT NOT NULL,
  instance TEXT NOT NULL,
  bytes BIGINT NOT NULL,
  taken_at BIGINT NOT NULL,
  landed_at BIGINT,
  root TEXT,
  paths TEXT,
  PRIMARY KEY (id, scope_key)
);
CREATE INDEX quota_holds_scope ON quota_holds (scope_key);

CREATE FUNCTION quota_hold_take(
  p_id TEXT, p_scope TEXT, p_instance TEXT, p_need BIGINT, p_ahead BIGINT, p_base BIGINT,
  p_limit BIGINT, p_taken_at BIGINT, p_now TEXT, p_landed_since BIGINT, p_counted TEXT
) RETURNS BIGINT LANGUAGE plpgsql AS $$
DECLARE
  used BIGINT;
BEGIN
  PERFORM pg_advisory_xact_lock(1651602529, hashtext(p_scope));
  DELETE FROM quota_holds h WHERE h.scope_key = p_scope AND (
    (h.landed_at IS NOT NULL AND h.landed_at < p_landed_since)
    OR (h.landed_at IS NULL AND NOT EXISTS (
      SELECT 1 FROM cluster_leases l WHERE l.name = 'instance:' || h.instance AND l.expires_at >= p_now)));
  SELECT p_base + COALESCE(SUM(h.bytes), 0) INTO used FROM quota_holds h
    WHERE h.scope_key = p_scope AND h.id <> p_id
      AND (h.landed_at IS NULL OR NOT (h.id = ANY (string_to_array(p_counted, ' '))));
  IF used + p_need <= p_limit THEN
    INSERT INTO quota_holds (id, scope_key, instance, bytes, taken_at)
      VALUES (p_id, p_scope, p_instance, p_need + LEAST(p_ahead, (p_limit - used - p_need) / 2), p_taken_at)
      ON CONFLICT (id, scope_key) DO UPDATE SET instance = excluded.instance, bytes = excluded.bytes
      WHERE quota_holds.landed_at IS NULL;
  END IF;
  RETURN used;
END
$$;

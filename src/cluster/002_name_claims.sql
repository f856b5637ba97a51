-- Names being placed right now (name (1), name (2)…) by any instance of a cluster: a row per
-- candidate path (its sha256: paths are longer than an index entry may be), held for the
-- placement and released after it, so two instances never place onto the same name even where
-- the shared file system's exclusive create is not to be trusted. A crashed instance's rows lapse.
CREATE TABLE name_claims (
  path_hash TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  expires_at TEXT NOT NULL
);

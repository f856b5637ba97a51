-- The secrets every instance of a cluster shares (DATABASE_URL=postgres://…): the session
-- signing secret and the seal keys, each generated once (or taken from the first instance's
-- files) and sealed under the cluster key, which is not in the database.
CREATE TABLE cluster_secrets (
  name TEXT PRIMARY KEY,
  sealed TEXT NOT NULL,
  created_at TEXT NOT NULL
);

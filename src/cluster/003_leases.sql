-- Leases of a cluster's instances (DATABASE_URL=postgres://…): one row per instance that is alive
-- (`instance:<id>`, renewed while it runs: the work journal's rows of an instance whose lease
-- lapsed are another's to finish) and one per background job (`job:<name>`: the one instance
-- that runs it now). A row is taken with one statement that succeeds only when it is free, lapsed
-- or already its owner's; a crashed instance's rows lapse by themselves.
CREATE TABLE cluster_leases (
  name TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  expires_at TEXT NOT NULL
);

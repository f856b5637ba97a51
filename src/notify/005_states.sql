-- The server's own states a notification is about, kept while they hold: an account's or a
-- volume's quota past its mark, a volume whose folder is gone. An event is raised when a state
-- starts (its row written) and, for a volume, when it ends (its row removed) — once each, in the
-- transaction that changes the row, so a restart neither repeats nor loses one.
CREATE TABLE notify_states (
  key TEXT PRIMARY KEY,
  since TEXT NOT NULL
);

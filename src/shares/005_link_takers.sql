-- What a limited link's holder took lately (holder.ts): the HMAC of their taker cookie, the link
-- and the file, and until when a Range series, a revalidation or the preview of it is the same
-- download. A row, not one process's memory, so that through any instance of a cluster it is
-- counted once (issue 31). Times are ISO strings: they compare in order as text in both engines.
CREATE TABLE share_takers (
  taker TEXT NOT NULL,
  share_id TEXT NOT NULL REFERENCES shares(id) ON DELETE CASCADE,
  file TEXT NOT NULL,
  until_at TEXT NOT NULL,
  PRIMARY KEY (taker, share_id, file)
);
CREATE INDEX share_takers_until ON share_takers (until_at);

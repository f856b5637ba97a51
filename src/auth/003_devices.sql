-- The browsers (devices) each account signed in from: a long-lived random cookie
-- (`burrow_device`, set at every sign-in that opens a session) of which only an HMAC is kept,
-- per account. A sign-in from a browser not here, on an account that already has one, is told
-- to its owner (notify: signin.new-device). Rows unseen for 400 days are forgotten.
CREATE TABLE sign_in_devices (
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_hash TEXT NOT NULL,
  browser TEXT NOT NULL,
  first_at TEXT NOT NULL,
  last_at TEXT NOT NULL,
  PRIMARY KEY (user_id, token_hash)
);

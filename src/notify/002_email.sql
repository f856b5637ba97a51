-- E-mail destinations: the SMTP server (host, port, security, user name, sender, a CA of its
-- own) as JSON; its password is the destination's sealed secret.
ALTER TABLE notify_destinations ADD COLUMN smtp TEXT;

-- Each account's unsubscribe token: looked up by its keyed hash (the link carries the token),
-- kept sealed so the sender can put it in the next message. A copy of the database has neither.
CREATE TABLE notify_unsubscribe (
  user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  token_mac TEXT NOT NULL UNIQUE,
  token_sealed TEXT NOT NULL,
  created_at TEXT NOT NULL
);

-- The kinds whose e-mails an account turned off (one click in a message, or Settings).
CREATE TABLE notify_email_off (
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  at TEXT NOT NULL,
  PRIMARY KEY (user_id, kind)
);

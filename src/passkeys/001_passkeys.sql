-- Passkeys (WebAuthn credentials). credential_id is base64url, unique across accounts: one
-- authenticator key belongs to one account. `counter` is the authenticator's signature count,
-- kept to notice a cloned authenticator.
CREATE TABLE passkeys (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  credential_id TEXT NOT NULL UNIQUE,
  public_key BLOB NOT NULL,
  counter INTEGER NOT NULL DEFAULT 0,
  transports TEXT NOT NULL DEFAULT '[]',
  device_type TEXT NOT NULL,
  backed_up INTEGER NOT NULL DEFAULT 0,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL,
  last_used_at TEXT
);
CREATE INDEX passkeys_user ON passkeys (user_id);

-- Challenges handed out by the start calls, spent by the matching finish (one ceremony each).
-- The relying party is fixed at start, so finish checks what start promised.
CREATE TABLE webauthn_challenges (
  challenge TEXT PRIMARY KEY,
  ceremony TEXT NOT NULL CHECK (ceremony IN ('registration', 'authentication')),
  user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
  rp_id TEXT NOT NULL,
  origins TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX webauthn_challenges_expiry ON webauthn_challenges (expires_at);

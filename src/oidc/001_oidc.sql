-- Sign-ins in flight at the identity provider: PKCE verifier, state and nonce stay here, on
-- the server, keyed by a hash of the state; `browser_hash` binds the row to the browser that
-- started it (a cookie), so a callback carried to another browser signs nobody in. Mobile
-- sign-ins also keep the app's PKCE challenge and its redirect URI.
CREATE TABLE oidc_transactions (
  state_hash TEXT PRIMARY KEY,
  browser_hash TEXT NOT NULL,
  code_verifier TEXT NOT NULL,
  nonce TEXT NOT NULL,
  redirect_uri TEXT NOT NULL,
  return_to TEXT,
  mobile_challenge TEXT,
  mobile_redirect_uri TEXT,
  expires_at INTEGER NOT NULL
);
CREATE INDEX oidc_transactions_expiry ON oidc_transactions (expires_at);

-- One-time codes handed to a native app after the provider signed its person in: a hash of
-- the code, single use, 60 seconds, bound to the app's PKCE challenge.
CREATE TABLE oidc_mobile_codes (
  code_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  challenge TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);

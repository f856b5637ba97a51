-- The second factor (TOTP). The secret is sealed with AES-256-GCM under a key kept in
-- CONFIG_DIR (never in the database), bound to its account. `last_step` is the time step of
-- the last code accepted, so one code never opens two sign-ins.
CREATE TABLE totp (
  user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  secret_sealed TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'on')),
  created_at TEXT NOT NULL,
  confirmed_at TEXT,
  last_step INTEGER
);

-- Recovery codes: only a keyed hash is stored; a spent code keeps its row with used_at.
CREATE TABLE totp_recovery_codes (
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  code_hash TEXT NOT NULL,
  used_at TEXT,
  PRIMARY KEY (user_id, code_hash)
);

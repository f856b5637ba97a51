// Passkeys (`passkeys`: one row per registered credential) and the challenges of ceremonies in
// progress (`webauthn_challenges`: drawn by a start call, spent by the first finish naming them).
import type { Database } from '../db/database.ts';

export type Ceremony = 'registration' | 'authentication';

export interface PasskeyRow {
  id: string;
  user_id: string;
  credential_id: string;
  public_key: Uint8Array;
  counter: number;
  transports: string;
  device_type: string;
  backed_up: number;
  name: string;
  created_at: string;
  last_used_at: string | null;
  /** The host name (WebAuthn RP id) the passkey was made for. */
  rp_id: string;
}

export interface ChallengeRow {
  challenge: string;
  ceremony: Ceremony;
  user_id: string | null;
  rp_id: string;
  origins: string;
  expires_at: number;
}

export interface PasskeyStore {
  putChallenge(row: ChallengeRow): void;
  /** Reads and deletes a challenge in one transaction (spent whatever becomes of it). */
  takeChallenge(challenge: string): ChallengeRow | undefined;
  /** Drops challenges expired at `now`; answers how many. */
  sweepChallenges(now: number): number;
  ofUser(userId: string): PasskeyRow[];
  count(userId: string): number;
  get(id: string): PasskeyRow | undefined;
  byCredential(credentialId: string): PasskeyRow | undefined;
  /** Throws the database's UNIQUE error for a credential already registered. */
  insert(row: Omit<PasskeyRow, 'last_used_at'>): void;
  /** False when the account has no such passkey. */
  rename(userId: string, id: string, name: string): boolean;
  /**
   * In one transaction: finds the account's passkey, calls `check` (which may throw, then nothing
   * is removed), removes it. False when the account has no such passkey.
   */
  removeChecked(userId: string, id: string, check: () => void): boolean;
  removeAll(userId: string): number;
  markUsed(id: string, counter: number, backedUp: boolean, at: string): void;
  /** Gives passkeys made before RP ids were recorded the one they were made for; answers how many. */
  adoptLegacy(rpId: string): number;
}

export function createPasskeyStore(db: Database): PasskeyStore {
  const count = (userId: string) =>
    db.get<{ n: number }>('SELECT COUNT(*) AS n FROM passkeys WHERE user_id = ?', [userId])!.n;
  return {
    putChallenge(r) {
      db.run(
        'INSERT INTO webauthn_challenges (challenge, ceremony, user_id, rp_id, origins, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
        [r.challenge, r.ceremony, r.user_id, r.rp_id, r.origins, r.expires_at],
      );
    },
    takeChallenge: (challenge) =>
      db.transaction(() => {
        const found = db.get<ChallengeRow>('SELECT * FROM webauthn_challenges WHERE challenge = ?', [challenge]);
        if (found) db.run('DELETE FROM webauthn_challenges WHERE challenge = ?', [challenge]);
        return found;
      }),
    sweepChallenges: (now) => db.run('DELETE FROM webauthn_challenges WHERE expires_at <= ?', [now]).changes,
    ofUser: (userId) => db.all<PasskeyRow>('SELECT * FROM passkeys WHERE user_id = ? ORDER BY created_at', [userId]),
    count,
    get: (id) => db.get<PasskeyRow>('SELECT * FROM passkeys WHERE id = ?', [id]),
    byCredential: (credentialId) =>
      db.get<PasskeyRow>('SELECT * FROM passkeys WHERE credential_id = ?', [credentialId]),
    insert(r) {
      db.run(
        'INSERT INTO passkeys (id, user_id, credential_id, public_key, counter, transports, device_type, backed_up, name, created_at, rp_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [
          r.id,
          r.user_id,
          r.credential_id,
          r.public_key,
          r.counter,
          r.transports,
          r.device_type,
          r.backed_up,
          r.name,
          r.created_at,
          r.rp_id,
        ],
      );
    },
    rename: (userId, id, name) =>
      db.run('UPDATE passkeys SET name = ? WHERE id = ? AND user_id = ?', [name, id, userId]).changes > 0,
    removeChecked: (userId, id, check) =>
      db.transaction(() => {
        const row = db.get<PasskeyRow>('SELECT * FROM passkeys WHERE id = ? AND user_id = ?', [id, userId]);
        if (!row) return false;
        check();
        db.run('DELETE FROM passkeys WHERE id = ?', [id]);
        return true;
      }),
    removeAll: (userId) => db.run('DELETE FROM passkeys WHERE user_id = ?', [userId]).changes,
    markUsed(id, counter, backedUp, at) {
      db.run('UPDATE passkeys SET counter = ?, backed_up = ?, last_used_at = ? WHERE id = ?', [
        counter,
        backedUp ? 1 : 0,
        at,
        id,
      ]);
    },
    adoptLegacy: (rpId) => db.run('UPDATE passkeys SET rp_id = ? WHERE rp_id IS NULL', [rpId]).changes,
  };
}

// The second factor's rows: the sealed TOTP secret and its state (`totp`) and the MACs of the
// recovery codes (`totp_recovery_codes`). Sealing, MACs and the checks are the service's.
import type { Database } from '../db/database.ts';

export interface TotpRow {
  user_id: string;
  secret_sealed: string;
  state: 'pending' | 'on';
  created_at: string;
  confirmed_at: string | null;
  last_step: number | null;
}

export interface TwoFactorStore {
  get(userId: string): TotpRow | undefined;
  /** Recovery codes not yet spent. */
  codesLeft(userId: string): number;
  /** Writes a pending secret, replacing a pending one (never one that is on). */
  putPending(userId: string, sealed: string, createdAt: string): void;
  /** Turns the pending secret on and replaces the recovery codes, in one transaction. */
  turnOn(userId: string, at: string, codeHashes: readonly string[]): void;
  /**
   * Replaces the recovery codes when the second factor is on (then true), in one transaction
   * with that check.
   */
  replaceCodesIfOn(userId: string, codeHashes: readonly string[]): boolean;
  /** Drops the secret and its codes; true when there was a secret. */
  remove(userId: string): boolean;
  /** Spends an unused recovery code; true when this call spent it. */
  spendCode(userId: string, codeHash: string, at: string): boolean;
  /** Claims a time step later than the last one used (compare-and-set); true when claimed. */
  claimStep(userId: string, step: number): boolean;
}

export function createTwoFactorStore(db: Database): TwoFactorStore {
  const get = (userId: string) => db.get<TotpRow>('SELECT * FROM totp WHERE user_id = ?', [userId]);
  const replaceCodes = (userId: string, codeHashes: readonly string[]) => {
    db.run('DELETE FROM totp_recovery_codes WHERE user_id = ?', [userId]);
    for (const hash of codeHashes)
      db.run('INSERT INTO totp_recovery_codes (user_id, code_hash) VALUES (?, ?)', [userId, hash]);
  };
  return {
    get,
    codesLeft: (userId) =>
      db.get<{ n: number }>('SELECT COUNT(*) AS n FROM totp_recovery_codes WHERE user_id = ? AND used_at IS NULL', [
        userId,
      ])!.n,
    putPending(userId, sealed, createdAt) {
      db.run(
        `INSERT INTO totp (user_id, secret_sealed, state, created_at) VALUES (?1, ?2, 'pending', ?3)
       ON CONFLICT (user_id) DO UPDATE SET secret_sealed = ?2, created_at = ?3, last_step = NULL WHERE totp.state = 'pending'`,
        [userId, sealed, createdAt],
      );
    },
    turnOn: (userId, at, codeHashes) =>
      db.transaction(() => {
        db.run("UPDATE totp SET state = 'on', confirmed_at = ? WHERE user_id = ?", [at, userId]);
        replaceCodes(userId, codeHashes);
      }),
    replaceCodesIfOn: (userId, codeHashes) =>
      db.transaction(() => {
        if (get(userId)?.state !== 'on') return false;
        replaceCodes(userId, codeHashes);
        return true;
      }),
    remove: (userId) =>
      db.transaction(() => {
        db.run('DELETE FROM totp_recovery_codes WHERE user_id = ?', [userId]);
        return db.run('DELETE FROM totp WHERE user_id = ?', [userId]).changes > 0;
      }),
    spendCode: (userId, codeHash, at) =>
      db.run('UPDATE totp_recovery_codes SET used_at = ? WHERE user_id = ? AND code_hash = ? AND used_at IS NULL', [
        at,
        userId,
        codeHash,
      ]).changes === 1,
    claimStep: (userId, step) =>
      db.run('UPDATE totp SET last_step = ?1 WHERE user_id = ?2 AND (last_step IS NULL OR last_step < ?1)', [
        step,
        userId,
      ]).changes === 1,
  };
}

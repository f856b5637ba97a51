// The identity provider's hand-offs in progress (`oidc_transactions`: state, PKCE verifier,
// nonce, kept server-side) and the one-time codes of the app bridge (`oidc_mobile_codes`).
// Each is spent by the first call that names it.
import type { Database } from '../db/database.ts';

export interface TransactionRow {
  state_hash: string;
  browser_hash: string;
  code_verifier: string;
  nonce: string;
  redirect_uri: string;
  return_to: string | null;
  mobile_challenge: string | null;
  mobile_redirect_uri: string | null;
  expires_at: number;
}

export interface MobileCodeRow {
  code_hash: string;
  user_id: string;
  challenge: string;
  expires_at: number;
}

export interface OidcStore {
  putTransaction(row: TransactionRow): void;
  /** Reads and deletes a hand-off in one transaction. */
  takeTransaction(stateHash: string): TransactionRow | undefined;
  putMobileCode(row: MobileCodeRow): void;
  /** Reads and deletes an app code in one transaction. */
  takeMobileCode(codeHash: string): MobileCodeRow | undefined;
  /** Drops hand-offs and codes expired at `now`; answers how many. */
  sweep(now: number): number;
}

export function createOidcStore(db: Database): OidcStore {
  return {
    putTransaction(r) {
      db.run(
        'INSERT INTO oidc_transactions (state_hash, browser_hash, code_verifier, nonce, redirect_uri, return_to, mobile_challenge, mobile_redirect_uri, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [
          r.state_hash,
          r.browser_hash,
          r.code_verifier,
          r.nonce,
          r.redirect_uri,
          r.return_to,
          r.mobile_challenge,
          r.mobile_redirect_uri,
          r.expires_at,
        ],
      );
    },
    takeTransaction: (stateHash) =>
      db.transaction(() => {
        const found = db.get<TransactionRow>('SELECT * FROM oidc_transactions WHERE state_hash = ?', [stateHash]);
        if (found) db.run('DELETE FROM oidc_transactions WHERE state_hash = ?', [found.state_hash]);
        return found;
      }),
    putMobileCode(r) {
      db.run('INSERT INTO oidc_mobile_codes (code_hash, user_id, challenge, expires_at) VALUES (?, ?, ?, ?)', [
        r.code_hash,
        r.user_id,
        r.challenge,
        r.expires_at,
      ]);
    },
    takeMobileCode: (codeHash) =>
      db.transaction(() => {
        const found = db.get<MobileCodeRow>('SELECT * FROM oidc_mobile_codes WHERE code_hash = ?', [codeHash]);
        if (found) db.run('DELETE FROM oidc_mobile_codes WHERE code_hash = ?', [found.code_hash]);
        return found;
      }),
    sweep: (now) =>
      db.run('DELETE FROM oidc_transactions WHERE expires_at <= ?', [now]).changes +
      db.run('DELETE FROM oidc_mobile_codes WHERE expires_at <= ?', [now]).changes,
  };
}

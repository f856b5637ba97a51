// Bindings (spec §1 rule 4): what is bound to a path — favourites, recent destinations,
// per-folder view preferences, shares, versions, WebDAV properties (listed by app.ts) — is forgotten when the
// path is deleted and carried when it is renamed or moved, in one transaction, matched
// byte-exactly on an indexed column (`path = p OR path >= p || '/' AND path < p || '0'`).
import type { Database } from '../db/database.ts';

/** Who the rows belong to: a volume's rows are everybody's; a personal space's are one account's. */
export type BindingScope = { userId: string | null };

/** Where an item is on the host: its space's real root and its path inside it ('/' separators). */
export interface RealLocation {
  root: string;
  relative: string;
}

export interface BindingTable {
  /** Counts rows at or under `path` (delete-impact). */
  count?(path: string, scope: BindingScope): number;
  forget(path: string, scope: BindingScope): number;
  carry(from: string, to: string, scope: BindingScope): void;
  /** For tables keyed by host location (versions): the item at `from` (and below) is now at `to`. */
  carryReal?(from: RealLocation, to: RealLocation): void;
}

export interface Bindings {
  forget(path: string, scope: BindingScope): Record<string, number>;
  /** Carries virtual-path rows (and, given `real`, host-location rows) in one transaction. */
  carry(from: string, to: string, scope: BindingScope, real?: { from: RealLocation; to: RealLocation }): void;
  /** Carries only host-location rows (a move between spaces whose virtual rows are forgotten). */
  carryReal(from: RealLocation, to: RealLocation): void;
  count(path: string, scope: BindingScope): Record<string, number>;
}

/** `tables`: every folder's table of path-bound rows, by name (app.ts lists them). */
export function createBindings(db: Database, byName: Record<string, BindingTable>): Bindings {
  const tables = new Map(Object.entries(byName));
  return {
    forget(p, scope) {
      return db.transaction(() => Object.fromEntries([...tables].map(([name, t]) => [name, t.forget(p, scope)])));
    },
    carry(from, to, scope, real) {
      db.transaction(() => {
        if (from !== to) for (const t of tables.values()) t.carry(from, to, scope);
        if (real) for (const t of tables.values()) t.carryReal?.(real.from, real.to);
      });
    },
    carryReal(from, to) {
      db.transaction(() => {
        for (const t of tables.values()) t.carryReal?.(from, to);
      });
    },
    count(p, scope) {
      return Object.fromEntries([...tables].filter(([, t]) => t.count).map(([name, t]) => [name, t.count!(p, scope)]));
    },
  };
}

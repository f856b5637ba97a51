// The SQL of a path-bound table (bindings.ts): a table with `path` and `user_id` columns whose
// rows are forgotten and carried with their path. Each folder's store names its own table
// (`favoriteBindings`, `shareBindings`, …); the matching is byte-exact on the indexed `path`.
import type { Database } from '../db/database.ts';
import type { BindingScope, BindingTable } from './bindings.ts';

/** A plain table with `path` and `user_id` columns. */
export function pathTable(db: Database, table: string): BindingTable {
  const where = (scope: BindingScope) =>
    `(path = ? OR (path >= ? AND path < ?))${scope.userId === null ? '' : ' AND user_id = ?'}`;
  const args = (p: string, scope: BindingScope) =>
    scope.userId === null ? [p, p + '/', p + '0'] : [p, p + '/', p + '0', scope.userId];
  return {
    count: (p, scope) =>
      db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where(scope)}`, args(p, scope))!.n,
    forget: (p, scope) => db.run(`DELETE FROM ${table} WHERE ${where(scope)}`, args(p, scope)).changes,
    carry(from, to, scope) {
      // Rows left at the destination belong to an item that no longer exists there.
      db.run(`DELETE FROM ${table} WHERE ${where(scope)}`, args(to, scope));
      db.run(`UPDATE ${table} SET path = ? || substr(path, length(?) + 1) WHERE ${where(scope)}`, [
        to,
        from,
        ...args(from, scope),
      ]);
    },
  };
}

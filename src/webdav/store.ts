// The WebDAV tables: dead properties and write locks, keyed by host location (space root +
// relative path). Subtrees are matched on the indexed column as the bindings are
// (`relative = p OR relative >= p || '/' AND relative < p || '0'`); the space root itself is ''.
import type { Database } from '../db/database.ts';
import type { BindingTable, RealLocation } from '../files/bindings.ts';

export interface DeadProperty {
  namespace: string;
  name: string;
  xml: string;
}

export interface LockRow {
  token: string;
  space_root: string;
  relative: string;
  depth: 0 | -1;
  scope: 'exclusive' | 'shared';
  owner_xml: string | null;
  user_id: string;
  timeout_seconds: number;
  expires_at: number;
  created_at: string;
  /** 1 when this LOCK made the (empty) resource at an unmapped URL. */
  created_resource: 0 | 1;
}

export interface NewLock {
  root: string;
  relative: string;
  depth: 0 | -1;
  scope: 'exclusive' | 'shared';
  ownerXml: string | null;
  userId: string;
  timeoutSeconds: number;
  token: string;
  /** The LOCK makes the empty resource at an unmapped URL (counted against `limits.created`). */
  createsResource: boolean;
}

/** Live locks one account may hold at once: all of them, and those that made their resource. */
export interface LockLimits {
  held: number;
  created: number;
}

/** WHERE fragment and arguments for "at or below `relative`" within one root. */
function subtree(root: string, relative: string): [string, unknown[]] {
  if (relative === '') return ['space_root = ?', [root]];
  return [
    'space_root = ? AND (relative = ? OR (relative >= ? AND relative < ?))',
    [root, relative, relative + '/', relative + '0'],
  ];
}

/** `relative` and every folder above it inside the root, the root itself ('') included. */
export function selfAndAncestors(relative: string): string[] {
  const out = [''];
  if (relative === '') return out;
  const parts = relative.split('/');
  for (let i = 1; i <= parts.length; i++) out.push(parts.slice(0, i).join('/'));
  return out;
}

export interface DavStore {
  properties(at: RealLocation): DeadProperty[];
  /** Applies a PROPPATCH's instructions in order, all or nothing. */
  patchProperties(
    at: RealLocation,
    ops: ({ set: DeadProperty } | { remove: { namespace: string; name: string } })[],
  ): void;
  copyProperties(from: RealLocation, to: RealLocation): void;
  moveProperties(from: RealLocation, to: RealLocation): void;
  forgetProperties(at: RealLocation): void;

  /** Live locks on the item, on folders above it with depth infinity, and (withBelow) inside it. */
  locksCovering(at: RealLocation, options?: { withBelow?: boolean; now?: number }): LockRow[];
  lock(token: string, now?: number): LockRow | undefined;
  /** The lock, or null when the account already holds `limits` live locks (checked and written at once). */
  createLock(input: NewLock, limits: LockLimits): LockRow | null;
  /** Every live lock, oldest first, with its account's name (Administration). */
  allLocksWithNames(now?: number): (LockRow & { username: string | null })[];
  refreshLock(token: string, timeoutSeconds: number): LockRow;
  removeLock(token: string): boolean;
  /** Locks go with their item (MOVE keeps nothing locked at the old place; RFC 4918 §9.9: locks are not moved). */
  forgetLocks(at: RealLocation): void;
  sweepLocks(now?: number): number;
}

export function createDavStore(db: Database): DavStore {
  const store: DavStore = {
    properties(at) {
      return db.all<DeadProperty>(
        'SELECT namespace, name, xml FROM dav_properties WHERE space_root = ? AND relative = ? ORDER BY namespace, name',
        [at.root, at.relative],
      );
    },
    patchProperties(at, ops) {
      db.transaction(() => {
        for (const op of ops) {
          if ('set' in op) {
            db.run(
              'INSERT INTO dav_properties (space_root, relative, namespace, name, xml) VALUES (?, ?, ?, ?, ?) ON CONFLICT (space_root, relative, namespace, name) DO UPDATE SET xml = excluded.xml',
              [at.root, at.relative, op.set.namespace, op.set.name, op.set.xml],
            );
          } else {
            db.run('DELETE FROM dav_properties WHERE space_root = ? AND relative = ? AND namespace = ? AND name = ?', [
              at.root,
              at.relative,
              op.remove.namespace,
              op.remove.name,
            ]);
          }
        }
      });
    },
    copyProperties(from, to) {
      const [where, args] = subtree(from.root, from.relative);
      db.transaction(() => {
        store.forgetProperties(to);
        const rows = db.all<{ relative: string; namespace: string; name: string; xml: string }>(
          `SELECT relative, namespace, name, xml FROM dav_properties WHERE ${where}`,
          args as never,
        );
        for (const r of rows) {
          const rel = to.relative + r.relative.slice(from.relative.length);
          db.run(
            `INSERT INTO dav_properties (space_root, relative, namespace, name, xml) VALUES (?, ?, ?, ?, ?)
             ON CONFLICT (space_root, relative, namespace, name) DO UPDATE SET xml = excluded.xml`,
            [to.root, rel.replace(/^\//, ''), r.namespace, r.name, r.xml],
          );
        }
      });
    },
    moveProperties(from, to) {
      // Idempotent: a second carry of the same move (binding and handler) finds nothing to move.
      const [where, args] = subtree(from.root, from.relative);
      if (!db.get(`SELECT 1 FROM dav_properties WHERE ${where} LIMIT 1`, args as never)) return;
      db.transaction(() => {
        store.copyProperties(from, to);
        store.forgetProperties(from);
      });
    },
    forgetProperties(at) {
      const [where, args] = subtree(at.root, at.relative);
      db.run(`DELETE FROM dav_properties WHERE ${where}`, args as never);
    },

    locksCovering(at, options = {}) {
      const now = options.now ?? Date.now();
      const ancestors = selfAndAncestors(at.relative);
      const marks = ancestors.map(() => '?').join(',');
      const rows = db.all<LockRow>(
        `SELECT * FROM dav_locks WHERE space_root = ? AND relative IN (${marks}) AND expires_at > ?`,
        [at.root, ...ancestors, now],
      );
      const covering = rows.filter((r) => r.relative === at.relative || r.depth === -1);
      if (!options.withBelow) return covering;
      const [where, args] = subtree(at.root, at.relative);
      const below = db.all<LockRow>(`SELECT * FROM dav_locks WHERE ${where} AND relative <> ? AND expires_at > ?`, [
        ...args,
        at.relative,
        now,
      ] as never);
      return [...covering, ...below];
    },
    lock(token, now = Date.now()) {
      return db.get<LockRow>('SELECT * FROM dav_locks WHERE token = ? AND expires_at > ?', [token, now]);
    },
    createLock(input, limits) {
      const now = Date.now();
      return db.transaction(() => {
        const held = db.get<{ n: number; made: number }>(
          'SELECT count(*) AS n, coalesce(sum(created_resource), 0) AS made FROM dav_locks WHERE user_id = ? AND expires_at > ?',
          [input.userId, now],
        )!;
        if (held.n >= limits.held || (input.createsResource && held.made >= limits.created)) return null;
        db.run(
          'INSERT INTO dav_locks (token, space_root, relative, depth, scope, owner_xml, user_id, timeout_seconds, expires_at, created_at, created_resource) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
          [
            input.token,
            input.root,
            input.relative,
            input.depth,
            input.scope,
            input.ownerXml,
            input.userId,
            input.timeoutSeconds,
            now + input.timeoutSeconds * 1000,
            new Date(now).toISOString(),
            input.createsResource ? 1 : 0,
          ],
        );
        return db.get<LockRow>('SELECT * FROM dav_locks WHERE token = ?', [input.token])!;
      });
    },
    allLocksWithNames(now = Date.now()) {
      return db.all<LockRow & { username: string | null }>(
        'SELECT l.*, u.username FROM dav_locks l LEFT JOIN users u ON u.id = l.user_id WHERE l.expires_at > ? ORDER BY l.created_at, l.token',
        [now],
      );
    },
    refreshLock(token, timeoutSeconds) {
      db.run('UPDATE dav_locks SET timeout_seconds = ?, expires_at = ? WHERE token = ?', [
        timeoutSeconds,
        Date.now() + timeoutSeconds * 1000,
        token,
      ]);
      return db.get<LockRow>('SELECT * FROM dav_locks WHERE token = ?', [token])!;
    },
    removeLock(token) {
      return db.run('DELETE FROM dav_locks WHERE token = ?', [token]).changes > 0;
    },
    forgetLocks(at) {
      const [where, args] = subtree(at.root, at.relative);
      db.run(`DELETE FROM dav_locks WHERE ${where}`, args as never);
    },
    sweepLocks(now = Date.now()) {
      return db.run('DELETE FROM dav_locks WHERE expires_at <= ?', [now]).changes;
    },
  };
  return store;
}

/**
 * Dead properties as a binding of the files capability: a rename or move through the HTTP API
 * carries them as it carries versions (app.ts lists it as `davProperties` among the bindings).
 * A deletion keeps them only until the trash forgets the item, so they are dropped with it.
 */
export function davPropertyBindings(store: DavStore): BindingTable {
  return {
    forget: () => 0,
    carry: () => {},
    carryReal(from, to) {
      if (from.root === to.root && from.relative === to.relative) return;
      store.moveProperties(from, to);
    },
  };
}

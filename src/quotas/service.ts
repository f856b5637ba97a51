// Quotas: what an account may fill (its personal folder, plus the trash it filled and the
// versions its saves kept) and what a volume may hold. What is used comes from the folder-size
// index (a lookup, never a walk) plus what is in flight: a hold taken before bytes are written
// (a resumable upload's Upload-Length at creation; a multipart file or a WebDAV PUT chunk by
// chunk as it streams; a copy's or an extraction's planned size). A write that would go over
// is refused with 507 QUOTA_EXCEEDED before its bytes are kept. A placed write's hold stays as
// a landed hold until the index has counted the placed paths (the index learns of them a
// moment later), so they are never counted twice nor missed in between. Whether it counted them
// is asked of the index's rows (Indexer.counts): the placed file's size and modification time,
// and its folder's, read when it was placed — not a comparison of clocks (a walk that listed the
// folder after the placement counts the file whatever time its rows carry).
//
// Where the holds live:
// - The embedded database (one instance): in this process's memory. A crash leaves none behind
//   (a resumable upload takes its hold again at its next PATCH).
// - A cluster (DATABASE_URL=postgres://…, `shared`): rows of quota_holds (hold-store.ts), each
//   naming the instance writing. Taking or growing one is one statement under the scope's
//   advisory lock that checks used + every live hold of every instance + this one ≤ limit, so
//   concurrent writes through different instances that together exceed a quota: those that fit
//   are taken, the others refused before their bytes land. A row counts while its instance's
//   lease runs (cluster/leases.ts): a dead or killed instance's holds stop counting once its
//   lease lapses (a restart is a new instance), and are removed by the next take of their scope.
//   A streamed write grows its hold in steps (up to STEP_MAX ahead, never more than half the
//   room left), not a round trip per chunk. "Used" is each instance's own index, fed by the
//   change stream: a placement through instance A reaches B's index a moment later, and until
//   then the landed row counts it on B too — each instance asks its own index whether it
//   counted the placements (the row keeps what was placed, see above), for LANDED_MAX_MS at
//   most. A resumable upload's hold is named after it (`tus:<id>`): the instance receiving a
//   PATCH takes it over, and a termination or the expiry on any instance ends it (drop).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../core/errors.ts';
import type { Caller } from '../core/caller.ts';
import type { Space } from '../files/paths.ts';
import { NO_HOLD, type Charge, type Hold } from '../files/quota-port.ts';
import type { FolderFigures, Placement } from '../indexer/indexes.ts';
import { formatBytes } from '../uploads/staging.ts';
import type { Logger } from '../core/log.ts';
import type { HoldStore, HoldRow } from './hold-store.ts';
import type { QuotaStore } from './store.ts';

export interface Usage {
  limitBytes: number | null;
  /** Everything counted: the stored bytes below plus what is in flight. */
  usedBytes: number;
  /** The folder's (or volume's) size from the index; null when the index has no figure for it. */
  storedBytes: number | null;
  trashBytes: number;
  versionsBytes: number;
  reservedBytes: number;
  /** The index answers for it (FOLDER_SIZE_MODE=full, walked): without it only what is in flight counts. */
  measured: boolean;
}

export interface QuotasDeps {
  store: QuotaStore;
  /** The folder-size index (sync rows lookup) and the mode it runs in. */
  figures: (realPath: string) => FolderFigures;
  /** Whether the index's totals count what a write placed (its rows hold that file, or its folder as listed after it). */
  counts: (placed: Placement) => boolean;
  ensureRoot: (realRoot: string) => void;
  /** Bytes kept in the trash for what this account deleted; versions its saves kept. */
  trashBytes: (username: string) => number;
  versionsBytes: (username: string) => number;
  /** The account's personal folder (absolute), or null when personal folders are off. */
  personalFolder: (userId: string, username: string) => Promise<string | null>;
  /** An account's current username (a link's owner is known by id; trash and versions by name). */
  usernameOf: (userId: string) => string | undefined;
  /** The groups an account is in now (the access model's). */
  groupsOf: (userId: string) => { id: string; name: string }[];
  /** Told of each placement's figures against a limit (the notifications' "nearly full"). */
  placed?: (reading: QuotaReading) => void;
  /** A cluster's holds (PostgreSQL): the rows, and this instance's id (its lease's). */
  shared?: { holds: HoldStore; instance: string; log: Logger };
}

/** What a placement did to a limit: the bytes counted before it and after it. */
export interface QuotaReading {
  scope: 'account' | 'volume';
  /** The account charged (scope `account`). */
  userId: string | null;
  /** The account's name or the volume's. */
  name: string;
  beforeBytes: number;
  afterBytes: number;
  limitBytes: number;
}

/** Where an account's limit comes from: its own quota, or the largest default of its groups. */
export interface Limit {
  limitBytes: number | null;
  limitFrom: 'account' | 'group' | null;
  /** The group whose default it is. */
  limitGroup: string | null;
}

interface Landed {
  bytes: number;
  /** When the hold was taken (its landed bytes count LANDED_MAX_MS at most). */
  at: number;
  placed: readonly Placement[];
}

/** How long a landed hold is counted at most while the index has not caught up with it. */
const LANDED_MAX_MS = 10 * 60_000;
/** A cluster's streamed write holds ahead as much as it has written, between these (one round trip a step). */
const STEP_MIN = 1024 * 1024;
const STEP_MAX = 16 * 1024 * 1024;

/**
 * What a write placed at `realPath`, read right after: the index is asked whether it counts this
 * (Indexer.counts). Gone already (moved or deleted since): nothing of it can be matched, and its
 * landed bytes count until LANDED_MAX_MS.
 */
function placementOf(realPath: string): Placement {
  const st = fs.statSync(realPath, { throwIfNoEntry: false });
  const dir = fs.statSync(path.dirname(realPath), { throwIfNoEntry: false });
  return {
    path: realPath,
    size: st?.size ?? -1,
    mtime: st ? Math.trunc(st.mtimeMs) : Number.MAX_SAFE_INTEGER,
    dirMtime: dir ? Math.trunc(dir.mtimeMs) : Number.MAX_SAFE_INTEGER,
  };
}

/** A cluster row's placement as stored (a bare path: written before placements were kept, matched by nothing). */
function readPlacement(v: unknown): Placement {
  if (typeof v === 'string')
    return { path: v, size: -1, mtime: Number.MAX_SAFE_INTEGER, dirMtime: Number.MAX_SAFE_INTEGER };
  const p = v as Partial<Placement>;
  return {
    path: String(p.path),
    size: Number(p.size),
    mtime: Number(p.mtime),
    dirMtime: Number(p.dirMtime),
  };
}

/** One limit a hold counts against. */
interface Scope {
  key: string;
  scope: 'account' | 'volume';
  who: string;
  root: string;
  limit: number;
  /** What the index counts there (stored, trash, versions): the cluster's base. */
  base: () => number;
}

export function createQuotas(deps: QuotasDeps) {
  const { store, shared } = deps;
  /** Live holds' bytes per scope key (`a:<userId>`, `v:<volume name, lower case>`): one instance's. */
  const reserved = new Map<string, number>();
  /** Placed bytes the index may not have counted yet, per scope key: one instance's. */
  const landed = new Map<string, Landed[]>();
  /** Named holds that outlive their request (a resumable upload's), on one instance. */
  const named = new Map<string, Hold>();
  /** A cluster's landed holds this instance's index counted (a row once counted stays so). */
  const countedHere = new Set<string>();
  /** A cluster's holds whose release did not reach the database (PostgreSQL away): tried again. */
  const unreleased = new Map<string, string | null>();

  /**
   * An account's limit: its own quota, else the largest default among its groups — a default is
   * an allowance, so being in one more group never takes room away (to give one member less, set
   * their own quota).
   */
  function limitOf(userId: string): Limit {
    const own = store.account(userId);
    if (own !== null) return { limitBytes: own, limitFrom: 'account', limitGroup: null };
    let best: Limit = { limitBytes: null, limitFrom: null, limitGroup: null };
    for (const g of deps.groupsOf(userId)) {
      const d = store.group(g.id);
      if (d !== null && (best.limitBytes === null || d > best.limitBytes))
        best = { limitBytes: d, limitFrom: 'group', limitGroup: g.name };
    }
    return best;
  }

  const accountKey = (userId: string) => `a:${userId}`;
  const volumeKey = (name: string) => `v:${name.toLowerCase()}`;

  /** The index counted a landing: its totals count every placement (Indexer.counts). */
  const counted = (placed: readonly Placement[]): boolean => placed.every((p) => deps.counts(p));

  function stored(root: string): number | null {
    const f = deps.figures(root);
    return f.indexed && f.recursive && f.sizeBytes !== null ? f.sizeBytes : null;
  }

  function pendingLanded(key: string): number {
    const list = landed.get(key);
    if (!list) return 0;
    const now = Date.now();
    const kept = list.filter((l) => now - l.at <= LANDED_MAX_MS && !counted(l.placed));
    if (kept.length) landed.set(key, kept);
    else landed.delete(key);
    return kept.reduce((n, l) => n + l.bytes, 0);
  }

  /** Whether this instance's index counted a cluster's landed row (asked once more until it did). */
  function countedRow(r: HoldRow): boolean {
    if (countedHere.has(r.id)) return true;
    let placed: Placement[] = [];
    try {
      placed = (JSON.parse(r.paths ?? '[]') as unknown[]).map(readPlacement);
    } catch {
      return false; // unreadable: counted while it lasts
    }
    if (!counted(placed)) return false;
    countedHere.add(r.id);
    return true;
  }

  const iso = (ms: number) => new Date(ms).toISOString();

  /** A cluster's scope rows that count now, and the landed ones this instance's index counted. */
  function clusterRows(key: string): { held: number; counted: string[] } {
    retryReleases();
    const now = Date.now();
    const rows = shared!.holds.rows(key, iso(now), now - LANDED_MAX_MS);
    let held = 0;
    const countedIds: string[] = [];
    for (const r of rows) {
      if (r.landed_at !== null && countedRow(r)) countedIds.push(r.id);
      else held += r.bytes;
    }
    // Forget counted ids once their rows are gone (landed longer ago than LANDED_MAX_MS).
    if (countedHere.size > 10_000) countedHere.clear();
    return { held, counted: countedIds };
  }

  /** What is in flight for a scope: this instance's holds, or every instance's. */
  const inFlight = (key: string) => (shared ? clusterRows(key).held : (reserved.get(key) ?? 0) + pendingLanded(key));

  function accountUsage(userId: string, username: string, root: string | null): Usage & Limit {
    const key = accountKey(userId);
    const held = root ? stored(root) : null;
    const trashBytes = deps.trashBytes(username);
    const versionsBytes = deps.versionsBytes(username);
    const reservedBytes = inFlight(key);
    return {
      ...limitOf(userId),
      usedBytes: (held ?? 0) + trashBytes + versionsBytes + reservedBytes,
      storedBytes: held,
      trashBytes,
      versionsBytes,
      reservedBytes,
      measured: root === null || held !== null,
    };
  }

  function volumeUsage(name: string, root: string): Usage {
    const key = volumeKey(name);
    const held = stored(root);
    const reservedBytes = inFlight(key);
    return {
      limitBytes: store.volume(name),
      usedBytes: (held ?? 0) + reservedBytes,
      storedBytes: held,
      trashBytes: 0,
      versionsBytes: 0,
      reservedBytes,
      measured: held !== null,
    };
  }

  function exceeded(scope: 'account' | 'volume', who: string, used: number, limit: number, needed: number): AppError {
    const whose = scope === 'account' ? `${who}'s quota` : `The quota of the volume ${who}`;
    const free = Math.max(0, limit - used);
    return new AppError(
      'QUOTA_EXCEEDED',
      `${whose} is ${formatBytes(limit)}: ${formatBytes(used)} of it is used (${formatBytes(free)} free) and this needs ${formatBytes(needed)}. Nothing was kept.`,
      { details: { scope, usedBytes: used, limitBytes: limit, neededBytes: needed } },
    );
  }

  /** The limits a charge counts against now. */
  function scopesOf(charge: Charge): Scope[] {
    const scopes: Scope[] = [];
    if (charge.account) {
      const { userId, username, root } = charge.account;
      const limit = limitOf(userId).limitBytes;
      if (limit !== null)
        scopes.push({
          key: accountKey(userId),
          scope: 'account',
          who: username,
          root,
          limit,
          base: () => (stored(root) ?? 0) + deps.trashBytes(username) + deps.versionsBytes(username),
        });
    }
    if (charge.volume) {
      const { name, root } = charge.volume;
      const limit = store.volume(name);
      if (limit !== null)
        scopes.push({ key: volumeKey(name), scope: 'volume', who: name, root, limit, base: () => stored(root) ?? 0 });
    }
    return scopes;
  }

  /** One instance's hold: counted in this process's memory. */
  function localHold(scopes: Scope[], bytes: number, name: string | undefined): Hold {
    const bases = scopes.map((s) => s.base() + pendingLanded(s.key));
    let taken = 0;
    let open = true;
    /** Before the placement's own change can reach the index (the hold is taken before writing). */
    const at = Date.now();
    const h: Hold = {
      add(n) {
        if (!open || n <= 0) return;
        scopes.forEach((s, i) => {
          const used = bases[i]! + (reserved.get(s.key) ?? 0);
          if (used + n > s.limit) throw exceeded(s.scope, s.who, used - taken, s.limit, taken + n);
        });
        for (const s of scopes) reserved.set(s.key, (reserved.get(s.key) ?? 0) + n);
        taken += n;
      },
      land(paths) {
        if (!open) return;
        const placed = paths.map(placementOf);
        scopes.forEach((s, i) => {
          if (taken > 0) landed.set(s.key, [...(landed.get(s.key) ?? []), { bytes: taken, at, placed }]);
          const after = bases[i]! + (reserved.get(s.key) ?? 0);
          tell(s, after - taken, after);
        });
        h.release();
      },
      release() {
        if (!open) return;
        open = false;
        if (name !== undefined && named.get(name) === h) named.delete(name);
        for (const s of scopes) {
          const left = (reserved.get(s.key) ?? 0) - taken;
          if (left > 0) reserved.set(s.key, left);
          else reserved.delete(s.key);
        }
      },
      get bytes() {
        return taken;
      },
    };
    h.add(bytes);
    if (name !== undefined) named.set(name, h);
    return h;
  }

  /** A cluster's hold: a row per scope, taken and grown under the scope's lock (hold-store.ts). */
  function clusterHold(scopes: Scope[], bytes: number, name: string | undefined): Hold {
    const { holds, instance } = shared!;
    const id = name ?? randomBytes(12).toString('base64url');
    /** Bytes the rows hold (a streamed write's run ahead of what it wrote), and what else was used. */
    const granted = scopes.map(() => 0);
    const others = scopes.map(() => 0);
    let taken = 0;
    let open = true;
    const at = Date.now();
    /** Holds `need` in every scope, `ahead` more where the room allows; all or none. */
    const grow = (need: number, ahead: number) => {
      const results: number[] = [];
      const run = () => {
        results.length = 0;
        scopes.forEach((s, i) => {
          if (granted[i]! >= need) {
            results.push(granted[i]!);
            return;
          }
          // The landed rows read now: one read earlier would count a row this instance's index
          // counted meanwhile twice (a resumed upload refused at its limit).
          const { counted } = clusterRows(s.key);
          const now = Date.now();
          const used = holds.take({
            id,
            scope: s.key,
            instance,
            need,
            ahead,
            base: s.base(),
            limit: s.limit,
            takenAt: at,
            now: iso(now),
            landedSince: now - LANDED_MAX_MS,
            counted,
          });
          if (used + need > s.limit) throw exceeded(s.scope, s.who, used, s.limit, need);
          others[i] = used;
          results.push(need + Math.min(ahead, Math.floor((s.limit - used - need) / 2)));
        });
      };
      // Two limits at once (never today: a space is a personal folder or a volume): one transaction.
      if (scopes.length > 1) holds.together(run);
      else run();
      results.forEach((g, i) => (granted[i] = g));
    };
    /** `n` more bytes: exactly (a length known up front), or with a step ahead (a body streaming). */
    const add = (n: number, stepping: boolean) => {
      if (!open || n <= 0) return;
      const need = taken + n;
      if (granted.some((g) => g < need)) grow(need, stepping ? Math.min(STEP_MAX, Math.max(STEP_MIN, need)) : 0);
      taken = need;
    };
    const h: Hold = {
      add: (n) => add(n, true),
      land(paths) {
        if (!open) return;
        open = false;
        const placedAt = Date.now();
        const placed = JSON.stringify(paths.map(placementOf));
        scopes.forEach((s, i) => {
          if (taken > 0) holds.land(id, s.key, instance, taken, placedAt, s.root, placed);
          tell(s, others[i]!, others[i]! + taken);
        });
        if (taken === 0) letGo(id, instance);
      },
      release() {
        if (!open) return;
        open = false;
        letGo(id, instance);
      },
      get bytes() {
        return taken;
      },
    };
    add(bytes, false);
    return h;
  }

  /** Deletes a cluster's live hold; kept to try again when the database is away. */
  function letGo(id: string, instance: string | null) {
    try {
      shared!.holds.release(id, instance);
      unreleased.delete(id);
    } catch (err) {
      unreleased.set(id, instance);
      shared!.log.warn('could not let go of a quota hold: tried again at the next one', { err });
    }
  }
  function retryReleases() {
    for (const [id, instance] of unreleased) {
      shared!.holds.release(id, instance);
      unreleased.delete(id);
    }
  }

  /** A placement's reading against a limit (the notifications' "nearly full"). */
  function tell(s: Scope, beforeBytes: number, afterBytes: number) {
    deps.placed?.({
      scope: s.scope,
      userId: s.scope === 'account' ? s.key.slice(2) : null,
      name: s.who,
      beforeBytes,
      afterBytes,
      limitBytes: s.limit,
    });
  }

  return {
    /**
     * Whom a write into `space` is charged to (a link's writes: its owner's space), or null when
     * no quota applies there. `caller` is the one writing; a link's owner is charged for it.
     */
    chargeFor(caller: Caller, space: Space): Charge | null {
      const base = space.share?.ownerSpace ?? space;
      const userId = space.share?.ownerId ?? caller.userId;
      const account =
        base.kind === 'personal' && limitOf(userId).limitBytes !== null
          ? { userId, username: space.share ? (deps.usernameOf(userId) ?? '') : caller.username, root: base.root }
          : null;
      const volume =
        base.kind === 'volume' && store.volume(base.name) !== null ? { name: base.name, root: base.root } : null;
      if (!account && !volume) return null;
      if (account) deps.ensureRoot(account.root);
      if (volume) deps.ensureRoot(volume.root);
      return { account, volume };
    },

    /**
     * A hold of `bytes` (0: to grow as a body streams), or QUOTA_EXCEEDED. A named hold (a
     * resumable upload's) taken again replaces the one of that name: its bytes count once.
     */
    hold(charge: Charge | null, bytes = 0, name?: string): Hold {
      if (!charge) return NO_HOLD;
      const scopes = scopesOf(charge);
      if (shared) return clusterHold(scopes, bytes, name);
      if (name !== undefined) named.get(name)?.release();
      return localHold(scopes, bytes, name);
    },

    /** Ends the named hold wherever it was taken (a terminated or expired resumable upload). */
    drop(name: string): void {
      if (shared) letGo(name, null);
      else named.get(name)?.release();
    },

    limitOf,

    /** An account's figures (the sidebar; Administration). */
    async accountUsage(userId: string, username: string): Promise<Usage & Limit> {
      const folder = await deps.personalFolder(userId, username);
      const root = folder ? await fsp.realpath(folder).catch(() => null) : null;
      if (root) deps.ensureRoot(root);
      return accountUsage(userId, username, root);
    },

    /** A volume's figures, its real root given. */
    volumeUsage(name: string, root: string): Usage {
      deps.ensureRoot(root);
      return volumeUsage(name, root);
    },
  };
}

export type Quotas = ReturnType<typeof createQuotas>;

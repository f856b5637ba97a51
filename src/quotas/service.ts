// Quotas: what an account may fill (its personal folder, plus the trash it filled and the
// versions its saves kept) and what a volume may hold. What is used comes from the folder-size
// index (a lookup, never a walk) plus what is in flight: a hold taken before bytes are written
// (a resumable upload's Upload-Length at creation; a multipart file or a WebDAV PUT chunk by
// chunk as it streams; a copy's or an extraction's planned size). A write that would go over
// is refused with 507 QUOTA_EXCEEDED before its bytes are kept. Holds live in this process
// only: a crash leaves none behind (a resumable upload takes its hold again at its next PATCH).
import fsp from 'node:fs/promises';
import { AppError } from '../core/errors.ts';
import type { Caller } from '../core/caller.ts';
import type { Space } from '../files/paths.ts';
import { NO_HOLD, type Charge, type Hold } from '../files/quota-port.ts';
import type { FolderFigures } from '../indexer/indexes.ts';
import { formatBytes } from '../uploads/staging.ts';
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
  /** When the index last wrote a path's row (ms), or null. */
  stamped: (realPath: string) => number | null;
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
  root: string;
  bytes: number;
  /** When the hold was taken: the index's rows of the placed paths are newer once it counted them. */
  at: number;
  paths: readonly string[];
}

/** How long a landed hold is counted at most while the index has not caught up with it. */
const LANDED_MAX_MS = 10 * 60_000;

export function createQuotas(deps: QuotasDeps) {
  const { store } = deps;
  /** Live holds' bytes per scope key (`a:<userId>`, `v:<volume name, lower case>`). */
  const reserved = new Map<string, number>();
  /** Placed bytes the index may not have counted yet, per scope key. */
  const landed = new Map<string, Landed[]>();

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

  /**
   * The index counted a landing: it wrote the row of every placed path since, and the space's
   * total was updated since (the total follows its rows in the same serial step). The two times
   * are not compared with each other: a row's stamp comes from the walker's clock, which never goes
   * back and so may run ahead of the time the totals are written with (a row stamped 16 ms after
   * the total that already held it kept the landed bytes counted twice for ten minutes).
   */
  function counted(l: Landed): boolean {
    for (const p of l.paths) {
      const stamp = deps.stamped(p);
      if (stamp === null || stamp < l.at) return false;
    }
    const updated = deps.figures(l.root).lastUpdated;
    return updated !== null && Date.parse(updated) >= l.at;
  }

  function stored(root: string): number | null {
    const f = deps.figures(root);
    return f.indexed && f.recursive && f.sizeBytes !== null ? f.sizeBytes : null;
  }

  function pendingLanded(key: string): number {
    const list = landed.get(key);
    if (!list) return 0;
    const now = Date.now();
    const kept = list.filter((l) => now - l.at <= LANDED_MAX_MS && !counted(l));
    if (kept.length) landed.set(key, kept);
    else landed.delete(key);
    return kept.reduce((n, l) => n + l.bytes, 0);
  }

  function accountUsage(userId: string, username: string, root: string | null): Usage & Limit {
    const key = accountKey(userId);
    const held = root ? stored(root) : null;
    const trashBytes = deps.trashBytes(username);
    const versionsBytes = deps.versionsBytes(username);
    const reservedBytes = (reserved.get(key) ?? 0) + pendingLanded(key);
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
    const reservedBytes = (reserved.get(key) ?? 0) + pendingLanded(key);
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

    /** A hold of `bytes` (0: to grow as a body streams), or QUOTA_EXCEEDED. */
    hold(charge: Charge | null, bytes = 0): Hold {
      if (!charge) return NO_HOLD;
      const scopes: { key: string; scope: 'account' | 'volume'; who: string; base: number; limit: number }[] = [];
      if (charge.account) {
        const limit = limitOf(charge.account.userId).limitBytes;
        const username = charge.account.username;
        if (limit !== null) {
          const u = accountUsage(charge.account.userId, username, charge.account.root);
          const key = accountKey(charge.account.userId);
          scopes.push({ key, scope: 'account', who: username, base: u.usedBytes - (reserved.get(key) ?? 0), limit });
        }
      }
      if (charge.volume) {
        const limit = store.volume(charge.volume.name);
        if (limit !== null) {
          const u = volumeUsage(charge.volume.name, charge.volume.root);
          const key = volumeKey(charge.volume.name);
          scopes.push({
            key,
            scope: 'volume',
            who: charge.volume.name,
            base: u.usedBytes - (reserved.get(key) ?? 0),
            limit,
          });
        }
      }
      let taken = 0;
      let open = true;
      /** Before the placement's own change can reach the index (the hold is taken before writing). */
      const at = Date.now();
      const h: Hold = {
        add(n) {
          if (!open || n <= 0) return;
          for (const s of scopes) {
            const used = s.base + (reserved.get(s.key) ?? 0);
            if (used + n > s.limit) throw exceeded(s.scope, s.who, used - taken, s.limit, taken + n);
          }
          for (const s of scopes) reserved.set(s.key, (reserved.get(s.key) ?? 0) + n);
          taken += n;
        },
        land(paths) {
          if (!open) return;
          for (const s of scopes) {
            const root = s.scope === 'account' ? charge.account!.root : charge.volume!.root;
            if (taken > 0) landed.set(s.key, [...(landed.get(s.key) ?? []), { root, bytes: taken, at, paths }]);
            const after = s.base + (reserved.get(s.key) ?? 0);
            deps.placed?.({
              scope: s.scope,
              userId: s.scope === 'account' ? charge.account!.userId : null,
              name: s.who,
              beforeBytes: after - taken,
              afterBytes: after,
              limitBytes: s.limit,
            });
          }
          h.release();
        },
        release() {
          if (!open) return;
          open = false;
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
      return h;
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

    /** In-flight bytes in all (tests and Administration: zero after a restart). */
    reservedTotal(): number {
      let n = 0;
      for (const v of reserved.values()) n += v;
      return n;
    },
  };
}

export type Quotas = ReturnType<typeof createQuotas>;

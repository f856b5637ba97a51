// Which spaces an account sees — the volumes under VOLUME_ROOT and the host folders served as
// volumes, its personal folder, or the folders assigned to it — and the folders no path may
// reach inside any of them: Burrow's own (configuration, cache) and the other accounts'
// personal folders. The resolver (resolver.ts) asks both for every path it resolves.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../core/errors.ts';
import type { Caller } from '../core/caller.ts';
import { createProbeCache } from './access.ts';
import { RESERVED_PREFIXES, isInside, type AssignedVolume, type Space } from './paths.ts';
import type { PersonalFolders } from './personal.ts';

export interface SpacesDeps {
  volumeRoot: string;
  userDirEnabled: boolean;
  userVolumesEnabled: boolean;
  personal: PersonalFolders;
  /** Folders no route may reach inside any space (configuration, cache). */
  privateDirs: readonly string[];
  assignedVolumes?: (userId: string) => readonly AssignedVolume[];
  /** Host folders added as volumes (Administration → Volumes), served beside VOLUME_ROOT's folders. */
  hostVolumes?: () => readonly AssignedVolume[];
}

export interface Spaces {
  /** The spaces the caller sees (none for a link's visitor: a link is its own space). */
  of(caller: Caller): Promise<Space[]>;
  /** Throws 404 when `real` lies in a private folder or in another account's personal folder than `space`'s own. */
  assertNotPrivate(real: string, space: Space): Promise<void>;
}

/** How long the volumes read from disk are trusted before they are read again. */
const VOLUMES_FRESH_MS = 1000;

const missing = () => new AppError('NOT_FOUND', 'No such file or folder.');

export async function realpathOrNull(p: string): Promise<string | null> {
  try {
    return await fsp.realpath(p);
  } catch {
    return null;
  }
}

export function createSpaces(deps: SpacesDeps): Spaces {
  const probe = createProbeCache();
  let privateReal: string[] | null = null;

  async function privateZones(): Promise<string[]> {
    privateReal ??= await Promise.all(deps.privateDirs.map(async (d) => (await realpathOrNull(d)) ?? path.resolve(d)));
    return privateReal;
  }

  // Every request resolves through the volumes; reading them (a readdir of VOLUME_ROOT, a stat
  // and a realpath per volume, a realpath per host folder) cost ~15 % of a small request. They
  // change when VOLUME_ROOT's entries or the host-volume list change, which the key sees; a
  // symlink re-pointed further down (outside VOLUME_ROOT) is seen within a second. Confinement
  // does not rest on this: every descriptor is still checked against its root at use.
  let volumesCache: { key: string; until: number; spaces: Promise<Space[]> } | null = null;
  async function volumeSpaces(): Promise<Space[]> {
    const top = await fsp.stat(deps.volumeRoot, { bigint: true }).catch(() => null);
    const key = `${top?.ino}:${top?.mtimeNs}:${top?.ctimeNs}:${top?.nlink}:${top?.size}:${JSON.stringify(deps.hostVolumes?.() ?? [])}`;
    const now = Date.now();
    if (!volumesCache || volumesCache.key !== key || now >= volumesCache.until) {
      const spaces = readVolumeSpaces();
      volumesCache = { key, until: now + VOLUMES_FRESH_MS, spaces };
      spaces.catch(() => {
        if (volumesCache?.spaces === spaces) volumesCache = null;
      });
    }
    return [...(await volumesCache.spaces)];
  }

  /** Real paths of the other accounts' personal folders (assertNotPrivate), fresh for as long as the volumes. */
  const personalReal = new Map<string, { until: number; real: string }>();
  async function realPersonalFolder(folder: string): Promise<string> {
    const now = Date.now();
    const hit = personalReal.get(folder);
    if (hit && now < hit.until) return hit.real;
    const real = (await realpathOrNull(folder)) ?? folder;
    if (personalReal.size > 10_000) personalReal.clear();
    personalReal.set(folder, { until: now + VOLUMES_FRESH_MS, real });
    return real;
  }

  async function readVolumeSpaces(): Promise<Space[]> {
    let entries: fs.Dirent[];
    try {
      entries = await fsp.readdir(deps.volumeRoot, { withFileTypes: true });
    } catch {
      return [];
    }
    const out: Space[] = [];
    for (const e of entries) {
      if (e.name.startsWith('.') || RESERVED_PREFIXES.has(e.name)) continue;
      const full = path.join(deps.volumeRoot, e.name);
      if (!e.isDirectory() && !(e.isSymbolicLink() && (await fsp.stat(full).catch(() => null))?.isDirectory()))
        continue;
      const root = await realpathOrNull(full);
      if (!root || (await privateZones()).some((zone) => isInside(zone, root))) continue;
      out.push({ kind: 'volume', name: e.name, path: e.name, root, readOnly: await probe(root) });
    }
    // Confined like the others: real root, never a private folder; a VOLUME_ROOT folder of the same name wins.
    for (const v of deps.hostVolumes?.() ?? []) {
      if (out.some((s) => s.name.toLowerCase() === v.label.toLowerCase())) continue;
      const root = await realpathOrNull(v.path);
      if (!root || (await privateZones()).some((zone) => isInside(zone, root))) continue;
      out.push({
        kind: 'volume',
        name: v.label,
        path: v.label,
        root,
        accessMode: v.accessMode,
        readOnly: (await probe(root)) ?? (v.accessMode === 'readonly' ? 'access' : null),
      });
    }
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }

  return {
    async of(caller) {
      if (caller.link) return [];
      const assigned = deps.userVolumesEnabled ? (deps.assignedVolumes?.(caller.userId) ?? []) : [];
      if (assigned.length) {
        const out: Space[] = [];
        for (const v of assigned) {
          const root = await realpathOrNull(v.path);
          if (!root) continue;
          const storage = await probe(root);
          out.push({
            kind: 'assigned',
            name: v.label,
            path: v.label,
            root,
            accessMode: v.accessMode,
            readOnly: storage ?? (v.accessMode === 'readonly' ? 'access' : null),
          });
        }
        return out;
      }
      const out = await volumeSpaces();
      if (deps.userDirEnabled) {
        const root = await fsp.realpath(await deps.personal.folderFor(caller.userId, caller.username));
        out.push({ kind: 'personal', name: 'Personal', path: 'personal', root, readOnly: await probe(root) });
      }
      return out;
    },

    async assertNotPrivate(real, space) {
      for (const zone of await privateZones()) if (isInside(zone, real)) throw missing();
      if (!deps.userDirEnabled && deps.personal.all().length === 0) return;
      const own = space.kind === 'personal' ? space.root : null;
      for (const folder of deps.personal.all()) {
        const folderReal = await realPersonalFolder(folder);
        if (folderReal === own) continue;
        // A link stands on its owner's side: the owner's own folder was checked when the link resolved.
        if (space.share && space.share.ownerSpace.kind === 'personal' && isInside(folderReal, space.root)) continue;
        if (isInside(folderReal, real)) throw missing();
      }
    },
  };
}

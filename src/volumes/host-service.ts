// Host folders as volumes: an administrator names a folder of this computer, read-only or
// read-write, and every account that sees volumes finds it beside VOLUME_ROOT's folders. The
// path is checked here (an existing folder, not inside Burrow's own folders, the label free
// among all volumes) and stored as its real path; the resolver confines every use of it.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../core/errors.ts';
import { assertPlainName } from '../files/names.ts';
import { RESERVED_PREFIXES, isInside } from '../files/paths.ts';
import { probeWritable } from '../files/access.ts';
import type { Caller } from '../core/caller.ts';
import type { AccessRuleWire } from '../access/wire.ts';
import type { HostVolume, HostVolumeStore } from './host-store.ts';
import type { GroupGrant, WireHostVolume } from './wire.ts';

/**
 * The access model's part (access/service.ts): a volume given to one group — the group's level
 * and hidden for everyone else at its root, written in one transaction after `first` (the
 * volume's row); and a renamed volume's path-bound rows — its rules, links, favourites, tags,
 * view preferences, WebDAV properties (files/bindings.ts) — following its label, in `within`'s
 * transaction.
 */
export interface VolumeRules {
  giveVolume<T>(
    caller: Caller,
    input: { path: string; groupId: string; level: GroupGrant['level'] },
    ip: string,
    first: () => T,
  ): { made: T; rules: AccessRuleWire[] };
  renameVolume<T>(from: string, to: string, within: () => T): T;
}

export interface HostVolumeDeps {
  store: HostVolumeStore;
  volumeRoot: string;
  /** CONFIG_DIR, CACHE_DIR: never served. */
  privateDirs: readonly string[];
  /** Told of each folder starting or stopping to be served (the indexes follow). */
  announce?: (event: HostVolumeEvent) => void;
  /** The rules at a volume's root: a volume for one group, a rename. */
  rules: VolumeRules;
}

export interface HostVolumeEvent {
  type: 'added' | 'removed';
  /** The folder's real path. */
  path: string;
}

export function looseFilesAt(volumeRoot: string): string[] {
  try {
    return fs
      .readdirSync(volumeRoot, { withFileTypes: true })
      .filter((e) => e.isFile() && !e.name.startsWith('.'))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

/** Why a volume's folder cannot be served (gone, not a folder, unreadable), or null when it can. */
export async function problemOf(folder: string): Promise<string | null> {
  const st = await fsp.stat(folder).catch((err: NodeJS.ErrnoException) => err);
  if (st instanceof Error)
    return st.code === 'ENOENT' ? 'its folder is gone' : `its folder cannot be read: ${st.code ?? st.message}`;
  if (!st.isDirectory()) return 'its path is no longer a folder';
  return fsp.access(folder, fs.constants.R_OK | fs.constants.X_OK).then(
    () => null,
    (err: NodeJS.ErrnoException) => `its folder cannot be read: ${err.code ?? err.message}`,
  );
}

export interface VolumeHealth {
  label: string;
  /** Its folder (real path), whose disk the check reads. */
  path: string;
  /** Its folder is gone or cannot be read. */
  problem: string | null;
  /** Mounted read-write, but nothing can be written there. */
  readOnly: string | null;
}

export function createHostVolumes(deps: HostVolumeDeps) {
  const { store } = deps;

  const rootFolders = (): string[] => {
    try {
      return fs
        .readdirSync(deps.volumeRoot, { withFileTypes: true })
        .filter((e) => !e.name.startsWith('.') && (e.isDirectory() || e.isSymbolicLink()))
        .map((e) => e.name);
    } catch {
      return [];
    }
  };

  function checkLabel(raw: string, except?: string): string {
    const label = raw.trim();
    assertPlainName(label, 'label');
    if (label.startsWith('.')) throw new AppError('BAD_NAME', 'A volume label may not start with a dot.');
    if (RESERVED_PREFIXES.has(label.toLowerCase()))
      throw new AppError('BAD_NAME', `"${label}" is reserved; choose another label.`);
    const lower = label.toLowerCase();
    if (rootFolders().some((n) => n.toLowerCase() === lower))
      throw new AppError('EXISTS', `A folder of VOLUME_ROOT is already the volume "${label}"; choose another label.`);
    if (store.list().some((v) => v.id !== except && v.label.toLowerCase() === lower))
      throw new AppError('EXISTS', `There is already a volume labelled "${label}".`);
    return label;
  }

  async function checkPath(raw: string): Promise<string> {
    if (!path.isAbsolute(raw) || raw.includes('\0'))
      throw new AppError('BAD_PATH', 'The path must be an absolute host folder.');
    const real = await fsp.realpath(raw).catch(() => null);
    const st = real ? await fsp.stat(real).catch(() => null) : null;
    if (!real || !st?.isDirectory()) throw new AppError('NOT_A_FOLDER', 'The path is not an existing folder.');
    for (const dir of deps.privateDirs) {
      const zone = (await fsp.realpath(dir).catch(() => null)) ?? path.resolve(dir);
      if (isInside(zone, real))
        throw new AppError('BAD_PATH', "That folder is inside Burrow's own configuration or cache folder.");
    }
    return real;
  }

  async function toWire(v: HostVolume): Promise<WireHostVolume> {
    const readable = (await problemOf(v.path)) === null;
    return { ...v, available: readable, storageReadOnly: readable ? (await probeWritable(v.path)) !== null : true };
  }

  return {
    async list() {
      return {
        volumes: await Promise.all(store.list().map(toWire)),
        volumeRoot: deps.volumeRoot,
        looseFiles: looseFilesAt(deps.volumeRoot),
      };
    },
    async add(
      input: { label: string; path: string; accessMode: 'readonly' | 'readwrite'; group?: GroupGrant | undefined },
      caller: Caller,
      ip: string,
    ) {
      const label = checkLabel(input.label);
      const real = await checkPath(input.path);
      const insert = () => {
        const made = store.add({ label, path: real, accessMode: input.accessMode });
        if (!made) throw new AppError('EXISTS', `There is already a volume labelled "${label}".`);
        return made;
      };
      // For one group: the volume and its two rules in one transaction (an unknown group leaves neither).
      const given = input.group
        ? deps.rules.giveVolume(caller, { path: label, groupId: input.group.id, level: input.group.level }, ip, insert)
        : null;
      const volume = given ? given.made : insert();
      deps.announce?.({ type: 'added', path: volume.path });
      return { volume: await toWire(volume), ...(given ? { rules: given.rules } : {}) };
    },
    /** An existing volume given to one group: the group's level at its root, hidden for everyone else. */
    async give(id: string, grant: GroupGrant, caller: Caller, ip: string) {
      const current = store.get(id);
      if (!current) throw new AppError('NOT_FOUND', 'No such volume.');
      const { made, rules } = deps.rules.giveVolume(
        caller,
        { path: current.label, groupId: grant.id, level: grant.level },
        ip,
        () => {
          const v = store.get(id);
          if (!v) throw new AppError('NOT_FOUND', 'No such volume.');
          return v;
        },
      );
      return { volume: await toWire(made), rules };
    },
    async update(id: string, input: { label?: string; accessMode?: 'readonly' | 'readwrite' }) {
      const label = input.label === undefined ? undefined : checkLabel(input.label, id);
      const before = store.get(id);
      if (!before) throw new AppError('NOT_FOUND', 'No such volume.');
      // A new label carries what is bound to the volume's root and below: a volume for one group
      // stays theirs, its links still open, its favourites and tags are still there. Refused
      // inside the transaction: a label taken leaves every row where it was.
      const volume = deps.rules.renameVolume(before.label, label ?? before.label, () => {
        const v = store.update(id, {
          ...(label ? { label } : {}),
          ...(input.accessMode ? { accessMode: input.accessMode } : {}),
        });
        if (v === undefined) throw new AppError('NOT_FOUND', 'No such volume.');
        if (v === null) throw new AppError('EXISTS', `There is already a volume labelled "${label}".`);
        return v;
      });
      return { volume: await toWire(volume) };
    },
    /**
     * The volume check: each host folder's trouble, or null (the notifications' "volume
     * missing"), and for a volume mounted read-write whose folder can be read, why Burrow cannot
     * write there, or null (their "volume read-only").
     */
    async health(): Promise<VolumeHealth[]> {
      return Promise.all(
        store.list().map(async (v) => {
          const problem = await problemOf(v.path);
          const ro = problem === null && v.accessMode === 'readwrite' ? await probeWritable(v.path) : null;
          return {
            label: v.label,
            path: v.path,
            problem,
            readOnly:
              ro === 'storage'
                ? 'its disk is mounted read-only'
                : ro === 'permission'
                  ? 'Burrow may not write in its folder'
                  : null,
          };
        }),
      );
    },
    remove(id: string): void {
      const volume = store.get(id);
      if (!volume || !store.remove(id)) throw new AppError('NOT_FOUND', 'No such volume.');
      deps.announce?.({ type: 'removed', path: volume.path });
    },
  };
}
export type HostVolumes = ReturnType<typeof createHostVolumes>;

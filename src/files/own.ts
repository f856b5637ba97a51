// Burrow's own files for a space — its trash, the earlier versions of its files, the parts of
// uploads into it — kept out of the user's folders. Whoever browses the same disk another way
// (SMB, a desktop file manager) saw a `.burrow` folder in every volume and host folder
// (`Code/.burrow/versions`), and an empty `.burrow/uploads` after a file request. Deleting to the
// trash and finishing an upload must stay a rename, so the folder has to be on the same mount
// as the space. Where, decided once per space root per run:
//  1. `<CONFIG_DIR>/files`, when an entry can be renamed from there into the space's root (one
//     probe: an empty file made there and renamed in under a hidden temporary name, on the work
//     journal, then removed) — the data folder and the user's folders on one disk, as on most
//     desktops;
//  2. else `.burrow` at the top of the space's disk (the highest folder above the space on the
//     same device, short of `/`), when Burrow may write there and the same probe passes: one
//     hidden folder per disk, outside the volume unless the volume is the whole disk;
//  3. else `.burrow` in the space's root, as before.
// Where a probe cannot be made (a read-only space: nothing is written to it anyway), the data
// folder is used when it is on the same device.
//
// Stored paths are absolute in the database, so entries made in an earlier place keep working;
// existing installs move their trash and versions out of the old `<space>/.burrow` at startup
// (files/capability.ts), and an own folder a user can see is never left behind empty by uploads
// (`tidy`).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { WorkJournal } from './journal.ts';
import { RESERVED_DIR, TEMP_PREFIX } from './names.ts';

/** What an own folder holds, one folder each. */
export type OwnKind = 'trash' | 'versions' | 'uploads';

export interface OwnFolders {
  /** The folder holding `trash/`, `versions/` and `uploads/` for the space rooted at `spaceRoot` (a real path). */
  of(spaceRoot: string): Promise<string>;
  /** `of(spaceRoot)/<kind>`, made when missing. */
  dir(spaceRoot: string, kind: OwnKind): Promise<string>;
  /** Is this own folder one a user may come across (not inside Burrow's data folder)? */
  visible(folder: string): boolean;
  /**
   * Removes `<folder>/<kind>` and then `folder` when they are empty, if `folder` is one a user
   * can see and named `.burrow` (rmdir only: anything in them keeps them).
   */
  tidy(folder: string, kind: OwnKind): Promise<void>;
  /** The same, synchronously (startup). */
  tidySync(folder: string, kind: OwnKind): void;
}

/** `<own>/<kind>/<id>` → `<own>`: the folder a stored item is confined to. */
export const ownFolderOf = (stored: string) => path.dirname(path.dirname(stored));

/** Bounds of a SQL range over absolute paths: everything strictly below `folder`. */
export const below = (folder: string): [string, string] => [
  folder + path.sep,
  folder + String.fromCharCode(path.sep.charCodeAt(0) + 1),
];

/**
 * Moves stored items (trash entries, versions) into the folder `to` by rename, keeping their
 * names, and reports each new place through `moved`; an item on another disk stays where its
 * row finds it, a vanished one is left to its sweep. Answers how many moved.
 */
export async function moveStored(
  rows: { id: string; stored_path: string }[],
  to: string,
  moved: (id: string, storedPath: string) => void,
): Promise<number> {
  let count = 0;
  for (const row of rows) {
    const target = path.join(to, path.basename(row.stored_path));
    try {
      await fsp.mkdir(to, { recursive: true });
      await fsp.rename(row.stored_path, target);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EXDEV' || code === 'ENOENT') continue;
      throw err;
    }
    moved(row.id, target);
    count++;
  }
  return count;
}

/** The folder under CONFIG_DIR holding the own files of every space on its disk. */
export const DATA_SUBDIR = 'files';

/** `journal`: the probe's name in the space is on it while it exists (a crash then leaves nothing). */
export function createOwnFolders(options: { dataDir: string; journal?: WorkJournal }): OwnFolders {
  const data = path.join(path.resolve(options.dataDir), DATA_SUBDIR);
  const decided = new Map<string, Promise<string>>();

  /** true: renames work from `folder` into `spaceRoot`; false: they do not; null: cannot tell (the space is not writable). */
  async function renamesInto(folder: string, spaceRoot: string): Promise<boolean | null> {
    const token = randomBytes(6).toString('hex');
    const probe = path.join(folder, `probe-${token}`);
    try {
      await fsp.mkdir(folder, { recursive: true });
      await (await fsp.open(probe, 'wx', 0o600)).close();
    } catch {
      return false;
    }
    const there = path.join(spaceRoot, `${TEMP_PREFIX}probe-${token}`);
    const row = options.journal?.begin(there);
    try {
      await fsp.rename(probe, there);
      await fsp.rm(there, { force: true });
      return true;
    } catch (err) {
      await fsp.rm(probe, { force: true }).catch(() => {});
      return (err as NodeJS.ErrnoException).code === 'EXDEV' ? false : null;
    } finally {
      if (row) options.journal!.end(row);
    }
  }

  const sameDevice = async (a: string, b: string) => {
    const [sa, sb] = await Promise.all([fsp.stat(a).catch(() => null), fsp.stat(b).catch(() => null)]);
    return sa !== null && sb !== null && sa.dev === sb.dev;
  };

  /** The highest folder above `spaceRoot` on its device, short of the file system's root directory. */
  async function topOfDisk(spaceRoot: string): Promise<string> {
    const dev = (await fsp.stat(spaceRoot)).dev;
    const top = path.parse(spaceRoot).root;
    let dir = spaceRoot;
    for (;;) {
      const parent = path.dirname(dir);
      if (parent === dir || parent === top) return dir;
      const st = await fsp.stat(parent).catch(() => null);
      if (!st || st.dev !== dev) return dir;
      dir = parent;
    }
  }

  async function decide(spaceRoot: string): Promise<string> {
    const inData = await renamesInto(data, spaceRoot);
    if (inData === true || (inData === null && (await sameDevice(data, spaceRoot)))) return data;
    const legacy = path.join(spaceRoot, RESERVED_DIR);
    if (inData === null) return legacy;
    const top = await topOfDisk(spaceRoot).catch(() => spaceRoot);
    if (top !== spaceRoot) {
      const onDisk = path.join(top, RESERVED_DIR);
      const existed = fs.existsSync(onDisk);
      if ((await renamesInto(onDisk, spaceRoot)) === true) return onDisk;
      if (!existed) await fsp.rmdir(onDisk).catch(() => {});
    }
    return legacy;
  }

  const visible = (folder: string) => folder !== data;
  const tidyable = (folder: string) => visible(folder) && path.basename(folder) === RESERVED_DIR;

  function of(spaceRoot: string): Promise<string> {
    let answer = decided.get(spaceRoot);
    if (!answer) {
      answer = decide(spaceRoot);
      decided.set(spaceRoot, answer);
      // A failed decision (the space unmounted) is made again next time.
      answer.catch(() => decided.delete(spaceRoot));
    }
    return answer;
  }

  return {
    of,
    async dir(spaceRoot, kind) {
      const dir = path.join(await of(spaceRoot), kind);
      await fsp.mkdir(dir, { recursive: true });
      return dir;
    },
    visible,
    async tidy(folder, kind) {
      if (!tidyable(folder)) return;
      await fsp.rmdir(path.join(folder, kind)).catch(() => {});
      await fsp.rmdir(folder).catch(() => {});
    },
    tidySync(folder, kind) {
      if (!tidyable(folder)) return;
      for (const dir of [path.join(folder, kind), folder])
        try {
          fs.rmdirSync(dir);
        } catch {
          /* not empty, or gone */
        }
    },
  };
}

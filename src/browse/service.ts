// Listing folders, usage and metadata. A listing is one readdir plus one stat per entry
// (stats.ts: a thread of their own for large folders, libuv's pool for small ones), never a
// recursive walk.
import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Caller } from '../core/caller.ts';
import { fileItem, itemOf, kindOf } from '../files/items.ts';
import type { FileItem } from '../files/wire.ts';
import { isReservedName } from '../files/names.ts';
import type { PathResolver } from '../files/paths.ts';
import { withDirIn, withFileIn } from '../files/confined.ts';
import { countTree } from '../files/walk.ts';
import { readFileFacts } from '../metadata/read.ts';
import { statEntries } from './stats.ts';
import type { Listing, Metadata, Usage, Volume } from './wire.ts';

export type { Listing };

export function createBrowse(deps: {
  resolver: PathResolver;
  showHidden: (userId: string) => boolean;
  viewed?: (realPath: string) => void;
  /** When a file was created, kept across the saves that replace it (versions/service.ts). */
  createdAt?: (realPath: string, st: Stats) => Date;
  /** A folder's recursive size from the folder-size index, or null (foldersize/ answers it). */
  held?: (spaceRoot: string, realPath: string) => Promise<Usage['held']>;
}) {
  const { resolver } = deps;

  async function list(caller: Caller, virtual: string): Promise<{ listing: Listing; json: string; etag: string }> {
    const target = await resolver.resolve(caller, virtual, { mustExist: true });
    let items: FileItem[];
    if (!target.space) {
      const spaces = await resolver.spaces(caller);
      items = await Promise.all(
        spaces.map(async (s) => {
          const st = await fsp.stat(s.root).catch(() => null);
          return {
            name: s.path,
            path: '',
            dateModified: (st?.mtime ?? new Date(0)).toISOString(),
            size: 0,
            kind: 'directory',
          };
        }),
      );
    } else if (!target.isDirectory) {
      const { parent, name } = {
        parent: path.posix.dirname(target.virtualPath),
        name: path.posix.basename(target.virtualPath),
      };
      items = [fileItem(parent === '.' ? '' : parent, name, await fsp.stat(target.realPath))];
    } else {
      const showHidden = deps.showHidden(caller.userId);
      const hidden = resolver.hiddenChildren(caller, target);
      deps.viewed?.(target.realPath);
      // Names come from the folder's checked descriptor (confined.ts): a folder swapped for a
      // link between the resolve and the listing never shows what lies outside. The stats go by
      // path — a /proc/self/fd path per entry costs a third of a 10,000-entry listing — and count
      // only when the path names the checked folder before and after them; otherwise they are
      // taken again through the descriptor. What remains: a swap out and back within one
      // listing could show an outside entry's size and time under an inside name (never bytes
      // or names).
      const { names, stats } = await withDirIn(target.space.root, target.realPath, async (dir) => {
        const names = (await fsp.readdir(dir.path)).filter(
          (n) => !isReservedName(n) && (showHidden || !n.startsWith('.')) && !hidden(n),
        );
        const checked = await fsp.stat(dir.path);
        const same = () =>
          fsp.stat(target.realPath).then(
            (st) => st.ino === checked.ino && st.dev === checked.dev,
            () => false,
          );
        if (await same()) {
          const stats = await statEntries(target.realPath, names);
          if (await same()) return { names, stats };
        }
        return { names, stats: await statEntries(dir.path, names) };
      });
      items = [];
      const { sizes, mtimes, kinds } = stats;
      for (let i = 0; i < names.length; i++) {
        if (kinds[i] === 0) continue; // gone meanwhile, or unreadable
        // Rounded to the millisecond as Node's Stats.mtime is, so a listing says what every
        // other answer about the same file says (a Date from the raw mtimeMs truncates).
        const modified = Math.round(mtimes[i]!);
        items.push(itemOf(target.virtualPath, names[i]!, { modified, size: sizes[i]!, isDirectory: kinds[i] === 2 }));
      }
    }
    const listing: Listing = {
      items,
      access: target.access,
      current: { isDirectory: target.isDirectory },
      path: target.virtualPath,
    };
    // Serialised once: the same text is hashed for the ETag and sent.
    const json = JSON.stringify(listing);
    const etag = '"' + createHash('sha1').update(json).digest('base64url') + '"';
    return { listing, json, etag };
  }

  async function volumes(caller: Caller): Promise<Volume[]> {
    return (await resolver.spaces(caller)).map((s) => ({
      name: s.name,
      path: s.path,
      kind: s.kind === 'personal' ? 'personal' : 'volume',
      readOnly: s.readOnly,
      ...(s.accessMode ? { accessMode: s.accessMode } : {}),
    }));
  }

  async function usage(caller: Caller, virtual: string): Promise<Usage> {
    // A link out of the volume is refused (403) and a dangling one is missing (404), as everywhere.
    const target = await resolver.resolve(caller, virtual, { mustExist: true });
    if (!target.space) return { path: '', size: 0, used: 0, free: 0, total: 0, percentUsed: 0, held: null };
    const space = target.space;
    const fs = await withDirIn(
      space.root,
      target.isDirectory ? target.realPath : path.dirname(target.realPath),
      (dir) => fsp.statfs(dir.path),
    );
    const held: Usage['held'] = target.isDirectory
      ? ((await deps.held?.(space.root, target.realPath)) ?? null)
      : await withFileIn(space.root, target.realPath, async (f) => ({
          bytes: f.stat.size,
          complete: true,
          lastUpdated: f.stat.mtime.toISOString(),
        }));
    const total = fs.blocks * fs.bsize;
    const free = fs.bavail * fs.bsize;
    const used = Math.max(0, total - fs.bfree * fs.bsize);
    return {
      path: target.virtualPath,
      size: used,
      used,
      free,
      total,
      percentUsed: total ? Math.round((used / total) * 10000) / 100 : 0,
      held,
    };
  }

  async function metadata(caller: Caller, virtual: string): Promise<Metadata> {
    const target = await resolver.resolveInside(caller, virtual, {
      mustExist: true,
      atTop: 'The top has no metadata; name a volume or an item.',
    });
    const st = await fsp.stat(target.realPath);
    const name = path.posix.basename(target.virtualPath);
    const created =
      !st.isDirectory() && deps.createdAt
        ? deps.createdAt(target.realPath, st)
        : st.birthtimeMs > 0
          ? st.birthtime
          : st.ctime;
    const answer: Metadata = {
      path: target.virtualPath,
      name,
      kind: kindOf(name, st.isDirectory()),
      size: st.isDirectory() ? 0 : st.size,
      dateModified: st.mtime.toISOString(),
      dateCreated: created.toISOString(),
      access: target.access,
    };
    if (st.isDirectory()) answer.directory = await countTree(target.realPath, { maxEntries: 50_000, maxMs: 3000 });
    else
      Object.assign(
        answer,
        await withFileIn(target.space.root, target.realPath, (f) => readFileFacts(f, answer.kind, f.stat.size)),
      );
    return answer;
  }

  return { volumes, list, usage, metadata };
}
export type Browse = ReturnType<typeof createBrowse>;

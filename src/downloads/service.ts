// Downloads: what a selection is (one file as its bytes; folders or several items as a zip),
// resolved and opened before any answer starts, and its plan (files, bytes, archive name)
// without sending it. The routes only send what this opened.
import path from 'node:path';
import type { Caller } from '../core/caller.ts';
import { AppError } from '../core/errors.ts';
import { openFileIn } from '../files/confined.ts';
import { candidateName } from '../files/names.ts';
import { isInside, joinVirtual, type PathResolver, type InsidePath } from '../files/paths.ts';
import type { DownloadPlan, Selection } from './wire.ts';
import type { Download } from '../http/download.ts';
import { closeSources, openSources, selectionEntries, zipAnswer } from './zip.ts';

export function createDownloads(deps: { resolver: PathResolver; showHidden: (userId: string) => boolean }) {
  const { resolver } = deps;

  async function resolveSelection(caller: Caller, sel: Selection): Promise<InsidePath[]> {
    const wanted = [
      ...(sel.path !== undefined ? [sel.path] : []),
      ...(sel.paths ?? []),
      ...(sel.items ?? []).map((i) => joinVirtual(i.path, i.name)),
    ];
    if (wanted.length === 0) throw new AppError('NO_ITEMS', 'Name what to download: `path`, `paths` or `items`.');
    const out: InsidePath[] = [];
    for (const p of wanted) {
      const r = await resolver.resolveInside(caller, p, {
        mustExist: true,
        atTop: 'The top cannot be downloaded; choose a volume or items.',
      });
      if (!r.access.canDownload) throw new AppError('NO_DOWNLOAD');
      out.push(r);
    }
    return once(out);
  }

  /**
   * Each item once: one named twice (by `paths` and by `items`, or through two spaces) and one inside
   * a selected folder (which brings it already) are left out, in the order first named.
   */
  function once(items: InsidePath[]): InsidePath[] {
    const within = (r: InsidePath, d: InsidePath) => d.isDirectory && isInside(d.realPath, r.realPath);
    return items.filter((r, i) => !items.some((o, j) => (o.realPath === r.realPath ? j < i : within(r, o))));
  }

  const archiveNameOf = (items: InsidePath[], wanted?: string) => {
    if (wanted) return wanted.endsWith('.zip') ? wanted : `${wanted}.zip`;
    if (items.length === 1) return `${path.posix.basename(items[0]!.virtualPath)}.zip`;
    const parent = path.posix.dirname(items[0]!.virtualPath);
    return `${parent === '.' ? 'download' : path.posix.basename(parent)}.zip`;
  };
  /** Top names in the zip: two items of one name (from two folders) become `name`, `name (1)`. */
  const topNames = (items: InsidePath[]) => {
    const taken = new Set<string>();
    return items.map((r) => {
      const base = path.posix.basename(r.virtualPath);
      let n = 0;
      while (taken.has(candidateName(base, n).normalize('NFC'))) n++;
      taken.add(candidateName(base, n).normalize('NFC'));
      return candidateName(base, n);
    });
  };
  const sourcesOf = (caller: Caller, items: InsidePath[]) => {
    const names = topNames(items);
    return openSources(
      items.map((r, i) => ({
        root: r.space.root,
        real: r.realPath,
        name: names[i]!,
        isDirectory: r.isDirectory,
        leaveOut: resolver.withheldBelow(caller, r),
      })),
    );
  };
  const isOneFile = (items: InsidePath[]) => items.length === 1 && !items[0]!.isDirectory;

  return {
    /** The selection opened: its descriptors are the ones read, whatever happens to the paths. */
    async open(caller: Caller, sel: Selection): Promise<Download> {
      const items = await resolveSelection(caller, sel);
      if (isOneFile(items)) {
        const file = await openFileIn(items[0]!.space.root, items[0]!.realPath);
        return { kind: 'file', file, name: path.posix.basename(items[0]!.virtualPath) };
      }
      return {
        kind: 'zip',
        zip: zipAnswer(
          await sourcesOf(caller, items),
          archiveNameOf(items, sel.name),
          deps.showHidden(caller.userId),
          sel.compress === true,
        ),
      };
    },

    /** What a download of the selection would hold, counted through the same descriptors. */
    async plan(caller: Caller, sel: Selection): Promise<DownloadPlan> {
      const items = await resolveSelection(caller, sel);
      if (isOneFile(items)) {
        const f = await openFileIn(items[0]!.space.root, items[0]!.realPath);
        await f.close();
        return {
          files: 1,
          folders: 0,
          totalBytes: f.stat.size,
          archiveName: null,
          fileName: path.posix.basename(items[0]!.virtualPath),
          isArchive: false,
        };
      }
      let files = 0;
      let folders = 0;
      let totalBytes = 0;
      const sources = await sourcesOf(caller, items);
      try {
        for await (const e of selectionEntries(sources, deps.showHidden(caller.userId))) {
          if (e.isDirectory) folders++;
          else {
            files++;
            totalBytes += e.size;
          }
        }
      } finally {
        await closeSources(sources);
      }
      return { files, folders, totalBytes, archiveName: archiveNameOf(items, sel.name), isArchive: true };
    },
  };
}

export type Downloads = ReturnType<typeof createDownloads>;

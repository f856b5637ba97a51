// Downloads: one file with Range and validators, a folder or a selection as a streaming zip,
// and the plan of a download (files, bytes, archive name) without sending it.
import path from 'node:path';
import { AppError } from '../core/errors.ts';
import { route, type RouteDef } from '../http/route.ts';
import type { Caller } from '../core/caller.ts';
import type { PathResolver, ResolvedPath } from '../files/paths.ts';
import { joinVirtual } from '../files/paths.ts';
import { virtualPathParams } from '../files/wire.ts';
import { downloadPlan, selection, type Selection } from './wire.ts';
import { sendFile } from './single.ts';
import { openFileIn } from '../files/confined.ts';
import { closeSources, openSources, selectionEntries, sendZip } from './zip.ts';

export function downloadRoutes(deps: { resolver: PathResolver; showHidden: (userId: string) => boolean }): RouteDef[] {
  const { resolver } = deps;

  async function resolveSelection(caller: Caller, sel: Selection): Promise<ResolvedPath[]> {
    const wanted = [
      ...(sel.path !== undefined ? [sel.path] : []),
      ...(sel.paths ?? []),
      ...(sel.items ?? []).map((i) => joinVirtual(i.path, i.name)),
    ];
    if (wanted.length === 0) throw new AppError('NO_ITEMS', 'Name what to download: `path`, `paths` or `items`.');
    const out: ResolvedPath[] = [];
    for (const p of wanted) {
      const r = await resolver.resolve(caller, p, { mustExist: true });
      if (!r.space) throw new AppError('TOP_LEVEL', 'The top cannot be downloaded; choose a volume or items.');
      if (!r.access.canDownload) throw new AppError('NO_DOWNLOAD');
      out.push(r);
    }
    return out;
  }

  const archiveNameOf = (items: ResolvedPath[], wanted?: string) => {
    if (wanted) return wanted.endsWith('.zip') ? wanted : `${wanted}.zip`;
    if (items.length === 1) return `${path.posix.basename(items[0]!.virtualPath)}.zip`;
    const parent = path.posix.dirname(items[0]!.virtualPath);
    return `${parent === '.' ? 'download' : path.posix.basename(parent)}.zip`;
  };
  const sourcesOf = (items: ResolvedPath[]) =>
    openSources(
      items.map((r) => ({
        root: r.space!.root,
        real: r.realPath,
        name: path.posix.basename(r.virtualPath),
        isDirectory: r.isDirectory,
      })),
    );

  async function download(caller: Caller, sel: Selection, req: any, res: any) {
    const items = await resolveSelection(caller, sel);
    if (items.length === 1 && !items[0]!.isDirectory) {
      const file = await openFileIn(items[0]!.space!.root, items[0]!.realPath);
      return sendFile(req, res, file, path.posix.basename(items[0]!.virtualPath));
    }
    return sendZip(
      res,
      await sourcesOf(items),
      archiveNameOf(items, sel.name),
      deps.showHidden(caller.userId),
      req.method === 'HEAD',
    );
  }

  return [
    route({
      method: 'GET',
      path: '/api/download/*',
      access: 'account',
      summary: 'Download one file (Range, If-Range, ETag, Last-Modified) or a folder as a zip',
      tags: ['Downloads'],
      params: virtualPathParams,
      responses: {
        200: { description: 'The bytes, or a zip for a folder', contentType: 'application/octet-stream' },
        206: { description: 'Partial content (one Range)', contentType: 'application/octet-stream' },
        304: 'Not modified',
        416: 'Range not satisfiable',
      },
      handler: ({ caller, params, req, res }) => download(caller, { path: params.path }, req, res),
    }),
    route({
      method: 'POST',
      path: '/api/download',
      access: 'account',
      scope: 'read',
      summary: 'Download a selection: one file as its bytes, folders or several items as a streaming zip',
      tags: ['Downloads'],
      description:
        'Body: `{ path }` (one item), `{ paths: [...] }`, or `{ items: [{ path: parent, name }] }`; optional `name` of the archive. Already-compressed kinds are stored in the zip, the rest deflated.',
      body: selection,
      responses: { 200: { description: 'The bytes or a zip', contentType: 'application/octet-stream' } },
      handler: ({ caller, body, req, res }) => download(caller, body, req, res),
    }),
    route({
      method: 'POST',
      path: '/api/download/plan',
      access: 'account',
      scope: 'read',
      summary: 'What a download of this selection would hold',
      tags: ['Downloads'],
      body: selection,
      responses: { 200: { description: 'files, totalBytes, archiveName, isArchive', schema: downloadPlan } },
      handler: async ({ caller, body }) => {
        const items = await resolveSelection(caller, body);
        if (items.length === 1 && !items[0]!.isDirectory) {
          const st = await openFileIn(items[0]!.space!.root, items[0]!.realPath).then(
            async (f) => (await f.close(), f.stat),
          );
          return {
            files: 1,
            folders: 0,
            totalBytes: st.size,
            archiveName: null,
            fileName: path.posix.basename(items[0]!.virtualPath),
            isArchive: false,
          };
        }
        let files = 0,
          folders = 0,
          totalBytes = 0;
        const sources = await sourcesOf(items);
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
        return { files, folders, totalBytes, archiveName: archiveNameOf(items, body.name), isArchive: true };
      },
    }),
  ];
}

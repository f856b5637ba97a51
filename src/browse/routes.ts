// GET /api/volumes, /api/browse/*, /api/usage/*, /api/metadata/*.
import { z } from 'zod';
import { isNotModified } from '../http/conditional.ts';
import { jsonText, reply, route, type RouteDef } from '../http/route.ts';
import type { PathResolver } from '../files/paths.ts';
import type { createBrowse } from './service.ts';

const volume = z.object({ name: z.string(), path: z.string(), kind: z.enum(['volume', 'personal']), readOnly: z.enum(['storage', 'permission', 'access']).nullable(), accessMode: z.enum(['readonly', 'readwrite']).optional() });
const access = z.object({ canRead: z.boolean(), canWrite: z.boolean(), canUpload: z.boolean(), canDelete: z.boolean(), canShare: z.boolean(), canDownload: z.boolean(), canCreateFolder: z.boolean(), canCreateFile: z.boolean(), readOnly: z.string().nullable() });
const fileItem = z.object({ name: z.string(), path: z.string(), dateModified: z.string(), size: z.number(), kind: z.string(), supportsThumbnail: z.boolean().optional() });
const listing = z.object({ items: z.array(fileItem), access, current: z.object({ isDirectory: z.boolean() }), path: z.string() });

export function browseRoutes(deps: { resolver: PathResolver; browse: ReturnType<typeof createBrowse> }): RouteDef[] {
  const { resolver, browse } = deps;
  return [
    route({
      method: 'GET', path: '/api/volumes', access: 'account', summary: 'The volumes, the personal folder, or the assigned volumes of this account', tags: ['Browse'],
      responses: { 200: { description: 'Bare array of volumes', schema: z.array(volume) } },
      handler: async ({ caller }) => (await resolver.spaces(caller!)).map((s) => ({
        name: s.name, path: s.path, kind: s.kind === 'personal' ? 'personal' as const : 'volume' as const, readOnly: s.readOnly, ...(s.accessMode ? { accessMode: s.accessMode } : {}),
      })),
    }),
    route({
      method: 'GET', path: '/api/browse/*', access: 'account', summary: 'List a folder (hidden files only when the account asked to see them)', tags: ['Browse'],
      responses: {
        200: { description: 'items, access, current, path; carries an ETag', schema: listing },
        304: 'Unchanged since the ETag sent in If-None-Match',
      },
      handler: async ({ caller, params, req }) => {
        const { json, etag } = await browse.list(caller!, params.path ?? '');
        const headers = { ETag: etag, 'Cache-Control': 'private, no-cache' };
        if (isNotModified(req, { etag })) return reply(304, undefined, headers);
        return reply(200, jsonText<z.output<typeof listing>>(json), { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(json) });
      },
    }),
    route({
      method: 'GET', path: '/api/usage/*', access: 'account', summary: 'Space used and free on the volume holding a path (statfs)', tags: ['Browse'],
      responses: { 200: { description: 'Usage answer', schema: z.object({ path: z.string(), size: z.number(), used: z.number(), free: z.number(), total: z.number(), percentUsed: z.number() }) } },
      handler: ({ caller, params }) => browse.usage(caller!, params.path ?? ''),
    }),
    route({
      method: 'GET', path: '/api/metadata/*', access: 'account', summary: 'Metadata of a file or folder (folder totals counted now, bounded; image, media and PDF facts)', tags: ['Browse'],
      responses: { 200: 'Metadata answer: path, name, kind, size, dateModified, dateCreated, directory?, image?, video?, audio?, pages?' },
      handler: ({ caller, params }) => browse.metadata(caller!, params.path ?? ''),
    }),
  ];
}

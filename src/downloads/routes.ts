// Downloads: one file with Range and validators, a folder or a selection as a streaming zip,
// and the plan of a download (files, bytes, archive name) without sending it.
import { route } from '../http/route.ts';
import { virtualPathParams } from '../files/wire.ts';
import { downloadPlan, selection } from './wire.ts';
import { sendDownload } from '../http/download.ts';
import type { Downloads } from './service.ts';

export function downloadRoutes(downloads: Downloads) {
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
      handler: async ({ caller, params, req, res }) =>
        sendDownload(req, res, await downloads.open(caller, { path: params.path })),
    }),
    route({
      method: 'POST',
      path: '/api/download',
      access: 'account',
      scope: 'read',
      summary: 'Download a selection: one file as its bytes, folders or several items as a streaming zip',
      tags: ['Downloads'],
      description:
        'Body: `{ path }` (one item), `{ paths: [...] }`, or `{ items: [{ path: parent, name }] }`; optional `name` of the archive; `compress: true` for a smaller zip (what shrinks is deflated; already-compressed kinds and what does not shrink are stored). Without it every file is stored, sent as fast as it is read.',
      body: selection,
      responses: { 200: { description: 'The bytes or a zip', contentType: 'application/octet-stream' } },
      handler: async ({ caller, body, req, res }) => sendDownload(req, res, await downloads.open(caller, body)),
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
      handler: ({ caller, body }) => downloads.plan(caller, body),
    }),
  ];
}

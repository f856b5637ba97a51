// GET /api/volumes, /api/browse/*, /api/usage/*, /api/metadata/*.
import type { IncomingMessage } from 'node:http';
import { isNotModified } from '../http/conditional.ts';
import { jsonText, reply, route } from '../http/route.ts';
import { virtualPathParams } from '../files/wire.ts';
import type { Browse } from './service.ts';
import { listing, metadata, usage, volume, type Listing } from './wire.ts';
import { z } from 'zod';

/** The listing's own JSON text with its ETag, or 304 when the client's copy is current. */
function answerListing(req: IncomingMessage, found: { json: string; etag: string }) {
  const headers = { ETag: found.etag, 'Cache-Control': 'private, no-cache' };
  if (isNotModified(req, { etag: found.etag })) return reply(304, undefined, headers);
  return reply(200, jsonText<Listing>(found.json), {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(found.json),
  });
}

export function browseRoutes(browse: Browse) {
  return [
    route({
      method: 'GET',
      path: '/api/volumes',
      access: 'account',
      summary: 'The volumes, the personal folder, or the assigned volumes of this account',
      tags: ['Browse'],
      responses: { 200: { description: 'Bare array of volumes', schema: z.array(volume) } },
      handler: ({ caller }) => browse.volumes(caller),
    }),
    route({
      method: 'GET',
      path: '/api/browse/*',
      access: 'account',
      summary: 'List a folder (hidden files only when the account asked to see them)',
      tags: ['Browse'],
      params: virtualPathParams,
      responses: {
        200: { description: 'items, access, current, path; carries an ETag', schema: listing },
        304: 'Unchanged since the ETag sent in If-None-Match',
      },
      handler: async ({ caller, params, req }) => answerListing(req, await browse.list(caller, params.path)),
    }),
    route({
      method: 'GET',
      path: '/api/usage/*',
      access: 'account',
      summary: 'Space used and free on the volume holding a path (statfs)',
      tags: ['Browse'],
      params: virtualPathParams,
      responses: { 200: { description: 'Usage answer', schema: usage } },
      handler: ({ caller, params }) => browse.usage(caller, params.path),
    }),
    route({
      method: 'GET',
      path: '/api/metadata/*',
      access: 'account',
      summary: 'Metadata of a file or folder (folder totals counted now, bounded; image, media and PDF facts)',
      tags: ['Browse'],
      params: virtualPathParams,
      responses: { 200: { description: 'Metadata answer', schema: metadata } },
      handler: ({ caller, params }) => browse.metadata(caller, params.path),
    }),
  ];
}

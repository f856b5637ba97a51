// Previews (wire-shapes §3): a file streamed inline with its real type and Range, the text of a
// file as text/plain, thumbnails and the cached thumbnail pictures. Everything answered here
// carries `X-Content-Type-Options: nosniff`, and every preview but PDF carries
// `Content-Security-Policy: sandbox`: an HTML or SVG file opened from here runs no script on
// our origin (PDF is left out because browsers refuse to draw a PDF in a sandboxed document,
// and their PDF viewers do not run a document's script with the page's origin).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { route } from '../http/route.ts';
import { virtualPathParams } from '../files/wire.ts';
import { sendCachedPicture, sendFile } from '../http/file.ts';
import type { Preview, Previews } from './service.ts';
import { RENDITIONS } from './thumbnails.ts';
import { queryPath } from '../http/query.ts';

const SANDBOX = 'sandbox';

function sendPreview(req: IncomingMessage, res: ServerResponse, p: Preview, contentType?: string): Promise<void> {
  if (p.sandbox) res.setHeader('Content-Security-Policy', SANDBOX);
  return sendFile(req, res, p.opened, p.name, 'inline', contentType);
}

export function previewRoutes(previews: Previews) {
  return [
    route({
      method: 'GET',
      path: '/api/preview',
      access: 'account',
      summary: 'A file inline with its real Content-Type (Range honoured), for viewers and players',
      tags: ['Previews'],
      description:
        'Pictures, video, audio, PDF and plain-text kinds; other kinds answer 415. Every answer but PDF carries `Content-Security-Policy: sandbox` and `X-Content-Type-Options: nosniff`.',
      query: z.object({ path: queryPath('virtual', z.string()) }),
      responses: {
        200: { description: 'The bytes', contentType: 'application/octet-stream' },
        206: { description: 'Partial content (one Range)', contentType: 'application/octet-stream' },
        304: 'Not modified',
        415: 'Not a kind that can be previewed',
        416: 'Range not satisfiable',
      },
      handler: async ({ caller, query, req, res }) => sendPreview(req, res, await previews.preview(caller, query.path)),
    }),
    route({
      method: 'GET',
      path: '/api/raw',
      access: 'account',
      summary: 'The text of a file alone, as text/plain (never interpreted by the browser)',
      tags: ['Previews'],
      description:
        'Streams the file as `text/plain; charset=utf-8` with `X-Content-Type-Options: nosniff` and `Content-Security-Policy: sandbox`; Range honoured. A binary file answers 415.',
      query: z.object({ path: queryPath('virtual', z.string()) }),
      responses: {
        200: { description: 'The text', contentType: 'text/plain' },
        206: { description: 'Partial content (one Range)', contentType: 'text/plain' },
        415: 'Binary file',
      },
      handler: async ({ caller, query, req, res }) =>
        sendPreview(req, res, await previews.text(caller, query.path), 'text/plain; charset=utf-8'),
    }),
    route({
      method: 'GET',
      path: '/api/thumbnails/*',
      access: 'account',
      summary: 'Where to fetch a thumbnail of a picture (`""` when there is none)',
      tags: ['Previews'],
      description:
        "Answers `{ thumbnail }`: a server-relative URL of a WebP (`/api/thumbnails-cache/<name>.webp?path=<the file's path>`, with `&size=` when asked with a size), which any instance of a cluster answers, or `\"\"` for kinds without thumbnails, a song without a cover, a video without ffmpeg, or when thumbnails are switched off (settings `thumbnails.enabled`); a picture that does not decode (damaged, or a form Burrow cannot read) answers 422 `PICTURE_UNREADABLE`, and nothing is cached. The picture is made on the first request, a few at a time (`thumbnails.concurrency`). Pictures the add-on decodes (EXIF orientation applied), HEIC and HEIF (decoded by libheif in WebAssembly, in a thread of its own; turned by the file's own rotation and mirroring, or by its EXIF orientation when it has none), SVG rasterised (no script runs), the first frame of a GIF, and a video's first frame when ffmpeg is installed. `size` asks for a screen-sized rendition for a viewer instead: the longest side is rounded up to one of " +
        RENDITIONS.join(', ') +
        ' pixels (never enlarged).',
      params: virtualPathParams,
      query: z.object({ size: z.coerce.number().int().min(1).max(100_000).optional() }),
      responses: {
        200: { description: 'The thumbnail URL', schema: z.object({ thumbnail: z.string() }) },
        422: 'The picture does not decode (PICTURE_UNREADABLE)',
      },
      handler: ({ caller, params, query }) => previews.thumbnailUrl(caller, params.path, query.size),
    }),
    route({
      method: 'GET',
      path: '/api/thumbnails-cache/:file',
      access: 'account',
      summary: 'A thumbnail picture (WebP) by the URL GET /api/thumbnails handed out',
      tags: ['Previews'],
      description:
        "Served to whoever may read `path` now, checked as GET /api/thumbnails checks it, when `file` is the name that file's thumbnail has now (the name changes with the file and the thumbnail settings); an instance that has not made the picture yet makes it. A file the caller may not read, a name of another file or of an older version answer 404 and make nothing.",
      params: z.object({ file: z.string().min(1).max(255) }),
      query: z.object({
        path: queryPath(
          'virtual',
          z
            .string()
            .min(1)
            .describe(
              'The path of the file the picture shows, as GET /api/thumbnails handed it out. A path: spaces as `%20` or `+`, a plus as `%2B`; a raw `+` (as the native app sends it) is a plus when that names something, a space otherwise.',
            ),
        ),
        size: z.coerce
          .number()
          .int()
          .min(1)
          .max(100_000)
          .optional()
          .describe('The size GET /api/thumbnails was asked with (a rendition), as it handed it out'),
      }),
      responses: { 200: { description: 'The picture', contentType: 'image/webp' }, 404: 'No such thumbnail' },
      handler: async ({ caller, params, query, res }) =>
        sendCachedPicture(res, await previews.cachedThumbnailOf(caller, params.file, query.path, query.size)),
    }),
  ];
}

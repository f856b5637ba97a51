// Sharing rows: the owner's shares (`/api/shares…`, account) and the link holder's rows
// (`/api/share/{token}/…`, access `link`: public as far as credentials go, the link decides).
// A link row's handler gets the link already held (http/link.ts → holder.ts: its password
// cookie, expiry and users list checked) as `link`: the caller its holder acts as and its share.
// A holder's paths are relative to the link; the services make them `share/<token>/…` and the
// one resolver confines them to the shared item (a link caller reaches nothing else).
import net from 'node:net';
import { z } from 'zod';
import { hostName } from '../http/origin.ts';
import { isLoopbackHost } from '../system/network.ts';
import { AppError } from '../core/errors.ts';
import { noContent, reply, route, wholeText } from '../http/route.ts';
import type { FileOps } from '../files/ops.ts';
import type { InsidePath, PathResolver, ResolvedPath } from '../files/paths.ts';
import { openFileIn, type OpenedFile } from '../files/confined.ts';
import { isNotModified } from '../http/conditional.ts';
import { contentTypeOf, sendCachedPicture, sendFile } from '../http/file.ts';
import { sendDownload, type Download } from '../http/download.ts';
import { cookieOf } from '../http/link.ts';
import { linkPatches } from '../metadata/location.ts';
import type { createBrowse } from '../browse/service.ts';
import type { UploadsCapability } from '../uploads/capability.ts';
import { tusRows } from '../uploads/tus/rows.ts';
import { LINK_COOKIE } from './links.ts';
import type { SharesService } from './service.ts';
import { TAKER_COOKIE, type LinkHolding, type TakeAsk, type Taken } from './holder.ts';
import { IF_MATCH } from '../editor/wire.ts';
import type { createSharedEditor } from './editor.ts';
import { createLinkIntake } from './intake.ts';
import { asAttachment, createLinkReads, inHeldLink, inLink, linkFileName } from './reads.ts';
import { conflictsAnswer, itemAnswer } from '../files/wire.ts';
import { uploadQuery, uploadedItems } from '../uploads/wire.ts';
import { listing } from '../browse/wire.ts';
import {
  createShareBody,
  createdShare,
  linkInfo,
  linkToken,
  passwordBody,
  shareId,
  shareList,
  updateShareBody,
  wireShare,
} from './wire.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { queryPath } from '../http/query.ts';

/** Thumbnails made and cached as the account's (previews/), for a file the link resolved. */
export interface LinkThumbnails {
  thumbnailOf(file: ResolvedPath, size?: number): Promise<{ opened: OpenedFile; name: string } | null>;
}

export interface ShareRouteDeps {
  shares: SharesService;
  holding: LinkHolding;
  thumbnails: LinkThumbnails;
  resolver: PathResolver;
  ops: FileOps;
  browse: ReturnType<typeof createBrowse>;
  uploads: Pick<UploadsCapability, 'multipart' | 'tus'>;
  editor: ReturnType<typeof createSharedEditor>;
  publicUrl: string | null;
  /** The name announced on the LAN as an origin (https://burrow.local:3443), or null (mdns/announced.ts). */
  announcedOrigin: () => string | null;
  chunkedEnabled: boolean;
}

const TAGS = ['Sharing'];
const LINK_TAGS = ['Shared links'];

const relPath = z.string().max(4096).default('');
/** A path inside the link in a query string (http/query.ts reads its raw `+`). */
const linkPath = queryPath('link', relPath);
/** TUS answers carry headers only. */
const noBody = (description: string) => ({ description, contentType: 'text/plain', schema: z.string().max(0) });
const itemRef = z.object({ path: z.string().max(4096), name: z.string() });
const linkConflictsBody = z.object({
  path: relPath.describe('The folder inside the link (the link itself when empty)'),
  names: z.array(z.string().max(4096)).min(1).max(10_000).describe("Each file's path inside that folder"),
});

/**
 * The base URL links are built from: PUBLIC_URL; else, for a page opened at localhost or at a
 * numeric address (which other devices cannot use, or which the router may hand to another
 * device tomorrow), the name announced on the LAN; else the request's host.
 */
function baseUrlOf(req: IncomingMessage, publicUrl: string | null, announced: string | null): string {
  if (publicUrl) return publicUrl.replace(/\/+$/, '');
  const host = hostName(req.headers.host ?? 'localhost');
  if (announced && (isLoopbackHost(host) || net.isIP(host) !== 0)) return announced;
  const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
  return `${encrypted ? 'https' : 'http'}://${req.headers.host ?? 'localhost'}`;
}

export function shareRoutes(deps: ShareRouteDeps) {
  const { shares, holding, ops } = deps;
  const base = (req: IncomingMessage) => baseUrlOf(req, deps.publicUrl, deps.announcedOrigin());
  const intake = createLinkIntake({ shares: holding, uploads: deps.uploads });
  const tokenParams = z.object({ token: linkToken });
  const uploadParams = z.object({ token: linkToken, id: z.string().max(64) });
  const reads = createLinkReads({ ...deps, shares: holding });

  /** One file of a link: an attachment, or a preview inline in a sandbox (no scripts, no same-origin). */
  async function sendLinkFile(
    req: IncomingMessage,
    res: ServerResponse,
    r: InsidePath,
    file: OpenedFile,
    mode: 'inline' | 'raw' | 'download',
    keepLocation: boolean,
  ) {
    const name = linkFileName(r);
    // A photo's place reaches a link holder only when the owner allows it (metadata/location.ts):
    // otherwise it is taken out, same length, same picture.
    const patches = await linkPatches(name, file.fd, file.stat.size, keepLocation).catch(async (err: unknown) => {
      await file.close();
      throw err;
    });
    if (asAttachment(name, mode)) return sendFile(req, res, file, name, 'attachment', contentTypeOf(name), patches);
    res.setHeader(
      'Content-Security-Policy',
      "sandbox; default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'",
    );
    return sendFile(req, res, file, name, 'inline', contentTypeOf(name), patches);
  }

  /** How this request asks for bytes (holder.ts: TakeAsk), and the taker cookie it may get back. */
  const askOf = (req: IncomingMessage): TakeAsk => ({
    head: req.method === 'HEAD',
    taker: cookieOf(req, TAKER_COOKIE),
  });
  const granted = (res: ServerResponse, taken: Taken) => {
    if (taken.cookie) res.appendHeader('Set-Cookie', taken.cookie);
  };
  const sendTaken = (req: IncomingMessage, res: ServerResponse, t: { download: Download; taken: Taken }) => {
    granted(res, t.taken);
    return sendDownload(req, res, t.download);
  };

  return [
    // ---- the owner's shares ----
    route({
      method: 'POST',
      path: '/api/shares',
      access: 'account',
      tags: TAGS,
      status: 201,
      summary: 'Share an item: a link for anyone or for named accounts, with optional password, expiry and allow flags',
      description:
        'Body: `sourcePath`, `sharingType` (`anyone` | `users` with `userIds`), optional `password`, `expiresAt` (future, ISO 8601), `label`, `accessMode` (`readonly` | `readwrite`, which sets the allow flags), the `allow*` flags (download, upload, createFile, createFolder, rename, delete, edit; explicit flags win), and `fileRequest` `{maxFiles?, maxBytes?}` for an upload-only link to a folder. The token is 144 random bits; `shareUrl` is built from PUBLIC_URL, else the request host.',
      body: createShareBody,
      responses: {
        201: { description: 'The share, flattened, with shareUrl, shareToken and directFileUrl', schema: createdShare },
        400: 'Bad path, past expiry, no valid accounts',
        403: 'The item may not be shared',
        404: 'No such item',
      },
      handler: ({ caller, body, req }) => shares.create(caller, body, base(req)),
    }),
    route({
      method: 'GET',
      path: '/api/shares',
      access: 'account',
      tags: TAGS,
      summary: 'Shares I made ("shared by me")',
      responses: { 200: { description: 'Shares with sourcePath', schema: shareList } },
      handler: ({ caller, req }) => shares.listMine(caller, base(req)),
    }),
    route({
      method: 'GET',
      path: '/api/shares/shared-with-me',
      access: 'account',
      tags: TAGS,
      summary: 'Shares naming my account ("shared with me")',
      responses: { 200: { description: 'Shares with sourceName, without sourcePath', schema: shareList } },
      handler: ({ caller, req }) => shares.sharedWithMe(caller, base(req)),
    }),
    ...(['PUT', 'PATCH'] as const).map((method) =>
      route({
        method,
        path: '/api/shares/:id',
        access: 'account',
        tags: TAGS,
        summary:
          "Change a share (key present ⇒ change): flags, password (null removes; any change ends the link's visitor sessions), expiry, label, accounts",
        params: z.object({ id: shareId }),
        body: updateShareBody,
        responses: {
          200: { description: 'The updated share', schema: wireShare },
          400: 'Past expiry or no valid accounts',
          404: 'No such share of mine',
        },
        handler: ({ caller, params, body, req }) => shares.update(caller, params.id, body, base(req)),
      }),
    ),
    route({
      method: 'DELETE',
      path: '/api/shares/:id',
      access: 'account',
      tags: TAGS,
      summary: 'Delete a share by its id (a token in this place deletes nothing)',
      params: z.object({ id: shareId }),
      responses: { 204: { description: 'Deleted' }, 404: 'No such share of mine' },
      handler: ({ caller, params }) => (shares.remove(caller, params.id), noContent()),
    }),

    // ---- the link holder ----
    route({
      method: 'GET',
      path: '/api/share/:token/info',
      access: 'public',
      tags: LINK_TAGS,
      summary: 'What a link is (unknown, expired and deleted links: one identical 404)',
      params: tokenParams,
      responses: { 200: { description: 'The link', schema: linkInfo }, 404: 'No such link' },
      handler: ({ params, caller, req }) => holding.info(params.token, caller, cookieOf(req, LINK_COOKIE)),
    }),
    route({
      method: 'POST',
      path: '/api/share/:token/access',
      // Answered before any link is held: giving the password is how a holder gets in.
      access: 'public',
      tags: LINK_TAGS,
      summary:
        "Give a link's password: answers a visitor cookie scoped to the link (12 hours; ended when the password changes). Rate-limited like sign-in",
      params: tokenParams,
      body: passwordBody,
      responses: {
        204: { description: 'Let in (Set-Cookie)' },
        403: 'Wrong password',
        404: 'No such link',
        429: 'Too many attempts',
      },
      handler: async ({ params, body, caller, ip }) => {
        const cookie = await holding.unlock(params.token, body.password, caller, ip);
        return noContent(cookie ? { 'Set-Cookie': cookie } : {});
      },
    }),
    route({
      method: 'GET',
      path: '/api/share/:token/browse/*',
      access: 'link',
      tags: LINK_TAGS,
      summary: 'List a folder of a link (path relative to the link)',
      params: z.object({ token: linkToken, path: z.string().max(4096) }),
      responses: {
        200: { description: '`{items, access, current, path}` (paths as `share/<token>/…`)', schema: listing },
        403: 'A file request lists nothing',
        404: 'No such link or path',
      },
      handler: ({ link, params }) => reads.listing(link, params.path),
    }),
    route({
      method: 'GET',
      path: '/api/share/:token/file',
      access: 'link',
      tags: LINK_TAGS,
      summary:
        'One file of a link: `mode=download` (attachment), `inline` or `raw` (a sandboxed preview; HTML, SVG and other active types always as attachment with nosniff). A link with downloads off still shows a file this way (view, not take away): only what would come as an attachment is refused',
      params: tokenParams,
      query: z.object({ path: linkPath, mode: z.enum(['inline', 'raw', 'download']).default('download') }),
      responses: {
        200: { description: 'The bytes', contentType: 'application/octet-stream' },
        206: { description: 'Partial content (Range)', contentType: 'application/octet-stream' },
        304: 'Not modified',
        403: 'Downloads not allowed (the download mode, or an active type) or the link shows nothing',
        404: 'No such link or file',
      },
      handler: async ({ link, query, req, res }) => {
        const { item: r, taken } = await reads.file(link, query.path, query.mode, askOf(req));
        granted(res, taken);
        return sendLinkFile(
          req,
          res,
          r,
          await openFileIn(r.space.root, r.realPath),
          query.mode,
          link.row.allow_location === 1,
        );
      },
    }),
    route({
      method: 'GET',
      path: '/api/share/:token/thumbnail',
      access: 'link',
      tags: LINK_TAGS,
      summary: "A thumbnail of a link's picture or video (WebP); with `size`, a screen-sized rendition",
      description:
        "Made and cached like `GET /api/thumbnails/*` (EXIF orientation applied, HEIC/HEIF decoded, SVG rasterised without script, a GIF's first frame, a video's first frame when ffmpeg is installed). The link must let its holder list the file (a file request shows nothing); seeing a picture small counts as no access on the link. Answers the picture itself with its cache name as the ETag (`If-None-Match` → 304), `Cache-Control: private, no-cache`, `Content-Security-Policy: sandbox`, nosniff.",
      params: tokenParams,
      query: z.object({ path: linkPath, size: z.coerce.number().int().min(1).max(100_000).optional() }),
      responses: {
        200: { description: 'The picture', contentType: 'image/webp' },
        304: 'Unchanged since the ETag sent in If-None-Match',
        403: 'A file request shows nothing',
        404: 'No such link or file, or no thumbnail for this kind of file (or thumbnails are off)',
        422: 'PICTURE_UNREADABLE: the picture does not decode (damaged, or a HEIC too large for a thumbnail)',
      },
      handler: async ({ link, query, req, res }) => {
        const { item: file, taken } = await reads.picture(
          link,
          query.path,
          query.size === undefined ? undefined : askOf(req),
        );
        granted(res, taken);
        const found = await deps.thumbnails.thumbnailOf(file, query.size);
        if (!found) throw new AppError('NOT_FOUND', 'No thumbnail for this file.');
        const headers = { ETag: `"${found.name}"`, 'Cache-Control': 'private, no-cache' };
        if (isNotModified(req, { etag: headers.ETag })) {
          await found.opened.close();
          return reply(304, undefined, headers);
        }
        res.setHeader('ETag', headers.ETag);
        return sendCachedPicture(res, found.opened, headers['Cache-Control']);
      },
    }),
    route({
      method: 'GET',
      path: '/api/share/:token/download/*',
      access: 'link',
      tags: LINK_TAGS,
      summary: 'Download a file of a link, or a folder as a zip',
      params: z.object({ token: linkToken, path: z.string().max(4096) }),
      responses: {
        200: { description: 'The bytes or a zip', contentType: 'application/octet-stream' },
        403: 'Downloads not allowed',
        404: 'No such link or path',
      },
      handler: async ({ link, params, req, res }) =>
        sendTaken(req, res, await reads.download(link, [params.path], undefined, askOf(req))),
    }),
    route({
      method: 'POST',
      path: '/api/share/:token/download',
      access: 'link',
      scope: 'read',
      tags: LINK_TAGS,
      summary: 'Download a selection of a link (`paths` relative to the link) as one file or a zip',
      params: tokenParams,
      body: z.object({
        paths: z.array(z.string().max(4096)).max(10_000).default([]),
        name: z.string().max(255).optional(),
      }),
      responses: {
        200: { description: 'The bytes or a zip', contentType: 'application/octet-stream' },
        403: 'Downloads not allowed',
        404: 'No such link or path',
      },
      handler: async ({ link, body, req, res }) =>
        sendTaken(req, res, await reads.download(link, body.paths, body.name, askOf(req))),
    }),
    route({
      method: 'POST',
      path: '/api/share/:token/files/folder',
      access: 'link',
      tags: LINK_TAGS,
      status: 201,
      summary: 'Create a folder in a link (allowCreateFolder)',
      params: tokenParams,
      body: z.object({ path: relPath, name: z.string() }),
      responses: {
        201: { description: 'The new folder', schema: itemAnswer },
        403: 'Not allowed by the link',
        404: 'No such link or folder',
      },
      handler: async ({ link, params, body }) => ({
        success: true,
        item: await ops.createFolder(link.caller, inLink(params.token, body.path), body.name),
      }),
    }),
    route({
      method: 'POST',
      path: '/api/share/:token/files/file',
      access: 'link',
      tags: LINK_TAGS,
      status: 201,
      summary: 'Create a file in a link (allowCreateFile; a taken name becomes `name (1)`)',
      params: tokenParams,
      body: z.object({ path: relPath, name: z.string(), content: z.string().max(1_000_000).optional() }),
      responses: {
        201: { description: 'The new file', schema: itemAnswer },
        403: 'Not allowed by the link',
        404: 'No such link or folder',
      },
      handler: async ({ link, params, body }) => ({
        success: true,
        item: await ops.createFile(link.caller, inLink(params.token, body.path), body.name, body.content),
      }),
    }),
    route({
      method: 'POST',
      path: '/api/share/:token/files/rename',
      access: 'link',
      tags: LINK_TAGS,
      summary: 'Rename an item of a link (allowRename; 409 when taken)',
      params: tokenParams,
      body: z.object({ path: relPath, name: z.string(), newName: z.string() }),
      responses: {
        200: { description: 'The renamed item', schema: itemAnswer },
        403: 'Not allowed by the link',
        404: 'No such link or item',
        409: 'Name taken',
      },
      handler: async ({ link, params, body }) => ({
        success: true,
        item: await ops.rename(link.caller, inLink(params.token, body.path), body.name, body.newName),
      }),
    }),
    route({
      method: 'DELETE',
      path: '/api/share/:token/files',
      access: 'link',
      tags: LINK_TAGS,
      summary: "Delete items of a link (allowDelete); they go to the owner's trash",
      params: tokenParams,
      body: z.object({ items: z.array(itemRef).min(1).max(1000) }),
      responses: {
        200: {
          description: 'Per item: deleted',
          schema: z.object({
            success: z.boolean(),
            items: z.array(z.object({ path: z.string(), name: z.string(), status: z.string() })),
          }),
        },
        403: 'Not allowed by the link',
        404: 'No such link or item',
      },
      handler: async ({ link, params, body }) => {
        const refs = body.items.map((i) => ({ path: inLink(params.token, i.path), name: i.name }));
        const done = await ops.deleteItems(link.caller, refs, { missing: 'refuse' });
        return { success: true, items: done.map((d, i) => ({ ...body.items[i]!, status: d.status })) };
      },
    }),
    route({
      method: 'POST',
      path: '/api/share/:token/upload',
      access: 'link',
      tags: LINK_TAGS,
      body: 'stream',
      status: 201,
      summary:
        'Upload into a link (allowUpload, or a file request): multipart like POST /api/upload, `uploadTo` is `share/<token>/…`',
      description:
        "A taken name is answered by `conflict` (a field before the files it applies to, or the query) as in POST /api/upload: `rename` (the default) keeps both as `name (1)`, `skip` stores nothing of that file, `replace` puts it in the old file's place and keeps the old content as a version for the owner — only through a link that allows deleting (changes): any other link is refused 403 before a byte is stored, so nobody's file is replaced through a link that only adds. A holder who may see the folder asks beforehand with POST /api/share/{token}/conflicts. Every item of the answer says what became of it (`outcome`); a skipped file is not counted against a file request.",
      params: tokenParams,
      query: uploadQuery,
      responses: {
        201: { description: 'The stored files, in the order sent, with their final names', schema: uploadedItems },
        403: 'Not allowed by the link (or `replace` through a link that does not allow deleting)',
        404: 'No such link',
        411: 'A file request with a byte limit needs Content-Length',
        413: 'Too large, or the file request is full',
      },
      handler: ({ link, req, ip, query }) => intake.multipart(link, { headers: req.headers, body: req, query }, ip),
    }),
    route({
      method: 'POST',
      path: '/api/share/:token/conflicts',
      access: 'link',
      scope: 'read',
      tags: LINK_TAGS,
      summary: 'The names an upload into a folder of the link would find taken, before any byte is sent',
      description:
        "Body `{path, names}`: the folder inside the link and the paths of the upload's files inside it (uploaded folders merge, so only files meet taken names). Answers as POST /api/files/conflicts: what holds each taken name and `canReplace` (false unless the link allows deleting), so the holder can choose keep both, skip or replace and send it as `conflict`. Only for a link that shows its folder: a file request tells nothing (403), its uploads keep both.",
      params: tokenParams,
      body: linkConflictsBody,
      responses: {
        200: { description: 'The taken names', schema: conflictsAnswer },
        403: 'A file request shows nothing',
        404: 'No such link or folder',
      },
      handler: ({ link, body }) => reads.conflicts(link, body.path, body.names),
    }),
    ...tusRows({
      path: '/api/share/:token/tus',
      access: 'link',
      tags: LINK_TAGS,
      tus: deps.uploads.tus,
      enabled: deps.chunkedEnabled,
      params: tokenParams,
      idParams: uploadParams,
      uploader: ({ link }) => link.caller,
      // A file request claims Upload-Length before the upload exists.
      create: ({ link, req }, create) => intake.tusCreate(link, req.headers, create),
      uploadUrl: ({ link }) => `${deps.publicUrl ?? ''}/api/share/${link.row.token}/tus`,
      placed: ({ link, ip }, placed) => intake.tusPlaced(link, placed, ip),
      words: {
        create: {
          summary:
            'Start a resumable (TUS) upload into a link; `uploadTo` in Upload-Metadata is `share/<token>/…`. A file request claims Upload-Length against its limits',
          responses: {
            201: noBody("Created; Location is the link's upload URL (no body)"),
            403: 'Not allowed by the link',
            404: 'No such link (or chunked uploads are off)',
            413: 'The file request is full',
          },
        },
        head: {
          summary: "Offset of a link's resumable upload (TUS)",
          responses: {
            200: noBody('Upload-Offset, Upload-Length (no body)'),
            404: 'No such link or upload',
            409: 'Being placed by another instance of a cluster (TUS_BUSY)',
            423: 'Placement failed',
          },
        },
        patch: {
          summary: "Send bytes of a link's resumable upload (TUS); the last byte places the file under a free name",
          responses: {
            204: { description: 'Upload-Offset' },
            404: 'No such link or upload',
            409: 'Offset mismatch, or another request (on this or another instance) is working on the upload (TUS_BUSY)',
          },
        },
        terminate: {
          summary: "Cancel a link's resumable upload (TUS termination)",
          responses: {
            204: { description: 'Cancelled' },
            404: 'No such link or upload',
            409: 'Another instance of a cluster is working on the upload (TUS_BUSY)',
          },
        },
      },
    }),
    route({
      method: 'GET',
      path: '/api/share/:token/editor',
      access: 'link',
      tags: LINK_TAGS,
      summary:
        "Read a text file of a link for editing (ETag also changes with the link's canWrite/canDownload; 304 after the permission check)",
      params: tokenParams,
      query: z.object({ path: linkPath }),
      responses: {
        200: {
          description: '`{ content }` with ETag (compressed over 32 KB when asked)',
          schema: z.object({ content: z.string() }),
        },
        304: 'Unchanged',
        400: 'Over EDITOR_MAX_FILESIZE',
        403: 'Not allowed by the link',
        404: 'No such link or file',
        415: 'Binary file',
      },
      handler: async ({ link, query, req, res }) => {
        const text = await deps.editor.read(link.caller, inHeldLink(link.row, query.path));
        granted(res, reads.readText(link, query.path, askOf(req)));
        return wholeText({ content: text.content }, text.etag);
      },
    }),
    route({
      method: 'PUT',
      path: '/api/share/:token/editor',
      access: 'link',
      tags: LINK_TAGS,
      summary:
        'Save a text file through a writable link (allowEdit); the replaced content is kept as a version for the owner',
      params: tokenParams,
      body: z.object({ path: relPath, content: z.string() }),
      requestHeaders: { 'If-Match': IF_MATCH },
      responses: {
        200: {
          description: '`{ success }` with the ETag the next read carries',
          schema: z.object({ success: z.boolean() }),
        },
        400: 'Over EDITOR_MAX_FILESIZE',
        403: 'Not allowed by the link',
        404: 'No such link or file',
        412: "EDITOR_CHANGED: If-Match does not match the link's ETag of the file as it is now; nothing was written",
        415: 'Binary file',
      },
      handler: async ({ link, body, req }) => {
        const { etag } = await deps.editor.save(
          link.caller,
          inHeldLink(link.row, body.path),
          body.content,
          req.headers['if-match'],
        );
        return reply(200, { success: true }, { ETag: etag });
      },
    }),
  ];
}

// The office-editing rows, built only when the plugin is configured (the composition root
// imports this module dynamically). The editor-facing rows are `callback` rows: the editing
// server calls them server to server, authorised only by the access_token they carry (in the
// query, or as WOPI's Authorization: Bearer), never by a cookie, and from any Origin.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import type { Capability } from '../../http/capability.ts';
import { route } from '../../http/route.ts';
import { createOfficeEditorPlugin, type OfficeEditorDeps, type OfficeEditorPlugin } from './index.ts';
import type { WopiAnswer } from './wopi.ts';
import {
  accessTokenQuery,
  checkFileInfo,
  editorConfigRequest,
  onlyofficeCallbackAnswer,
  onlyofficeCallbackBody,
  onlyofficeConfigAnswer,
  wopiConfigAnswer,
} from './wire.ts';

const fileParams = z.object({ fileId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/) });
const wopiTags = ['Office editing (WOPI)'];
const onlyofficeTags = ['Office editing (ONLYOFFICE)'];
const tokenRefusals = {
  401: 'The access_token is missing, forged, expired, or for another file',
  404: 'The file is gone',
  500: 'Not signed with the proof key the editing server publishes in its discovery (WOPI_PROOF_INVALID)',
};

/** The token the editing server presents: `?access_token=`, else WOPI's `Authorization: Bearer`. */
function presentedToken(req: IncomingMessage, query: { access_token?: string | undefined }): string | undefined {
  if (query.access_token) return query.access_token;
  return /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
}

async function send(res: ServerResponse, answer: WopiAnswer): Promise<void> {
  const body = answer.json === undefined ? undefined : JSON.stringify(answer.json);
  res.writeHead(answer.status, {
    ...(body !== undefined
      ? { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(body)) }
      : {}),
    ...answer.headers,
  });
  if (answer.stream) return pipeline(answer.stream, res);
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

export function createOfficeEditorCapability(deps: OfficeEditorDeps): Capability {
  const plugin = createOfficeEditorPlugin(deps);
  return {
    routes: [
      ...(plugin.wopi ? wopiRoutes(plugin.wopi) : []),
      ...(plugin.onlyoffice ? onlyofficeRoutes(plugin.onlyoffice) : []),
    ],
    features: () => plugin.features(),
  };
}

/** The WOPI editor's rows: the page's config and the editing server's call backs. */
export function wopiRoutes(wopi: NonNullable<OfficeEditorPlugin['wopi']>) {
  /** The presented token of a call back whose proof holds (see prove). */
  const proven = async (req: IncomingMessage, query: { access_token?: string | undefined }) => {
    const token = presentedToken(req, query);
    await wopi.prove(req.url ?? '/', token, req.headers);
    return token;
  };
  const configRefusals = {
    400: 'A folder, or not inside a volume',
    403: 'The file may not be read',
    404: 'No such file',
    415: 'The editor does not open this type',
    502: "The editing server's discovery cannot be read",
  };
  return [
    route({
      method: 'POST',
      path: '/api/officeeditor/config',
      access: 'account',
      tags: wopiTags,
      summary: 'Open a document in the WOPI editor: the editor address and a signed access_token',
      description:
        "The page posts `access_token` (and `access_token_ttl`) as a form to `urlSrc`, targeting the editor's frame.",
      body: editorConfigRequest,
      responses: { 200: { description: 'Editor address and token', schema: wopiConfigAnswer }, ...configRefusals },
      handler: ({ caller, body }) => wopi.config(caller, body),
    }),
    route({
      method: 'POST',
      path: '/api/collabora/config',
      access: 'account',
      tags: wopiTags,
      summary: 'The WOPI editor for the native client: urlSrc carries the token',
      body: editorConfigRequest,
      responses: {
        200: {
          description: 'Editor address (token included) and the token under both names',
          schema: wopiConfigAnswer,
        },
        ...configRefusals,
      },
      handler: ({ caller, body }) => wopi.config(caller, body, { tokenInUrl: true }),
    }),
    route({
      method: 'GET',
      path: '/api/officeeditor/wopi/files/:fileId',
      access: 'callback',
      tags: wopiTags,
      summary: 'WOPI CheckFileInfo',
      params: fileParams,
      query: accessTokenQuery,
      responses: {
        200: {
          description: "File properties and the caller's rights",
          contentType: 'application/json',
          schema: checkFileInfo,
        },
        ...tokenRefusals,
      },
      handler: async ({ req, res, params, query }) =>
        send(res, await wopi.checkFileInfo(params.fileId, await proven(req, query))),
    }),
    route({
      method: 'POST',
      path: '/api/officeeditor/wopi/files/:fileId',
      access: 'callback',
      tags: wopiTags,
      summary: 'WOPI file operations by X-WOPI-Override: LOCK, GET_LOCK, REFRESH_LOCK, UNLOCK, PUT_RELATIVE',
      params: fileParams,
      query: accessTokenQuery,
      body: 'stream',
      responses: {
        200: {
          description: 'Done (X-WOPI-Lock, X-WOPI-ItemVersion; PUT_RELATIVE answers Name and Url)',
          contentType: 'application/json',
        },
        400: 'A missing or bad X-WOPI-Lock or target',
        403: 'The token may not change the file',
        409: 'Locked by another editing session (X-WOPI-Lock names the lock held)',
        501: 'An operation this host does not offer',
        ...tokenRefusals,
      },
      handler: async ({ req, res, params, query }) =>
        send(res, await wopi.fileOperation(params.fileId, await proven(req, query), req.headers, req)),
    }),
    route({
      method: 'GET',
      path: '/api/officeeditor/wopi/files/:fileId/contents',
      access: 'callback',
      tags: wopiTags,
      summary: 'WOPI GetFile',
      params: fileParams,
      query: accessTokenQuery,
      responses: {
        200: { description: 'The file (X-WOPI-ItemVersion)', contentType: 'application/octet-stream' },
        412: 'Larger than X-WOPI-MaxExpectedSize',
        ...tokenRefusals,
      },
      handler: async ({ req, res, params, query }) =>
        send(res, await wopi.getFile(params.fileId, await proven(req, query), req.headers)),
    }),
    route({
      method: 'POST',
      path: '/api/officeeditor/wopi/files/:fileId/contents',
      access: 'callback',
      tags: wopiTags,
      summary: 'WOPI PutFile: the replaced content is kept as a version',
      params: fileParams,
      query: accessTokenQuery,
      body: 'stream',
      responses: {
        200: { description: 'Saved (X-WOPI-ItemVersion)', contentType: 'application/json' },
        403: 'The token may not change the file',
        409: 'Locked by another editing session (X-WOPI-Lock)',
        413: 'Larger than this server accepts',
        ...tokenRefusals,
      },
      handler: async ({ req, res, params, query }) =>
        send(res, await wopi.putFile(params.fileId, await proven(req, query), req.headers, req)),
    }),
  ];
}

/** ONLYOFFICE's rows: the page's config, the document for the document server and its callback. */
export function onlyofficeRoutes(onlyoffice: NonNullable<OfficeEditorPlugin['onlyoffice']>) {
  return [
    route({
      method: 'POST',
      path: '/api/onlyoffice/config',
      access: 'account',
      tags: onlyofficeTags,
      summary: 'Open a document in ONLYOFFICE: the document server and the signed editor config',
      body: editorConfigRequest,
      responses: {
        200: { description: 'Document server and config', schema: onlyofficeConfigAnswer },
        400: 'A folder, or not inside a volume',
        403: 'The file may not be read',
        404: 'No such file',
        415: 'The editor does not open this type',
      },
      handler: ({ caller, body }) => onlyoffice.config(caller, body),
    }),
    route({
      method: 'GET',
      path: '/api/onlyoffice/files/:fileId/content',
      access: 'callback',
      tags: onlyofficeTags,
      summary: 'The document, for the document server',
      params: fileParams,
      query: accessTokenQuery,
      responses: { 200: { description: 'The file', contentType: 'application/octet-stream' }, ...tokenRefusals },
      handler: async ({ res, params, query }) =>
        send(res, await onlyoffice.download(params.fileId, query.access_token)),
    }),
    route({
      method: 'POST',
      path: '/api/onlyoffice/callback/:fileId',
      access: 'callback',
      tags: onlyofficeTags,
      summary:
        "The document server's callback: on a save, the edited document is fetched from it and written, keeping the replaced content as a version",
      params: fileParams,
      query: accessTokenQuery,
      body: onlyofficeCallbackBody,
      responses: {
        200: { description: 'Taken', schema: onlyofficeCallbackAnswer },
        400: "No document URL, or not the document server's",
        403: 'A view-only session',
        413: 'Larger than this server accepts',
        502: 'The document could not be fetched',
        ...tokenRefusals,
      },
      handler: ({ req, params, query, body }) =>
        onlyoffice.callback(params.fileId, query.access_token, body, req.headers.authorization),
    }),
  ];
}

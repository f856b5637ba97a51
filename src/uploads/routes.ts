// The upload rows of the route table: multipart `POST /api/upload` and TUS 1.0.0 under
// `/api/upload/tus` (discovery here, the upload rows from tus/rows.ts, which makes a link's too).
// With UPLOAD_CHUNKED_ENABLED=false the TUS rows stay mounted and described but answer 404
// `UPLOAD_CHUNKED_DISABLED`, so a client learns why instead of meeting a 405.
import { route } from '../http/route.ts';
import type { MultipartReceiver } from './multipart.ts';
import { CHECKSUM_ALGORITHMS, TUS_EXTENSIONS, TUS_HEADERS, TUS_VERSION } from './tus/protocol.ts';
import { tusAnswer, tusRows } from './tus/rows.ts';
import type { TusService } from './tus/service.ts';
import { noBody, tusParams, uploadedItems, uploadQuery } from './wire.ts';

export interface UploadRouteDeps {
  multipart: MultipartReceiver;
  tus: TusService;
  chunkedEnabled: boolean;
  /** PUBLIC_URL, to make upload URLs absolute behind a proxy; null = path-only Location. */
  publicUrl: string | null;
}

const TAGS = ['Uploads'];
const TUS_PATH = '/api/upload/tus';

export function uploadRoutes(deps: UploadRouteDeps) {
  const { multipart, tus } = deps;

  const tusOptions = () => ({
    ...TUS_HEADERS,
    'Tus-Version': TUS_VERSION,
    'Tus-Extension': TUS_EXTENSIONS.join(','),
    'Tus-Checksum-Algorithm': CHECKSUM_ALGORITHMS.join(','),
  });
  const disabledNote = 'Answers 404 `UPLOAD_CHUNKED_DISABLED` unless UPLOAD_CHUNKED_ENABLED=true.';
  const tusErrors = {
    404: "Unknown, expired or someone else's upload; or chunked uploads are turned off (`UPLOAD_CHUNKED_DISABLED`)",
    412: 'Tus-Resumable missing or not 1.0.0 (the answer carries Tus-Version)',
  };

  return [
    route({
      method: 'POST',
      path: '/api/upload',
      access: 'account',
      tags: TAGS,
      body: 'stream',
      status: 201,
      query: uploadQuery,
      summary:
        'Upload files in one multipart request (files in `filedata`; `uploadTo`, `relativePath` and `conflict` text fields before each file, or in the query string).',
      description:
        'Each file streams to the destination volume and is placed once the whole request has arrived. A taken name is answered by `conflict` (a field before the files it applies to, or the query): `rename` (the default) keeps both as `name (1)`, `skip` keeps the file there (its bytes are read away, not stored), `replace` puts the new file in its place by rename and keeps the old content as a version (`versionId`); replacing needs the right to delete there. `POST /api/files/conflicts` lists the taken names beforehand. Folders in `relativePath` are created as needed and merge into folders of the same name. Every item of the answer says what became of it (`outcome`). A refused or interrupted request keeps nothing: files placed before the failure are taken back, a replaced file gets its old content back.',
      responses: {
        201: { description: 'The stored files, in the order sent, with their final names', schema: uploadedItems },
        400: 'A file in a field other than `filedata`, no `uploadTo` before the file (nor in the query), `uploadTo`/`relativePath` after the last file, a query `relativePath` with several files, a bad name, or a malformed body',
        403: 'The caller may not upload into the folder (or replace there, with conflict `replace`)',
        413: 'A file over MAX_DIRECT_UPLOAD_SIZE or more files than MAX_FILES_PER_UPLOAD (the message names the limit)',
        507: 'The volume lacks the space (UPLOAD_FREE_SPACE_RESERVE is kept free)',
      },
      // A refusal reads the rest of the body away (the error answer does, for every row).
      handler: ({ req, caller, query }) => multipart.receive(caller, { headers: req.headers, body: req, query }),
    }),
    route({
      method: 'OPTIONS',
      path: TUS_PATH,
      access: 'public',
      scope: 'read',
      tags: TAGS,
      summary: 'TUS discovery: the protocol version and extensions this server supports.',
      description: disabledNote,
      responses: {
        204: {
          description:
            'Tus-Version, Tus-Extension (creation, termination, expiration, checksum), Tus-Checksum-Algorithm (sha256)',
        },
      },
      handler: () => tusAnswer(deps.chunkedEnabled, async () => ({ status: 204, headers: tusOptions() })),
    }),
    route({
      method: 'OPTIONS',
      path: `${TUS_PATH}/:id`,
      access: 'public',
      scope: 'read',
      tags: TAGS,
      params: tusParams,
      summary: 'TUS discovery on an upload URL (same answer as on the creation URL).',
      description: disabledNote,
      responses: { 204: { description: 'Tus-Version, Tus-Extension, Tus-Checksum-Algorithm' } },
      handler: () => tusAnswer(deps.chunkedEnabled, async () => ({ status: 204, headers: tusOptions() })),
    }),
    ...tusRows({
      path: TUS_PATH,
      access: 'account',
      tags: TAGS,
      tus,
      enabled: deps.chunkedEnabled,
      idParams: tusParams,
      uploader: ({ caller }) => caller,
      uploadUrl: () => `${deps.publicUrl ?? ''}${TUS_PATH}`,
      words: {
        create: {
          summary:
            'Create a resumable upload (TUS creation): headers Tus-Resumable 1.0.0, Upload-Length, Upload-Metadata (filename, uploadTo, relativePath, conflict; base64).',
          description: `The destination is checked now and again when the last byte arrives. Parts are kept on the destination volume. Metadata \`conflict\` answers a taken name as in POST /api/upload (\`rename\`, \`skip\`, \`replace\`); it is applied when the file is placed, and a \`skip\` whose name is taken already is complete at once (the answer carries Upload-Offset = Upload-Length and Upload-Outcome: skipped, so no byte need be sent). The answer that completes an upload (and every HEAD after) carries Upload-Outcome (\`placed\`, \`renamed\`, \`replaced\`, \`skipped\`) and, for a replace, Upload-Version-Id (the replaced content, kept as a version) or Upload-Trash-Id. ${disabledNote}`,
          responses: {
            201: noBody(
              'Created; Location carries the upload URL, Upload-Expires when an unfinished upload is discarded (no body)',
            ),
            400: 'Missing or malformed Upload-Length / Upload-Metadata, bad names',
            403: 'The caller may not upload into the folder (or replace there, with conflict `replace`)',
            413: 'Upload-Length beyond any file this server can hold',
            507: 'The volume lacks the space for Upload-Length',
            ...tusErrors,
          },
        },
        head: {
          summary: 'The offset of a resumable upload; complete (offset = length) only once the file is placed.',
          description: `Only the account that created the upload may ask. After a failed placement the answer is 423 with Upload-Finalize-Error (a URI-encoded sentence) and each HEAD retries the placement; once it succeeds the answer is complete. A complete answer carries Upload-File-Path (URI-encoded virtual path of the placed file). ${disabledNote}`,
          responses: {
            200: noBody(
              'Upload-Offset, Upload-Length, Upload-Metadata, Upload-Expires (unfinished) or Upload-File-Path (complete); no body',
            ),
            409: 'TUS_BUSY: the upload is being placed by another instance of a cluster; ask again shortly',
            423: 'The placement failed again (Upload-Finalize-Error says why)',
            ...tusErrors,
          },
        },
        patch: {
          summary:
            'Send bytes of a resumable upload at Upload-Offset (Content-Type application/offset+octet-stream; optional Upload-Checksum sha256).',
          description: `The PATCH that brings the offset to the length places the file; when that fails it answers 500 (507 when the volume is full) with Upload-Finalize-Error. ${disabledNote}`,
          responses: {
            204: { description: 'Upload-Offset after this PATCH (and Upload-File-Path once placed)' },
            409: "Upload-Offset does not match the server's offset (TUS_OFFSET_MISMATCH); or another request, on this or another instance of a cluster, is working on the upload (TUS_BUSY, TUS_SUPERSEDED): ask HEAD and retry",
            413: 'The bytes go past Upload-Length (none of them are kept)',
            415: 'Content-Type is not application/offset+octet-stream',
            460: 'Upload-Checksum does not match (none of the bytes are kept)',
            500: 'The upload is complete but could not be placed (Upload-Finalize-Error)',
            507: 'The volume is full (Upload-Finalize-Error when it happened at placement)',
            ...tusErrors,
          },
        },
        terminate: {
          summary: 'Cancel a resumable upload (TUS termination); its bytes are removed. A placed file is not touched.',
          description: disabledNote,
          responses: {
            204: { description: 'Cancelled' },
            409: 'TUS_BUSY: another instance of a cluster is working on the upload; try again shortly',
            ...tusErrors,
          },
        },
      },
    }),
  ];
}

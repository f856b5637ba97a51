// The ONLYOFFICE Docs protocol (the second integration, under /api/onlyoffice): a config the
// browser hands to the document server's api.js, signed with ONLYOFFICE_SECRET; a download
// link for the document server; and its callback, which on status 2 (closed with changes) or
// 6 (force-save) fetches the edited file — only from the document server's own origin, with
// a size cap — and saves it keeping the replaced content as a version.
import path from 'node:path';
import type { JWTPayload } from 'jose';
import type { ChangeSink } from '../../changes.ts';
import { AppError } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import type { Caller } from '../../core/caller.ts';
import type { PathResolver } from '../../files/paths.ts';
import type { VersionService } from '../../versions/service.ts';
import { fileEvent, shownPath, type ActivitySink } from '../../files/activity.ts';
import type { WorkJournal } from '../../files/journal.ts';
import type { ItemLocks } from '../../files/locks.ts';
import { discardTemporary, openForRead, replaceKeepingVersion, versionOf, writeTemporary } from './content.ts';
import type { WopiAnswer } from './wopi.ts';
import { fileIdFor, jose, signFileToken, verifyFileToken } from './tokens.ts';

export interface OnlyOfficeOptions {
  /** ONLYOFFICE_URL: public base of the document server. */
  url: string;
  /** ONLYOFFICE_SECRET: the document server's JWT secret. */
  secret: string;
  lang: string;
  extensions: readonly string[];
  forceSave: boolean;
}

export interface OnlyOfficeDeps {
  /** Saves go to the activity log as the account the config was signed for. */
  activity?: ActivitySink;
  resolver: PathResolver;
  versions: VersionService;
  changes: ChangeSink;
  /** The work journal (files capability): a save's temporary is on it until placed or removed. */
  journal: WorkJournal;
  log: Logger;
  callerFor(userId: string): Caller | null;
  /** Every door's locks: a save respects another account's WebDAV lock or WOPI lock (423 LOCKED). */
  itemLocks: ItemLocks;
  publicUrl: string;
  options: OnlyOfficeOptions;
  maxFileSize: number;
  fetch?: typeof fetch;
}

const DOWNLOAD_AUDIENCE = 'burrow-onlyoffice-download';
const CALLBACK_AUDIENCE = 'burrow-onlyoffice-callback';
/** The document server fetches the file right after the editor opens. */
const DOWNLOAD_TTL_MS = 60 * 60 * 1000;
/** It calls back when the last editor closes, which may be much later. */
const CALLBACK_TTL_MS = 7 * 24 * 60 * 60 * 1000;
const FETCH_TIMEOUT_MS = 120_000;

export const ONLYOFFICE_DEFAULT_EXTENSIONS = [
  'docx',
  'doc',
  'odt',
  'rtf',
  'txt',
  'xlsx',
  'xls',
  'ods',
  'csv',
  'pptx',
  'ppt',
  'odp',
  'pdf',
];

const DOCUMENT_TYPES: Record<string, 'word' | 'cell' | 'slide' | 'pdf'> = {};
for (const e of [
  'doc',
  'docm',
  'docx',
  'dot',
  'dotm',
  'dotx',
  'epub',
  'fb2',
  'fodt',
  'htm',
  'html',
  'mht',
  'mhtml',
  'odt',
  'ott',
  'rtf',
  'txt',
  'xml',
  'md',
])
  DOCUMENT_TYPES[e] = 'word';
for (const e of ['csv', 'et', 'ett', 'fods', 'ods', 'ots', 'sxc', 'xls', 'xlsb', 'xlsm', 'xlsx', 'xlt', 'xltm', 'xltx'])
  DOCUMENT_TYPES[e] = 'cell';
for (const e of [
  'dps',
  'dpt',
  'fodp',
  'odp',
  'otp',
  'pot',
  'potm',
  'potx',
  'pps',
  'ppsm',
  'ppsx',
  'ppt',
  'pptm',
  'pptx',
  'sxi',
])
  DOCUMENT_TYPES[e] = 'slide';
for (const e of ['djvu', 'oxps', 'pdf', 'xps']) DOCUMENT_TYPES[e] = 'pdf';

export interface OnlyOfficeService {
  readonly extensions: readonly string[];
  config(
    caller: Caller,
    input: { path: string; mode?: 'edit' | 'view' },
  ): Promise<{ documentServerUrl: string; config: Record<string, unknown> }>;
  /** GET /api/onlyoffice/files/{fileId}/content?access_token= (the document server's download). */
  download(fileId: string, token: unknown): Promise<WopiAnswer>;
  /** POST /api/onlyoffice/callback/{fileId}?access_token= with the document server's (signed) body. */
  callback(fileId: string, token: unknown, body: unknown, authorization: string | undefined): Promise<{ error: 0 }>;
}

export function createOnlyOffice(deps: OnlyOfficeDeps): OnlyOfficeService {
  const opts = deps.options;
  const key = new TextEncoder().encode(opts.secret);
  const serverOrigin = new URL(opts.url).origin;
  const base = opts.url.replace(/\/+$/, '');
  const extensions = opts.extensions.length ? opts.extensions : ONLYOFFICE_DEFAULT_EXTENSIONS;
  const fetchImpl = deps.fetch ?? fetch;

  async function fileFor(fileId: string, token: unknown, audience: string) {
    const claims = await verifyFileToken(key, audience, token, fileId);
    const caller = deps.callerFor(claims.userId);
    if (!caller) throw new AppError('OFFICE_TOKEN_INVALID', 'The account behind this link can no longer sign in.');
    const file = await deps.resolver.resolve(caller, claims.path, { mustExist: true });
    if (!file.space || file.isDirectory || fileIdFor(opts.secret, file.realPath) !== fileId)
      throw new AppError('NOT_FOUND', 'No such file.');
    return { caller, claims, file };
  }

  /** The callback body as the document server signed it (JWT in the body or the Authorization header). */
  async function signedBody(body: unknown, authorization: string | undefined): Promise<Record<string, unknown>> {
    const inBody = body && typeof body === 'object' ? (body as { token?: unknown }).token : undefined;
    const bearer = authorization && /^Bearer\s+(.+)$/i.exec(authorization)?.[1];
    const jwt = typeof inBody === 'string' ? inBody : bearer;
    if (!jwt) throw new AppError('ONLYOFFICE_UNSIGNED', 'The callback is not signed with the document server secret.');
    let payload: JWTPayload;
    try {
      const { jwtVerify } = await jose();
      ({ payload } = await jwtVerify(jwt, key, { algorithms: ['HS256'] }));
    } catch {
      throw new AppError('ONLYOFFICE_UNSIGNED', 'The callback signature is not valid.');
    }
    // In the header form the body sits under `payload`.
    return (
      typeof inBody === 'string' ? payload : ((payload.payload as Record<string, unknown> | undefined) ?? payload)
    ) as Record<string, unknown>;
  }

  return {
    extensions,

    async config(caller, input) {
      const file = await deps.resolver.resolve(caller, input.path, { mustExist: true });
      if (!file.space || file.isDirectory) throw new AppError('IS_A_FOLDER', 'Name a file, not a folder.');
      if (!file.access.canRead) throw new AppError('FORBIDDEN', 'You may not read this file.');
      const ext = path.extname(file.realPath).slice(1).toLowerCase();
      const documentType = DOCUMENT_TYPES[ext];
      if (!documentType || !extensions.includes(ext))
        throw new AppError(
          'OFFICE_UNSUPPORTED_TYPE',
          `Files of type .${ext || '(none)'} are not opened in the office editor here.`,
        );
      const { handle, stat } = await openForRead(file.realPath, file.space.root);
      await handle.close();
      const canEdit = input.mode !== 'view' && file.access.canWrite;
      const fileId = fileIdFor(opts.secret, file.realPath);
      const claims = { userId: caller.userId, fileId, path: file.virtualPath, canWrite: canEdit };
      const download = await signFileToken(key, DOWNLOAD_AUDIENCE, { ...claims, canWrite: false }, DOWNLOAD_TTL_MS);
      const callback = await signFileToken(key, CALLBACK_AUDIENCE, claims, CALLBACK_TTL_MS);
      const config: Record<string, unknown> = {
        document: {
          fileType: ext,
          // Changes with the content: the document server caches documents by key.
          key: `${fileId}-${versionOf(stat)}`.replace(/[^0-9A-Za-z._=-]/g, '_').slice(0, 128),
          title: path.basename(file.realPath),
          url: `${deps.publicUrl}/api/onlyoffice/files/${fileId}/content?access_token=${encodeURIComponent(download.token)}`,
          permissions: { edit: canEdit, download: true, print: true, review: canEdit, comment: canEdit },
        },
        documentType,
        editorConfig: {
          mode: canEdit ? 'edit' : 'view',
          lang: opts.lang,
          callbackUrl: `${deps.publicUrl}/api/onlyoffice/callback/${fileId}?access_token=${encodeURIComponent(callback.token)}`,
          user: { id: caller.userId, name: caller.username },
          customization: { forcesave: opts.forceSave },
        },
      };
      const { SignJWT } = await jose();
      config.token = await new SignJWT(config as JWTPayload)
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuedAt()
        .setExpirationTime('12h')
        .sign(key);
      return { documentServerUrl: base, config };
    },

    async download(fileId, token) {
      const { file } = await fileFor(fileId, token, DOWNLOAD_AUDIENCE);
      const { handle, stat } = await openForRead(file.realPath, file.space.root);
      return {
        status: 200,
        headers: {
          'Content-Type': 'application/octet-stream',
          'Content-Length': String(stat.size),
          'Cache-Control': 'no-store',
        },
        stream: handle.createReadStream({ autoClose: true }),
      };
    },

    async callback(fileId, token, body, authorization) {
      const { caller, claims, file } = await fileFor(fileId, token, CALLBACK_AUDIENCE);
      const signed = await signedBody(body, authorization);
      const status = Number(signed.status);
      if (status !== 2 && status !== 6) {
        if (status === 3 || status === 7)
          deps.log.warn('the document server reports a saving error', { fileId, status });
        return { error: 0 };
      }
      if (!claims.canWrite || !file.access.canWrite)
        throw new AppError('READ_ONLY', 'This editing session may not change the file.');
      deps.itemLocks.assertFree(caller, file);
      const url = typeof signed.url === 'string' ? signed.url : '';
      let source: URL;
      try {
        source = new URL(url);
      } catch {
        throw new AppError('ONLYOFFICE_BAD_URL', 'The callback carries no valid document URL.');
      }
      // Only the configured document server: a forged URL must not make us fetch from elsewhere.
      if (source.origin !== serverOrigin)
        throw new AppError(
          'ONLYOFFICE_FOREIGN_URL',
          'The edited document must come from the configured document server.',
        );
      let res: Response;
      try {
        res = await fetchImpl(source, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: 'error' });
      } catch (err) {
        throw new AppError(
          'ONLYOFFICE_FETCH_FAILED',
          `The edited document could not be fetched from the document server (${(err as Error).message}).`,
        );
      }
      if (!res.ok || !res.body)
        throw new AppError(
          'ONLYOFFICE_FETCH_FAILED',
          `The document server answered ${res.status} for the edited document.`,
        );
      if (Number(res.headers.get('content-length') ?? 0) > deps.maxFileSize) {
        await res.body.cancel();
        throw new AppError(
          'OFFICE_TOO_LARGE',
          `The edited document is larger than this server accepts (${deps.maxFileSize} bytes).`,
        );
      }
      const temp = await writeTemporary(
        deps.journal,
        path.dirname(file.realPath),
        file.space.root,
        res.body as unknown as AsyncIterable<Uint8Array>,
        deps.maxFileSize,
      );
      // A lock may have been taken while the document was fetched.
      try {
        deps.itemLocks.assertFree(caller, file);
      } catch (err) {
        await discardTemporary(temp);
        throw err;
      }
      await replaceKeepingVersion(temp, file.realPath, deps.versions, caller.username);
      deps.changes.emit({ type: 'modified', path: file.realPath });
      deps.activity?.record(fileEvent(caller, 'office.save', { path: shownPath(file), via: 'ONLYOFFICE' }));
      return { error: 0 };
    },
  };
}

// Wire shapes of the office-editing rows.
import { z } from 'zod';

export const editorConfigRequest = z.object({
  path: z.string().min(1).max(4096),
  mode: z.enum(['edit', 'view']).optional(),
});

export const wopiConfigAnswer = z.object({
  /** The editor's address with WOPISrc (the native variant also carries the token in it). */
  urlSrc: z.string(),
  access_token: z.string(),
  /** The same token under the native client's name. */
  accessToken: z.string(),
  /** When the token expires, in milliseconds since the epoch (WOPI's access_token_ttl). */
  accessTokenTtl: z.number().int(),
  access_token_ttl: z.number().int(),
  fileId: z.string(),
  mode: z.enum(['edit', 'view']),
});

export const onlyofficeConfigAnswer = z.object({
  /** The document server; the page loads `{documentServerUrl}/web-apps/apps/api/documents/api.js`. */
  documentServerUrl: z.string(),
  /** Handed verbatim to DocsAPI.DocEditor; carries its signed `token`. */
  config: z.record(z.string(), z.unknown()),
});

/** WOPI CheckFileInfo (the properties this host sets). */
export const checkFileInfo = z.object({
  BaseFileName: z.string(),
  OwnerId: z.string(),
  Size: z.number().int(),
  Version: z.string(),
  LastModifiedTime: z.string(),
  UserId: z.string(),
  UserFriendlyName: z.string(),
  UserCanWrite: z.boolean(),
  ReadOnly: z.boolean(),
  UserCanRename: z.boolean(),
  UserCanNotWriteRelative: z.boolean(),
  SupportsLocks: z.boolean(),
  SupportsGetLock: z.boolean(),
  SupportsExtendedLockLength: z.boolean(),
  SupportsUpdate: z.boolean(),
  SupportsRename: z.boolean(),
  SupportsDeleteFile: z.boolean(),
  SupportsUserInfo: z.boolean(),
  IsAnonymousUser: z.boolean(),
  PostMessageOrigin: z.string(),
});

export const accessTokenQuery = z
  .object({ access_token: z.string().max(8192).optional(), access_token_ttl: z.string().optional() })
  .passthrough();

export const onlyofficeCallbackBody = z.record(z.string(), z.unknown());
export const onlyofficeCallbackAnswer = z.object({ error: z.literal(0) });

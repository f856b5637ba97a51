// Sharing on the wire (server: src/shares/wire.ts): the owner's shares and a link holder's rows.
import { api, apiFetch, apiUrl, type RequestOptions } from '../api/client.ts';
import type { ApiAnswer, ApiBody } from '../../../src/contract.ts';

export type Share = ApiAnswer<'GET /api/shares'>['shares'][number];
export type FileRequestInfo = NonNullable<Share['fileRequest']>;

export type AllowKey =
  | 'allowDownload'
  | 'allowUpload'
  | 'allowCreateFile'
  | 'allowCreateFolder'
  | 'allowRename'
  | 'allowDelete'
  | 'allowEdit'
  | 'allowLocation'
  | 'allowTranscode';

/** What the share dialog sends: a change of a share (absent = keep; a null password removes it). */
export type ShareInput = ApiBody<'PUT /api/shares/:id'>;
export type ShareableUser = ApiAnswer<'GET /api/users/shareable'>['users'][number];
export type LinkInfo = ApiAnswer<'GET /api/share/:token/info'>;

/** A new link: as ShareInput, without a password to remove (a new link has none). */
export const createShare = (sourcePath: string, { password, ...input }: ShareInput) =>
  api('POST /api/shares', { body: { sourcePath, ...input, ...(password ? { password } : {}) } });
export const updateShare = (id: string, input: ShareInput) =>
  api('PUT /api/shares/:id', { params: { id }, body: input });
export const deleteShare = (id: string) => api('DELETE /api/shares/:id', { params: { id } });
export const listMyShares = () => api('GET /api/shares').then((a) => a.shares);
export const listSharedWithMe = () => api('GET /api/shares/shared-with-me').then((a) => a.shares);
export const shareableUsers = () => api('GET /api/users/shareable').then((a) => a.users);

/** The link holder's rows, paths relative to the shared item. */
export function linkApi(token: string) {
  const link = { token };
  const asHolder: RequestOptions = { allow401: true };
  return {
    info: () => api('GET /api/share/:token/info', { params: link }, asHolder),
    unlock: (password: string) => api('POST /api/share/:token/access', { params: link, body: { password } }, asHolder),
    browse: (rel: string) => api('GET /api/share/:token/browse/*', { params: { ...link, path: rel } }, asHolder),
    fileUrl: (rel: string, mode: 'inline' | 'raw' | 'download') =>
      apiUrl('GET /api/share/:token/file', { params: link, query: { path: rel, mode } }),
    downloadUrl: (rel: string) => apiUrl('GET /api/share/:token/download/*', { params: { ...link, path: rel } }),
    /** How to play a video of the link (a conversion only when its owner allows), and its converted stream. */
    videoPlan: (rel: string) =>
      api('GET /api/share/:token/video/plan', { params: link, query: { path: rel } }, asHolder),
    videoStreamUrl: (rel: string, start: number) =>
      apiUrl('GET /api/share/:token/video/stream', { params: link, query: { path: rel, start } }),
    /** A picture's thumbnail (WebP), or with `size` its screen-sized rendition. */
    thumbnailUrl: (rel: string, size?: number) =>
      apiUrl('GET /api/share/:token/thumbnail', { params: link, query: { path: rel, ...(size ? { size } : {}) } }),
    /** Several items as one zip (POST, so the selection can be long): the Response, read as a file. */
    zip: (paths: string[], name: string) =>
      apiFetch(
        'POST /api/share/:token/download',
        { params: link, body: { paths, name } },
        { headers: { accept: '*/*' }, allow401: true },
      ),
    createFolder: (rel: string, name: string) =>
      api('POST /api/share/:token/files/folder', { params: link, body: { path: rel, name } }, asHolder),
    createFile: (rel: string, name: string) =>
      api('POST /api/share/:token/files/file', { params: link, body: { path: rel, name } }, asHolder),
    rename: (rel: string, name: string, newName: string) =>
      api('POST /api/share/:token/files/rename', { params: link, body: { path: rel, name, newName } }, asHolder),
    remove: (items: { path: string; name: string }[]) =>
      api('DELETE /api/share/:token/files', { params: link, body: { items } }, asHolder),
    editorUrl: (rel: string) => apiUrl('GET /api/share/:token/editor', { params: link, query: { path: rel } }),
    /** Saves the shared editor's text with `headers` (If-Match); the Response carries the new ETag. */
    save: (rel: string, content: string, headers: Record<string, string>) =>
      apiFetch(
        'PUT /api/share/:token/editor',
        { params: link, body: { path: rel, content } },
        { ...asHolder, headers },
      ),
    /** Where the shared uploader sends a link's uploads (`uploadTo` is `share/<token>/…`). */
    uploads: {
      tus: apiUrl('POST /api/share/:token/tus', { params: link }),
      multipart: apiUrl('POST /api/share/:token/upload', { params: link }),
    },
    uploadTo: (rel: string) => (rel ? `share/${token}/${rel}` : `share/${token}`),
    /** The names an upload into `rel` would find taken (a link that shows its folder; a file request tells nothing). */
    conflicts: (rel: string, names: string[]) =>
      api('POST /api/share/:token/conflicts', { params: link, body: { path: rel, names } }, asHolder),
  };
}
export type LinkApi = ReturnType<typeof linkApi>;

/** The token of a `/s/<token>` address, or null. */
export function linkTokenOf(pathname: string): string | null {
  const m = /^\/s\/([^/]+)\/?$/.exec(pathname);
  if (!m) return null;
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return null;
  }
}

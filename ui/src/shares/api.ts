// Sharing on the wire (server: src/shares/wire.ts): the owner's shares and a link holder's rows.
import { del, encodePath, get, post, put } from '../api/client.ts';

export interface FileRequestInfo {
  maxFiles: number | null;
  maxBytes: number | null;
  receivedFiles: number;
  receivedBytes: number;
}

export interface Share {
  id: string;
  shareToken: string;
  ownerId: string;
  sourcePath?: string;
  sourceName?: string;
  isDirectory: boolean;
  accessMode: 'readonly' | 'readwrite';
  sharingType: 'anyone' | 'users';
  hasPassword: boolean;
  expiresAt: string | null;
  label: string | null;
  downloadCount: number;
  accessCount: number;
  lastAccessedAt: string | null;
  createdAt: string;
  updatedAt: string;
  allowDownload: boolean;
  allowUpload: boolean;
  allowCreateFile: boolean;
  allowCreateFolder: boolean;
  allowRename: boolean;
  allowDelete: boolean;
  allowEdit: boolean;
  permittedUserIds?: string[];
  ownerName?: string;
  fileRequest: FileRequestInfo | null;
  shareUrl: string;
}

export type AllowKey =
  | 'allowDownload'
  | 'allowUpload'
  | 'allowCreateFile'
  | 'allowCreateFolder'
  | 'allowRename'
  | 'allowDelete'
  | 'allowEdit';

export interface ShareInput {
  sharingType: 'anyone' | 'users';
  userIds?: string[];
  /** Absent = keep (on update), null = remove, string = set. */
  password?: string | null;
  expiresAt?: string | null;
  label?: string | null;
  fileRequest?: { maxFiles: number | null; maxBytes: number | null } | null;
  allowDownload?: boolean;
  allowUpload?: boolean;
  allowCreateFile?: boolean;
  allowCreateFolder?: boolean;
  allowRename?: boolean;
  allowDelete?: boolean;
  allowEdit?: boolean;
}

export interface ShareableUser {
  id: string;
  email: string | null;
  username: string;
  displayName: string | null;
}

export interface LinkInfo {
  shareToken: string;
  isDirectory: boolean;
  hasPassword: boolean;
  sharingType: 'anyone' | 'users';
  isExpired: boolean;
  label: string | null;
  expiresAt: string | null;
  name: string;
  isFileRequest: boolean;
  needsPassword: boolean;
  allow: {
    download: boolean;
    upload: boolean;
    createFile: boolean;
    createFolder: boolean;
    rename: boolean;
    delete: boolean;
    edit: boolean;
  };
}

export const createShare = (sourcePath: string, input: ShareInput) =>
  post<Share>('/api/shares', { sourcePath, ...input });
export const updateShare = (id: string, input: Partial<ShareInput>) =>
  put<Share>(`/api/shares/${encodeURIComponent(id)}`, input);
export const deleteShare = (id: string) => del(`/api/shares/${encodeURIComponent(id)}`);
export const listMyShares = () => get<{ shares: Share[] }>('/api/shares').then((a) => a.shares);
export const listSharedWithMe = () => get<{ shares: Share[] }>('/api/shares/shared-with-me').then((a) => a.shares);
export const shareableUsers = () => get<{ users: ShareableUser[] }>('/api/users/shareable').then((a) => a.users);

/** The link holder's rows, paths relative to the shared item. */
export function linkApi(token: string) {
  const base = `/api/share/${encodeURIComponent(token)}`;
  return {
    base,
    info: () => get<LinkInfo>(`${base}/info`, { allow401: true }),
    unlock: (password: string) => post(`${base}/access`, { password }, { allow401: true }),
    browse: (rel: string) => get(`${base}/browse/${encodePath(rel)}`, { allow401: true }),
    fileUrl: (rel: string, mode: 'inline' | 'raw' | 'download') =>
      `${base}/file?path=${encodeURIComponent(rel)}&mode=${mode}`,
    downloadUrl: (rel: string) => `${base}/download/${encodePath(rel)}`,
    /** A picture's thumbnail (WebP), or with `size` its screen-sized rendition. */
    thumbnailUrl: (rel: string, size?: number) =>
      `${base}/thumbnail?path=${encodeURIComponent(rel)}${size ? `&size=${size}` : ''}`,
    zip: `${base}/download`,
    createFolder: (rel: string, name: string) => post(`${base}/files/folder`, { path: rel, name }, { allow401: true }),
    createFile: (rel: string, name: string) => post(`${base}/files/file`, { path: rel, name }, { allow401: true }),
    rename: (rel: string, name: string, newName: string) =>
      post(`${base}/files/rename`, { path: rel, name, newName }, { allow401: true }),
    remove: (items: { path: string; name: string }[]) => del(`${base}/files`, { items }, { allow401: true }),
    editorUrl: (rel: string) => `${base}/editor?path=${encodeURIComponent(rel)}`,
    save: (rel: string, content: string) => put(`${base}/editor`, { path: rel, content }, { allow401: true }),
    /** Where the shared uploader sends a link's uploads (`uploadTo` is `share/<token>/…`). */
    uploads: { tus: `${base}/tus`, multipart: `${base}/upload` },
    uploadTo: (rel: string) => (rel ? `share/${token}/${rel}` : `share/${token}`),
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

// Wire shapes, as the server's routes answer them (spec + wire-shapes contract + the route
// rows in src/*/routes.ts). The one place the UI names a field of an answer: screens import
// these and read nothing else.
//
// The file item family comes from the server's own wire.ts schemas (types only: nothing of
// the server is bundled), so the UI cannot drift from what the server answers.
export type {
  FileItem,
  Access,
  ReadOnlyReason,
  ItemAnswer,
  TransferAnswer as MoveAnswer,
  DeleteImpact,
  ConflictsAnswer,
} from '../../../src/files/wire.ts';
export type { UploadedItem } from '../../../src/uploads/wire.ts';
export type { Listing, Usage } from '../../../src/browse/wire.ts';
export type { FolderPrefsAnswer as FolderPrefs } from '../../../src/folderprefs/wire.ts';
export type { Favorite } from '../../../src/favorites/wire.ts';
import type { FileItem, Access, ReadOnlyReason } from '../../../src/files/wire.ts';

export interface User {
  id: string;
  username: string;
  email?: string | null;
  displayName?: string | null;
  roles?: string[];
  emailVerified?: boolean;
  createdAt?: string;
  updatedAt?: string;
}

/** An account as `GET /api/users` lists it (administrators). */
export interface AdminUser extends User {
  authMethods: { method: string; provider: string | null }[];
  /** A sign-in lockout is in force (lifted by `POST /api/users/{id}/unlock`). */
  locked: boolean;
}

export interface AuthStatus {
  requiresSetup: boolean;
  strategies: { local: boolean; passkey?: boolean; oidc: boolean };
  authEnabled: boolean;
  authMode: 'local' | 'oidc' | 'both' | 'disabled';
  authenticated: boolean;
  totpPending?: boolean;
  user?: User | null;
  oidc?: { enabled: boolean; issuer: string | null; scopes: string[]; status: string };
}

/** `GET /api/features`: every section optional. */
export interface Features {
  version?: string;
  userVolumes?: { enabled: boolean };
  volumeUsage?: { enabled: boolean };
  personal?: { enabled: boolean };
  trash?: { enabled: boolean; retentionDays: number };
  uploads?: { enabled: boolean; chunked: boolean; maxDirectUploadSize: number; maxFilesPerUpload: number };
  folderSize?: { enabled: boolean; mode: 'off' | 'full' | 'shallow' };
  search?: { index: boolean };
  /** WebDAV: mount `path` on this origin as a drive. */
  webdav?: { enabled: boolean; path: string };
  /** The administrator's terminal: `available` false with a reason when it cannot run here. */
  terminal?: { enabled: boolean; available: boolean; reason?: string };
  /** Office editors and the extensions each opens (ONLYOFFICE wins when both match). */
  onlyoffice?: { enabled: boolean; extensions: string[] };
  collabora?: { enabled: boolean; extensions: string[] };
  /**
   * Where this server is reached, for this page: opened at a loopback address from this computer
   * (`loopback`) while PUBLIC_URL is unset, `lanOrigins` are the addresses other devices use.
   */
  network?: { enabled: boolean; publicUrl: string | null; loopback: boolean; reachable: boolean; lanOrigins: string[] };
}

export interface Volume {
  name: string;
  path: string;
  kind: 'volume' | 'personal' | string;
  readOnly?: ReadOnlyReason;
  accessMode?: 'readonly' | 'readwrite';
}

/** `GET /api/metadata/{path}`; `image`/`video` only for what could be read. */
export interface Metadata {
  path: string;
  name: string;
  kind: string;
  size: number;
  dateModified: string;
  dateCreated: string;
  directory?: { totalSize: number; fileCount: number; dirCount: number; truncated: boolean };
  image?: { width?: number | null; height?: number | null };
  video?: { width?: number | null; height?: number | null; duration?: number | null };
}

/** One line of `POST /api/files/delete-stream`. */
export type DeleteEvent =
  | { type: 'start'; total: number }
  | { type: 'progress'; done: number; total: number; path: string; name: string }
  | { type: 'error'; path: string; name: string; message: string; statusCode: number; code?: string }
  | {
      type: 'done';
      total: number;
      deleted: number;
      items: { path: string; name: string; status: 'deleted' | 'missing' | 'failed' }[];
    };

export interface SearchItem {
  name: string;
  path: string;
  kind: 'file' | 'dir';
  matchLine?: string;
  matchLineNumber?: number;
}
export interface SearchAnswer {
  items: SearchItem[];
  truncated?: boolean;
  complete?: boolean;
}

export interface FolderSize {
  path: string;
  canEnter: boolean;
  sizeBytes: number | null;
  entryCount: number;
  lastUpdated: string | null;
  indexed: boolean;
  /** Final: false while the index counts it (no figure yet, or `sizeBytes` a lower bound). */
  complete: boolean;
}
/** `POST /api/folder-size/batch`: one record per asked path, in order. */
export interface FolderSizeBatch {
  items: FolderSize[];
}

export interface TrashEntry {
  id: string;
  name: string;
  /** The folder it was deleted from. */
  path: string;
  originalPath: string;
  isDirectory: boolean;
  kind: string;
  size: number;
  deletedAt: string;
  deletedBy: string | null;
}
export interface TrashRestoreAnswer {
  success: true;
  item: FileItem;
  /** Full path of the restored item. */ path: string;
}

export interface Version {
  id: string;
  path: string;
  size: number;
  modifiedAt: string;
  createdAt: string;
  createdBy: string | null;
}

export interface ApiToken {
  id: string;
  name: string;
  scope: 'read' | 'write';
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  lastUsedIp: string | null;
}

/** `GET/PATCH /api/settings` (system sections only for administrators). */
export interface Settings {
  branding?: { appName?: string; appLogoUrl?: string; showPoweredBy?: boolean };
  user?: { showHiddenFiles?: boolean; showThumbnails?: boolean; theme?: 'system' | 'light' | 'dark' };
  thumbnails?: { enabled: boolean; size: number; quality: number; concurrency: number };
  activity?: { enabled: boolean; retentionDays: number };
  /** Administrators: folder sizes, and the variable that fixes them when it is set. */
  folderSizes?: { mode: 'off' | 'full' | 'shallow'; setBy: string | null };
  /** Administrators: the terminal switch, and the variable that fixes it when it is set. */
  terminal?: { enabled: boolean; setBy: string | null };
}

export interface ActivityRow {
  id: string;
  time: string;
  action: string;
  outcome: 'success' | 'failure';
  userId: string | null;
  username: string | null;
  address: string | null;
  detail: unknown;
}
export interface ActivityPage {
  rows: ActivityRow[];
  nextBefore: string | null;
  enabled: boolean;
  actions: string[];
}

/** `GET /api/activity/address`: which address the log records and why. */
export interface AddressDiagnosis {
  recorded: string;
  peer: string;
  trustsPeer: boolean;
  trustProxy: string;
  forwardedChain: string[];
  headers: Record<string, string>;
}

export interface UserVolume {
  id: string;
  userId: string;
  label: string;
  path: string;
  accessMode: 'readonly' | 'readwrite';
  createdAt?: string;
  updatedAt?: string;
}

/** `GET /api/admin/browse-directories` (absolute host paths; administrators only). */
export interface ServerDirectories {
  current: string;
  parent: string | null;
  directories: { name: string; path: string }[];
}

export const isDir = (item: { kind: string }) => item.kind === 'directory';

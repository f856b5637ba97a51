// Wire shapes (spec + wire-shapes contract). Only what the UI reads.
export interface User {
  id: string;
  username: string;
  email?: string | null;
  displayName?: string | null;
  roles?: string[];
  authMethods?: { method: string; provider: string | null }[];
  locked?: boolean;
  lockedUntil?: string | null;
  createdAt?: string;
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

export type ReadOnlyReason = 'storage' | 'permission' | 'access' | null;

export interface Volume {
  name: string;
  path: string;
  kind: 'volume' | 'personal' | string;
  readOnly?: ReadOnlyReason;
  accessMode?: 'readonly' | 'readwrite';
}

export interface Usage { path: string; size?: number; used?: number; free?: number; total?: number; percentUsed?: number }

export interface FileItem {
  name: string;
  /** The parent folder. */
  path: string;
  dateModified: string;
  size: number;
  kind: string;
  supportsThumbnail?: boolean;
}

export interface Access {
  canRead: boolean; canWrite: boolean; canUpload: boolean; canDelete: boolean; canShare: boolean; canDownload: boolean;
  canCreateFolder?: boolean; canCreateFile?: boolean; readOnly?: ReadOnlyReason;
}

export interface Listing { items: FileItem[]; access: Access; path: string; current?: { isDirectory: boolean } }

export interface SearchItem { name: string; path: string; kind: 'file' | 'dir' | string; matchLine?: string; matchLineNumber?: number }

export interface FolderSize { path: string; sizeBytes: number | null; indexed: boolean; entryCount?: number; canEnter?: boolean }

export interface Favorite { id: string; path: string; label?: string | null; icon: string; color?: string | null; position: number }

export interface ApiToken {
  id: string; name: string; scope: 'read' | 'write';
  createdAt?: string; lastUsedAt?: string | null; lastUsedIp?: string | null; lastUsedFrom?: string | null; expiresAt?: string | null;
  [key: string]: unknown;
}

export const isDir = (item: { kind: string }) => item.kind === 'directory' || item.kind === 'dir';

// The owner's side of sharing: making, listing, changing and deleting shares — links to one
// item, bound to the owner's path (bindings follow rename/move and go with delete). A link is
// resolved as a space of the one resolver (`share/<token>/…`): its root is the shared item's
// real path, its access the owner's narrowed by the link's allow flags, and a link holder's
// caller can reach that link and nothing else (paths.ts). The holder's side (info, password,
// holding a link for a request) is holder.ts.
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { AppError } from '../core/errors.ts';
import type { Caller } from '../core/caller.ts';
import type { ActivityEvent } from '../activity/service.ts';
import { fileEvent } from '../files/activity.ts';
import { hashPassword } from '../accounts/passwords.ts';
import type { PathResolver } from '../files/paths.ts';
import type { CreateShareInput, CreatedShare, UpdateShareInput, WireShare } from './wire.ts';
import type { ShareChanges, ShareRow, ShareStore } from './store.ts';
import { expired } from './links.ts';

export interface SharesDeps {
  store: ShareStore;
  resolver: PathResolver;
  activity: { record(event: ActivityEvent): void };
}

const flag = (b: boolean) => (b ? 1 : 0);

export function createShares(deps: SharesDeps) {
  const { store, resolver } = deps;

  function toWire(row: ShareRow, base: string, view: 'owner' | 'recipient'): WireShare {
    const w: WireShare = {
      id: row.id,
      shareToken: row.token,
      ownerId: row.user_id,
      isDirectory: row.is_directory === 1,
      accessMode:
        row.allow_edit ||
        row.allow_upload ||
        row.allow_create_file ||
        row.allow_create_folder ||
        row.allow_rename ||
        row.allow_delete
          ? 'readwrite'
          : 'readonly',
      sharingType: row.sharing_type,
      hasPassword: row.password_hash !== null,
      expiresAt: row.expires_at,
      label: row.label,
      downloadCount: row.download_count,
      maxDownloads: row.max_downloads,
      accessCount: row.access_count,
      lastAccessedAt: row.last_accessed_at,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      allowDownload: row.allow_download === 1,
      allowUpload: row.allow_upload === 1,
      allowCreateFile: row.allow_create_file === 1,
      allowCreateFolder: row.allow_create_folder === 1,
      allowRename: row.allow_rename === 1,
      allowDelete: row.allow_delete === 1,
      allowEdit: row.allow_edit === 1,
      allowLocation: row.allow_location === 1,
      allowTranscode: row.allow_transcode === 1,
      fileRequest: row.file_request
        ? {
            maxFiles: row.max_files,
            maxBytes: row.max_bytes,
            receivedFiles: row.received_files,
            receivedBytes: row.received_bytes,
          }
        : null,
      shareUrl: `${base}/s/${row.token}`,
    };
    if (view === 'owner') {
      w.sourcePath = row.path;
      if (row.sharing_type === 'users') w.permittedUserIds = store.userIds(row.id);
    } else {
      w.sourceName = path.posix.basename(row.path);
      w.ownerName = store.account(row.user_id)?.username ?? '';
    }
    return w;
  }

  function checkedUsers(owner: Caller, ids: readonly string[] | undefined): string[] {
    const unique = [...new Set(ids ?? [])].filter((id) => id !== owner.userId);
    if (unique.length === 0 || unique.some((id) => !store.account(id))) throw new AppError('SHARE_BAD_USERS');
    return unique;
  }

  function checkedExpiry(value: string | null | undefined): string | null {
    if (value == null) return null;
    const at = new Date(value);
    if (at.getTime() <= Date.now()) throw new AppError('SHARE_BAD_EXPIRY');
    return at.toISOString();
  }

  /** Allow flags from accessMode (the app sends only that) and the explicit flags (which win). */
  function flagsOf(input: CreateShareInput | UpdateShareInput, base: ShareRow | null): ShareChanges {
    const writable = input.accessMode !== undefined ? input.accessMode === 'readwrite' : null;
    const pick = (explicit: boolean | undefined, current: number | undefined, fallback: boolean) =>
      flag(explicit ?? writable ?? (current !== undefined ? current === 1 : fallback));
    return {
      allow_download: flag(input.allowDownload ?? (base ? base.allow_download === 1 : true)),
      allow_upload: pick(input.allowUpload, base?.allow_upload, false),
      allow_create_file: pick(input.allowCreateFile, base?.allow_create_file, false),
      allow_create_folder: pick(input.allowCreateFolder, base?.allow_create_folder, false),
      allow_rename: pick(input.allowRename, base?.allow_rename, false),
      allow_delete: pick(input.allowDelete, base?.allow_delete, false),
      allow_edit: pick(input.allowEdit, base?.allow_edit, false),
      // Not a write: accessMode leaves it as it is.
      allow_location: flag(input.allowLocation ?? (base ? base.allow_location === 1 : false)),
      allow_transcode: flag(input.allowTranscode ?? (base ? base.allow_transcode === 1 : false)),
    };
  }

  function ownRow(caller: Caller, id: string): ShareRow {
    const row = store.byId(id);
    // Another account's share, or a token sent in place of an id: nothing to see.
    if (!row || row.user_id !== caller.userId) throw new AppError('SHARE_NOT_FOUND');
    return row;
  }

  return {
    async create(caller: Caller, input: CreateShareInput, base: string): Promise<CreatedShare> {
      const item = await resolver.resolve(caller, input.sourcePath, { mustExist: true });
      if (!item.space || item.space.kind === 'share')
        throw new AppError('BAD_PATH', 'Share an item of a volume or of your own folder (not the top, not a link).');
      if (!item.access.canShare) throw new AppError('FORBIDDEN', 'You may not share this item.');
      const users = input.sharingType === 'users' ? checkedUsers(caller, input.userIds) : [];
      const now = new Date().toISOString();
      const request = input.fileRequest != null;
      if (request && !item.isDirectory) throw new AppError('NOT_A_FOLDER', 'A file request needs a folder.');
      const flags = request
        ? {
            allow_download: 0,
            allow_upload: 1,
            allow_create_file: 0,
            allow_create_folder: 0,
            allow_rename: 0,
            allow_delete: 0,
            allow_edit: 0,
            allow_location: 0,
            allow_transcode: 0,
          }
        : flagsOf(input, null);
      const row = {
        id: randomUUID(),
        // 144 bits from the crypto RNG: the link is the secret.
        token: randomBytes(18).toString('base64url'),
        user_id: caller.userId,
        path: item.virtualPath,
        is_directory: flag(item.isDirectory),
        sharing_type: input.sharingType,
        password_hash: input.password ? await hashPassword(input.password) : null,
        expires_at: checkedExpiry(input.expiresAt),
        label: input.label ?? null,
        ...flags,
        // Files only take what a file can: no uploads or creations inside a file.
        ...(item.isDirectory
          ? {}
          : { allow_upload: 0, allow_create_file: 0, allow_create_folder: 0, allow_rename: 0, allow_delete: 0 }),
        file_request: flag(request),
        max_files: input.fileRequest?.maxFiles ?? null,
        max_bytes: input.fileRequest?.maxBytes ?? null,
        max_downloads: request ? null : (input.maxDownloads ?? null),
        created_at: now,
        updated_at: now,
      } as Parameters<ShareStore['insert']>[0];
      store.insert(row, users);
      deps.activity.record(
        fileEvent(caller, 'share.create', {
          id: row.id,
          path: row.path,
          sharingType: row.sharing_type,
          fileRequest: request,
          writable: [
            row.allow_upload,
            row.allow_create_file,
            row.allow_create_folder,
            row.allow_rename,
            row.allow_delete,
            row.allow_edit,
          ].some((f) => f === 1),
          password: row.password_hash !== null,
          expiresAt: row.expires_at,
          ...(row.label ? { label: row.label } : {}),
          ...(users.length ? { recipients: users } : {}),
        }),
      );
      const wire = toWire(store.byId(row.id)!, base, 'owner');
      return { ...wire, directFileUrl: `${base}/api/share/${row.token}/file` };
    },

    listMine: (caller: Caller, base: string) => ({
      shares: store.ofOwner(caller.userId).map((r) => toWire(r, base, 'owner')),
    }),

    sharedWithMe: (caller: Caller, base: string) => ({
      shares: store
        .sharedWith(caller.userId)
        .filter((r) => !expired(r))
        .map((r) => toWire(r, base, 'recipient')),
    }),

    async update(caller: Caller, id: string, input: UpdateShareInput, base: string): Promise<WireShare> {
      const row = ownRow(caller, id);
      const changes: ShareChanges = row.file_request ? {} : flagsOf(input, row);
      if (row.is_directory === 0)
        Object.assign(changes, {
          allow_upload: 0,
          allow_create_file: 0,
          allow_create_folder: 0,
          allow_rename: 0,
          allow_delete: 0,
        });
      if (input.label !== undefined) changes.label = input.label;
      if (input.expiresAt !== undefined) changes.expires_at = checkedExpiry(input.expiresAt);
      if (input.sharingType !== undefined) changes.sharing_type = input.sharingType;
      if (input.maxDownloads !== undefined && !row.file_request) changes.max_downloads = input.maxDownloads;
      if (input.fileRequest !== undefined && row.file_request) {
        changes.max_files = input.fileRequest?.maxFiles ?? null;
        changes.max_bytes = input.fileRequest?.maxBytes ?? null;
      }
      const type = changes.sharing_type ?? row.sharing_type;
      const users =
        type === 'users' && (input.userIds !== undefined || row.sharing_type !== 'users')
          ? checkedUsers(caller, input.userIds)
          : type === 'anyone'
            ? []
            : undefined;
      let endSessions = false;
      if (input.password !== undefined) {
        changes.password_hash = input.password === null ? null : await hashPassword(input.password);
        endSessions = true;
      }
      store.update(row.id, changes, users, endSessions);
      deps.activity.record(
        fileEvent(caller, 'share.update', {
          id: row.id,
          path: row.path,
          // Which settings were sent (never their values: a password among them).
          changed: Object.keys(input).filter((k) => input[k as keyof UpdateShareInput] !== undefined),
        }),
      );
      return toWire(store.byId(row.id)!, base, 'owner');
    },

    remove(caller: Caller, id: string): void {
      const row = ownRow(caller, id);
      store.remove(row.id);
      deps.activity.record(fileEvent(caller, 'share.delete', { id: row.id, path: row.path }));
    },
  };
}
export type SharesService = ReturnType<typeof createShares>;

// The HTTP contract as one type: every row of the route table with its literal method and path,
// what a client sends (path parameters, query, body) and what it reads back (the 2xx schemas'
// output). Beside app.ts, above every folder (it names every route group, so in http/ it made
// http import every folder that imports http). Types only — nothing here runs, and the UI imports it with `import type`, so no
// server code reaches the browser bundle. The rows' types come from route() (see the top of
// http/route.ts); this file lists the route groups the composition root (src/app.ts) mounts.
//
// A new route group: add its function here (and mount it in app.ts). test/types/contract.ts
// checks that the UI's client refuses a path this table does not have.
import type {
  ClientAnswer,
  ClientBody,
  ClientParams,
  ClientQuery,
  IsRawRow,
  PathParamNames,
  StreamBody,
} from './http/route.ts';
import type { accessRoutes } from './access/routes.ts';
import type { activityRoutes } from './activity/routes.ts';
import type { archiveRoutes } from './archives/routes.ts';
import type { authRoutes } from './auth/routes.ts';
import type { browseRoutes } from './browse/routes.ts';
import type { downloadRoutes } from './downloads/routes.ts';
import type { editorRoutes } from './editor/routes.ts';
import type { favoriteRoutes } from './favorites/routes.ts';
import type { fetchRoutes } from './fetch/routes.ts';
import type { fileRoutes } from './files/routes.ts';
import type { folderPrefRoutes } from './folderprefs/routes.ts';
import type { folderSizeRoutes } from './foldersize/routes.ts';
import type { indexRoutes } from './indexer/routes.ts';
import type { notifyRoutes } from './notify/routes.ts';
import type { oidcRoutes } from './oidc/routes.ts';
import type { passkeyRoutes } from './passkeys/routes.ts';
import type { permissionRoutes } from './permissions/capability.ts';
import type { onlyofficeRoutes, wopiRoutes } from './plugins/officeeditor/routes.ts';
import type { previewRoutes } from './previews/routes.ts';
import type { quotaRoutes } from './quotas/routes.ts';
import type { searchRoutes } from './search/routes.ts';
import type { settingsRoutes } from './settings/routes.ts';
import type { shareRoutes } from './shares/routes.ts';
import type { systemRoutes } from './system/routes.ts';
import type { tagRoutes } from './tags/routes.ts';
import type { terminalRoutes } from './terminal/capability.ts';
import type { tlsRoutes } from './tls/routes.ts';
import type { tokenRoutes } from './tokens/routes.ts';
import type { trashRoutes } from './trash/routes.ts';
import type { twoFactorRoutes } from './twofactor/routes.ts';
import type { uploadRoutes } from './uploads/routes.ts';
import type { usersRoutes } from './users/routes.ts';
import type { versionRoutes } from './versions/routes.ts';
import type { hostVolumeRoutes } from './volumes/host-routes.ts';
import type { videoRoutes } from './video/routes.ts';
import type { davLockRoutes } from './webdav/routes.ts';
import type { volumeRoutes } from './volumes/routes.ts';

type RowsOf<F extends (...args: never[]) => readonly unknown[]> = ReturnType<F>[number];

/** Every row of the route table, as its typed row. */
export type ApiRoutes =
  | RowsOf<typeof systemRoutes>
  | RowsOf<typeof authRoutes>
  | RowsOf<typeof tokenRoutes>
  | RowsOf<typeof tlsRoutes>
  | RowsOf<typeof usersRoutes>
  | RowsOf<typeof activityRoutes>
  | RowsOf<typeof notifyRoutes>
  | RowsOf<typeof settingsRoutes>
  | RowsOf<typeof accessRoutes>
  | RowsOf<typeof twoFactorRoutes>
  | RowsOf<typeof passkeyRoutes>
  | RowsOf<typeof oidcRoutes>
  | RowsOf<typeof fileRoutes>
  | RowsOf<typeof hostVolumeRoutes>
  | RowsOf<typeof davLockRoutes>
  | RowsOf<typeof uploadRoutes>
  | RowsOf<typeof fetchRoutes>
  | RowsOf<typeof shareRoutes>
  | RowsOf<typeof archiveRoutes>
  | RowsOf<typeof folderSizeRoutes>
  | RowsOf<typeof searchRoutes>
  | RowsOf<typeof tagRoutes>
  | RowsOf<typeof indexRoutes>
  | RowsOf<typeof browseRoutes>
  | RowsOf<typeof downloadRoutes>
  | RowsOf<typeof editorRoutes>
  | RowsOf<typeof previewRoutes>
  | RowsOf<typeof videoRoutes>
  | RowsOf<typeof trashRoutes>
  | RowsOf<typeof versionRoutes>
  | RowsOf<typeof favoriteRoutes>
  | RowsOf<typeof folderPrefRoutes>
  | RowsOf<typeof volumeRoutes>
  | RowsOf<typeof quotaRoutes>
  | RowsOf<typeof terminalRoutes>
  | RowsOf<typeof permissionRoutes>
  | RowsOf<typeof wopiRoutes>
  | RowsOf<typeof onlyofficeRoutes>;

/** The table by `'METHOD /path'` (the path as the row writes it: `/api/shares/:id`, `/api/browse/*`). */
export type ApiTable = { [Row in ApiRoutes as `${Row['method']} ${Row['path']}`]: Row };
export type ApiKey = keyof ApiTable & string;
/** The rows whose 2xx answers are JSON (or nothing, 204): a client reads their answer typed. */
export type ApiJsonKey = { [K in ApiKey]: IsRawRow<ApiTable[K]> extends true ? never : K }[ApiKey];

type PathOf<K extends string> = K extends `${string} ${infer Path}` ? Path : never;
type HasKeys<T> = [keyof T] extends [never] ? false : true;
type AllOptional<T> = {} extends T ? true : false;

/**
 * What a call to the row names K sends, each part present only when the row takes it and
 * required when the row needs it: `params` (`:name` segments, and `path` for a trailing `*`),
 * `query`, `body`.
 */
export type ApiInput<K extends ApiKey> = (HasKeys<ClientParams<ApiTable[K]>> extends true
  ? { params: ClientParams<ApiTable[K]> }
  : { params?: never }) &
  ([ClientQuery<ApiTable[K]>] extends [never]
    ? { query?: never }
    : AllOptional<ClientQuery<ApiTable[K]>> extends true
      ? { query?: ClientQuery<ApiTable[K]> }
      : { query: ClientQuery<ApiTable[K]> }) &
  ([ClientBody<ApiTable[K]>] extends [never]
    ? { body?: never }
    : AllOptional<ClientBody<ApiTable[K]>> extends true
      ? { body?: ClientBody<ApiTable[K]> }
      : // A row that reads the request itself may be sent nothing (a TUS creation; an address for an uploader).
        [ClientBody<ApiTable[K]>] extends [StreamBody]
        ? { body?: ClientBody<ApiTable[K]> }
        : { body: ClientBody<ApiTable[K]> });

/** Whether a call to K can leave its input out (no parameter, nothing required). */
export type ApiInputOptional<K extends ApiKey> = AllOptional<ApiInput<K>>;

/** The body a call to K sends (never when the row takes none). */
export type ApiBody<K extends ApiKey> = ClientBody<ApiTable[K]>;

/** What a call to K reads from its 2xx answer. */
export type ApiAnswer<K extends ApiKey> = ClientAnswer<ApiTable[K]>;

/** The parameter names of K's path. */
export type ApiParamNames<K extends ApiKey> = PathParamNames<PathOf<K>>;

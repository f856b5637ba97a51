// The office-editing plugin: imported by the composition root only when configured, so its
// routes are absent (404, and absent from the description) otherwise. Two integrations:
//  - WOPI (OFFICEEDITOR_*): /api/officeeditor/config, /api/officeeditor/wopi/files/{id}…, and
//    /api/collabora/config for the native client (features.collabora);
//  - ONLYOFFICE Docs (ONLYOFFICE_*): /api/onlyoffice/config, …/files/{id}/content and
//    …/callback/{id} (features.onlyoffice).
import type { ItemLocks } from '../../files/locks.ts';
import path from 'node:path';
import type { ChangeSink } from '../../changes.ts';
import { AppError, ERRORS } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import type { Caller } from '../../core/caller.ts';
import type { WorkJournal } from '../../files/journal.ts';
import type { PathResolver } from '../../files/paths.ts';
import type { VersionService } from '../../versions/service.ts';
import { createDiscoveryClient, fillUrlsrc, type DiscoveryClient } from './discovery.ts';
import type { LockStore } from './locks-store.ts';
import { createOnlyOffice, type OnlyOfficeOptions, type OnlyOfficeService } from './onlyoffice.ts';
import { secretKey } from './tokens.ts';
import type { ActivitySink } from '../../files/activity.ts';
import { disproof } from './proof.ts';
import { createWopiHost, type WopiHeaders, type WopiHost } from './wopi.ts';

export interface WopiOptions {
  /** OFFICEEDITOR_URL */
  url: string;
  /** OFFICEEDITOR_SECRET */
  secret: string;
  /** OFFICEEDITOR_DISCOVERY_URL (default `{url}/hosting/discovery`) */
  discoveryUrl?: string | undefined;
  /** OFFICEEDITOR_LANG */
  lang: string;
  /** OFFICEEDITOR_FILE_EXTENSIONS (empty = defaults, narrowed by discovery once fetched) */
  extensions: readonly string[];
}

export interface OfficeEditorDeps {
  resolver: PathResolver;
  versions: VersionService;
  changes: ChangeSink;
  /** The work journal (files capability): saves build their temporaries under it. */
  journal: WorkJournal;
  log: Logger;
  /** The account behind a token as a caller; null when it is gone or may not sign in. */
  callerFor(userId: string): Caller | null;
  /** PUBLIC_URL */
  publicUrl: string;
  wopi?: WopiOptions | null;
  onlyoffice?: OnlyOfficeOptions | null;
  /** Largest document accepted back from an editor. */
  maxFileSize?: number;
  /** WOPI access token lifetime: the editing server cannot renew it, so it spans an editing session. */
  tokenTtlMs?: number;
  fetch?: typeof fetch;
  /** Saves by the editing servers go to the activity log. */
  activity?: ActivitySink;
  /** The WOPI locks, built by the composition root (WebDAV and the HTTP API find them through itemLocks). */
  locks: LockStore;
  /** Every door's locks: an editor's save respects another account's WebDAV lock. */
  itemLocks: ItemLocks;
}

export type EditMode = 'edit' | 'view';

export interface OfficeEditorConfigAnswer {
  urlSrc: string;
  access_token: string;
  accessToken: string;
  accessTokenTtl: number;
  access_token_ttl: number;
  fileId: string;
  mode: EditMode;
}

export interface OfficeEditorPlugin {
  /** Null when OFFICEEDITOR_* is not configured. */
  readonly wopi:
    | (WopiHost & {
        /**
         * Refuses a call back (500, as WOPI asks) that is not signed with the proof key the
         * editing server's discovery publishes; calls pass unsigned only when it publishes none.
         * `requestUrl` is the path and query as received (the editor called PUBLIC_URL + that).
         */
        prove(requestUrl: string, accessToken: string | undefined, headers: WopiHeaders): Promise<void>;
        /** POST /api/officeeditor/config and /api/collabora/config. The web UI posts access_token to urlSrc; the native client loads urlSrc (it carries the token). */
        config(
          caller: Caller,
          input: { path: string; mode?: EditMode },
          options?: { tokenInUrl?: boolean },
        ): Promise<OfficeEditorConfigAnswer>;
      })
    | null;
  /** Null when ONLYOFFICE_* is not configured. */
  readonly onlyoffice: OnlyOfficeService | null;
  /** Sections of GET /api/features: `onlyoffice`, `collabora` (and `officeeditor`, the spec's word). */
  features(): Record<string, unknown>;
}

export const WOPI_DEFAULT_EXTENSIONS = [
  'docx',
  'doc',
  'odt',
  'rtf',
  'xlsx',
  'xls',
  'ods',
  'csv',
  'pptx',
  'ppt',
  'odp',
  'odg',
  'pdf',
];
const DEFAULT_MAX_FILE = 1024 ** 3;
/** Ten hours, the WOPI recommendation; every call re-checks the account and its rights anyway. */
const DEFAULT_TOKEN_TTL_MS = 10 * 60 * 60 * 1000;

export function createOfficeEditorPlugin(deps: OfficeEditorDeps): OfficeEditorPlugin {
  const publicUrl = deps.publicUrl.replace(/\/+$/, '');
  const maxFileSize = deps.maxFileSize ?? DEFAULT_MAX_FILE;
  let wopi: OfficeEditorPlugin['wopi'] = null;
  let discovery: DiscoveryClient | null = null;

  if (deps.wopi) {
    const o = deps.wopi;
    discovery = createDiscoveryClient(o.discoveryUrl || `${o.url.replace(/\/+$/, '')}/hosting/discovery`, deps.fetch);
    const host = createWopiHost({
      resolver: deps.resolver,
      versions: deps.versions,
      journal: deps.journal,
      changes: deps.changes,
      locks: deps.locks,
      itemLocks: deps.itemLocks,
      callerFor: deps.callerFor,
      secret: o.secret,
      key: secretKey(o.secret),
      publicUrl,
      tokenTtlMs: deps.tokenTtlMs ?? DEFAULT_TOKEN_TTL_MS,
      maxFileSize,
      ...(deps.activity ? { activity: deps.activity } : {}),
    });
    const d = discovery;
    wopi = Object.assign(host, {
      async prove(requestUrl: string, accessToken: string | undefined, headers: WopiHeaders): Promise<void> {
        let keys = (await d.get()).proofKeys;
        if (!keys) return;
        const one = (name: string) => {
          const v = headers[name];
          return Array.isArray(v) ? v[0] : v;
        };
        const call = {
          accessToken: accessToken ?? '',
          url: `${publicUrl}${requestUrl}`,
          timestamp: one('x-wopi-timestamp'),
          proof: one('x-wopi-proof'),
          proofOld: one('x-wopi-proofold'),
        };
        let why = disproof(keys, call, Date.now());
        if (why) {
          // The editing server may have rotated its keys since the discovery was read.
          keys = (await d.refresh()).proofKeys;
          why = keys ? disproof(keys, call, Date.now()) : null;
        }
        if (why) {
          deps.log.warn('office: a WOPI call was refused, its proof does not hold', { why });
          throw new AppError('WOPI_PROOF_INVALID', `${ERRORS.WOPI_PROOF_INVALID.message} (${why}).`);
        }
      },
      async config(
        caller: Caller,
        input: { path: string; mode?: EditMode },
        options: { tokenInUrl?: boolean } = {},
      ): Promise<OfficeEditorConfigAnswer> {
        const file = await deps.resolver.resolve(caller, input.path, { mustExist: true });
        if (!file.space || file.isDirectory) throw new AppError('IS_A_FOLDER', 'Name a file, not a folder.');
        if (!file.access.canRead) throw new AppError('FORBIDDEN', 'You may not read this file.');
        const ext = path.extname(file.realPath).slice(1).toLowerCase();
        if (o.extensions.length && !o.extensions.includes(ext))
          throw new AppError(
            'OFFICE_UNSUPPORTED_TYPE',
            `Files of type .${ext || '(none)'} are not opened in the office editor here (OFFICEEDITOR_FILE_EXTENSIONS).`,
          );
        const actions = (await d.get()).byExtension.get(ext);
        if (!actions || (!actions.edit && !actions.view))
          throw new AppError(
            'OFFICE_UNSUPPORTED_TYPE',
            `The office editing server offers no editor for .${ext || '(none)'} files.`,
          );
        const mode: EditMode = input.mode !== 'view' && file.access.canWrite && actions.edit ? 'edit' : 'view';
        const urlsrc = mode === 'edit' ? actions.edit! : (actions.view ?? actions.edit!);
        const issued = await host.issue(caller, file, mode === 'edit');
        let urlSrc = `${fillUrlsrc(urlsrc, o.lang)}WOPISrc=${encodeURIComponent(host.wopiSrc(issued.fileId))}`;
        if (options.tokenInUrl)
          urlSrc += `&access_token=${encodeURIComponent(issued.token)}&access_token_ttl=${issued.expiresAt}`;
        return {
          urlSrc,
          access_token: issued.token,
          accessToken: issued.token,
          accessTokenTtl: issued.expiresAt,
          access_token_ttl: issued.expiresAt,
          fileId: issued.fileId,
          mode,
        };
      },
    });
  }

  const onlyoffice = deps.onlyoffice
    ? createOnlyOffice({
        resolver: deps.resolver,
        versions: deps.versions,
        journal: deps.journal,
        changes: deps.changes,
        log: deps.log,
        callerFor: deps.callerFor,
        itemLocks: deps.itemLocks,
        publicUrl,
        options: deps.onlyoffice,
        maxFileSize,
        ...(deps.fetch ? { fetch: deps.fetch } : {}),
        ...(deps.activity ? { activity: deps.activity } : {}),
      })
    : null;

  function wopiExtensions(): string[] {
    if (deps.wopi?.extensions.length) return [...deps.wopi.extensions];
    const found = discovery?.cached();
    if (!found) return WOPI_DEFAULT_EXTENSIONS;
    return WOPI_DEFAULT_EXTENSIONS.filter((e) => found.byExtension.has(e));
  }

  return {
    wopi,
    onlyoffice,
    features() {
      const collabora = wopi ? { enabled: true, extensions: wopiExtensions() } : { enabled: false, extensions: [] };
      return {
        collabora,
        officeeditor: collabora,
        onlyoffice: onlyoffice
          ? { enabled: true, extensions: [...onlyoffice.extensions] }
          : { enabled: false, extensions: [] },
      };
    },
  };
}

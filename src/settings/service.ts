// Installation settings (branding, thumbnails, access rules, activity log, folder sizes, the
// terminal) and per-account preferences. Sections are JSON documents in `settings`; defaults
// live here. The access rules are everyone's rules of the access model (access/), which
// `everyoneRules` reads and writes; the `access` section only stands in where it is not given. Folder sizes and the terminal are read through switches.ts (their variable wins).
import { randomUUID } from 'node:crypto';
import { AppError } from '../core/errors.ts';
import type { ConfigCache } from '../cluster/config-cache.ts';
import type { SettingsStore } from './store.ts';

import type {
  AccessRule,
  ActivitySettings,
  Branding,
  FolderSizeMode,
  RulePermission,
  Thumbnails,
  UserPrefs,
} from './wire.ts';

export type { AccessRule, ActivitySettings, Branding, RulePermission, Thumbnails, UserPrefs } from './wire.ts';

interface Sections {
  branding: Branding;
  thumbnails: Thumbnails;
  access: { rules: AccessRule[] };
  activity: ActivitySettings;
  folderSizes: { mode: FolderSizeMode };
  terminal: { enabled: boolean };
}

export const DEFAULTS: Readonly<Sections> = Object.freeze({
  branding: { appName: 'Burrow', appLogoUrl: '/logo.svg', showPoweredBy: true },
  thumbnails: { enabled: true, size: 256, quality: 80, concurrency: 4 },
  access: { rules: [] },
  activity: { enabled: false, retentionDays: 90 },
  folderSizes: { mode: 'off' as FolderSizeMode },
  terminal: { enabled: false },
});

const USER_DEFAULTS: UserPrefs = { showHiddenFiles: false, showThumbnails: true };
/** Bound on one account's preference document, so a client cannot grow it without limit. */
const MAX_PREFS_BYTES = 64 * 1024;

export type SectionName = keyof Sections;

/** A rule path: relative, slash-separated, no `.`/`..`, no leading or trailing slash. */
export function normaliseRulePath(input: string): string {
  const segments = input
    .replace(/\\/g, '/')
    .split('/')
    .filter((s) => s !== '');
  if (segments.some((s) => s === '..' || s === '.' || s.includes('\0')))
    throw new AppError(
      'INVALID_BODY',
      `Invalid body: access.rules: path "${input}" may not contain "." or ".." segments.`,
    );
  return segments.join('/');
}

export interface SettingsDeps {
  store: SettingsStore;
  /** Everyone's rules of the access model, in the settings' shape (wire-shapes §9). */
  everyoneRules?: { list(): AccessRule[]; replace(rules: AccessRule[]): void };
  /**
   * The installation's configuration cache (cluster/config-cache.ts): on the embedded database
   * this process is its only writer; on PostgreSQL a section changed through any instance is
   * read again by every other at its next request. Without one, every read asks the store.
   */
  cache?: ConfigCache;
}

/** Parses a stored preference document; a damaged one reads as empty. */
function parsePrefs(text: string | undefined): UserPrefs {
  if (text === undefined) return {};
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

export type SettingsService = ReturnType<typeof createSettings>;

export function createSettings({ store, everyoneRules, cache }: SettingsDeps) {
  // Sections are read on many requests: through the configuration cache, as parsed values
  // (callers get copies).
  function section<K extends SectionName>(key: K): Sections[K] {
    return cache ? cache.read(`settings:${key}`, () => load(key)) : load(key);
  }

  function load<K extends SectionName>(key: K): Sections[K] {
    const text = store.section(key);
    let value: Sections[K] = structuredClone(DEFAULTS[key]);
    if (text !== undefined) {
      try {
        const stored = JSON.parse(text);
        value = key === 'access' ? stored : { ...value, ...stored };
      } catch {
        /* a damaged row reads as the defaults */
      }
    }
    return value;
  }

  function write<K extends SectionName>(key: K, value: Sections[K]): void {
    store.writeSection(key, JSON.stringify(value));
    cache?.drop();
  }

  return {
    branding: (): Branding => ({ ...section('branding') }),
    thumbnails: (): Thumbnails => ({ ...section('thumbnails') }),
    accessRules: (): AccessRule[] => everyoneRules?.list() ?? section('access').rules.map((r) => ({ ...r })),
    activity: (): ActivitySettings => ({ ...section('activity') }),

    /** As stored (switches.ts applies FOLDER_SIZE_MODE over it). */
    storedFolderSizeMode(): FolderSizeMode {
      const mode = section('folderSizes').mode;
      return mode === 'full' || mode === 'shallow' ? mode : 'off';
    },
    /** As stored (switches.ts applies TERMINAL_ENABLED over it). */
    storedTerminalEnabled: (): boolean => section('terminal').enabled === true,
    storeFolderSizeMode: (mode: FolderSizeMode): void => write('folderSizes', { mode }),
    storeTerminalEnabled: (enabled: boolean): void => write('terminal', { enabled }),

    setBranding(patch: Partial<Branding>): Branding {
      const next = { ...section('branding'), ...patch };
      write('branding', next);
      return { ...next };
    },

    setThumbnails(patch: Partial<Thumbnails>): Thumbnails {
      const next = { ...section('thumbnails'), ...patch };
      write('thumbnails', next);
      return { ...next };
    },

    setActivity(patch: Partial<ActivitySettings>): ActivitySettings {
      const next = { ...section('activity'), ...patch };
      write('activity', next);
      return { ...next };
    },

    /** Replaces the whole rule list; rules without an id get one. */
    setAccessRules(
      rules: {
        id?: string | undefined;
        path: string;
        recursive?: boolean | undefined;
        permissions?: RulePermission | undefined;
      }[],
    ): AccessRule[] {
      const seen = new Set<string>();
      const next = rules.map((r) => {
        let id = r.id?.trim() || randomUUID();
        if (seen.has(id)) id = randomUUID();
        seen.add(id);
        return {
          id,
          path: normaliseRulePath(r.path),
          recursive: r.recursive ?? true,
          permissions: r.permissions ?? 'rw',
        };
      });
      if (everyoneRules) everyoneRules.replace(next);
      else write('access', { rules: next });
      return everyoneRules ? everyoneRules.list() : next.map((r) => ({ ...r }));
    },

    userPrefs: (userId: string): UserPrefs => ({ ...USER_DEFAULTS, ...parsePrefs(store.prefs(userId)) }),

    /** Merges keys into the account's preferences; a null value removes the key. */
    setUserPrefs: (userId: string, patch: UserPrefs): UserPrefs =>
      store.changePrefs(userId, (text) => {
        const stored = parsePrefs(text);
        for (const [k, v] of Object.entries(patch)) {
          if (v === null) delete stored[k];
          else stored[k] = v;
        }
        const next = JSON.stringify(stored);
        if (Buffer.byteLength(next) > MAX_PREFS_BYTES)
          throw new AppError(
            'INVALID_BODY',
            `Invalid body: user: preferences may not exceed ${MAX_PREFS_BYTES} bytes.`,
          );
        return { text: next, result: { ...USER_DEFAULTS, ...stored } };
      }),

    forgetUser: (userId: string): void => store.forgetPrefs(userId),
  };
}

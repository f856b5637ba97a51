// Installation settings (branding, thumbnails, access rules, activity log, folder sizes, the
// terminal) and per-account preferences. Sections are JSON documents in `settings`; defaults
// live here. Folder sizes and the terminal are read through switches.ts (their variable wins).
import { randomUUID } from 'node:crypto';
import type { Database } from '../db/database.ts';
import { AppError } from '../core/errors.ts';

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

export class SettingsService {
  private readonly db: Database;
  // Sections are read on many requests (access rules on every file call): cache them.
  private readonly cache = new Map<SectionName, unknown>();

  constructor(db: Database) {
    this.db = db;
  }

  private section<K extends SectionName>(key: K): Sections[K] {
    if (this.cache.has(key)) return this.cache.get(key) as Sections[K];
    const row = this.db.get<{ value: string }>('SELECT value FROM settings WHERE key = ?', [key]);
    let value: Sections[K] = structuredClone(DEFAULTS[key]);
    if (row) {
      try {
        const stored = JSON.parse(row.value);
        value = key === 'access' ? stored : { ...value, ...stored };
      } catch {
        /* a damaged row reads as the defaults */
      }
    }
    this.cache.set(key, value);
    return value;
  }

  private write<K extends SectionName>(key: K, value: Sections[K]): void {
    this.db.run(
      'INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
      [key, JSON.stringify(value), new Date().toISOString()],
    );
    this.cache.set(key, value);
  }

  branding(): Branding {
    return { ...this.section('branding') };
  }
  thumbnails(): Thumbnails {
    return { ...this.section('thumbnails') };
  }
  accessRules(): AccessRule[] {
    return this.section('access').rules.map((r) => ({ ...r }));
  }
  activity(): ActivitySettings {
    return { ...this.section('activity') };
  }

  /** As stored (switches.ts applies FOLDER_SIZE_MODE over it). */
  storedFolderSizeMode(): FolderSizeMode {
    const mode = this.section('folderSizes').mode;
    return mode === 'full' || mode === 'shallow' ? mode : 'off';
  }
  /** As stored (switches.ts applies TERMINAL_ENABLED over it). */
  storedTerminalEnabled(): boolean {
    return this.section('terminal').enabled === true;
  }
  storeFolderSizeMode(mode: FolderSizeMode): void {
    this.write('folderSizes', { mode });
  }
  storeTerminalEnabled(enabled: boolean): void {
    this.write('terminal', { enabled });
  }

  setBranding(patch: Partial<Branding>): Branding {
    const next = { ...this.section('branding'), ...patch };
    this.write('branding', next);
    return { ...next };
  }

  setThumbnails(patch: Partial<Thumbnails>): Thumbnails {
    const next = { ...this.section('thumbnails'), ...patch };
    this.write('thumbnails', next);
    return { ...next };
  }

  setActivity(patch: Partial<ActivitySettings>): ActivitySettings {
    const next = { ...this.section('activity'), ...patch };
    this.write('activity', next);
    return { ...next };
  }

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
    this.write('access', { rules: next });
    return next.map((r) => ({ ...r }));
  }

  userPrefs(userId: string): UserPrefs {
    const row = this.db.get<{ prefs: string }>('SELECT prefs FROM user_prefs WHERE user_id = ?', [userId]);
    let stored: UserPrefs = {};
    if (row) {
      try {
        stored = JSON.parse(row.prefs);
      } catch {
        stored = {};
      }
    }
    return { ...USER_DEFAULTS, ...stored };
  }

  /** Merges keys into the account's preferences; a null value removes the key. */
  setUserPrefs(userId: string, patch: UserPrefs): UserPrefs {
    return this.db.transaction(() => {
      const row = this.db.get<{ prefs: string }>('SELECT prefs FROM user_prefs WHERE user_id = ?', [userId]);
      let stored: UserPrefs = {};
      if (row) {
        try {
          stored = JSON.parse(row.prefs);
        } catch {
          stored = {};
        }
      }
      for (const [k, v] of Object.entries(patch)) {
        if (v === null) delete stored[k];
        else stored[k] = v;
      }
      const text = JSON.stringify(stored);
      if (Buffer.byteLength(text) > MAX_PREFS_BYTES)
        throw new AppError('INVALID_BODY', `Invalid body: user: preferences may not exceed ${MAX_PREFS_BYTES} bytes.`);
      this.db.run(
        'INSERT INTO user_prefs (user_id, prefs, updated_at) VALUES (?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET prefs = excluded.prefs, updated_at = excluded.updated_at',
        [userId, text, new Date().toISOString()],
      );
      return { ...USER_DEFAULTS, ...stored };
    });
  }

  forgetUser(userId: string): void {
    this.db.run('DELETE FROM user_prefs WHERE user_id = ?', [userId]);
  }
}

// Who is signed in, what the instance offers, and the caller's preferences.
import { computed, signal } from '@preact/signals';
import { api, sessionExpired } from '../api/client.ts';
import { toasts } from './toasts.ts';
import { refreshTags, tagVocabulary } from '../tags/tags.tsx';
import type { AuthStatus, Favorite, Features, User, Volume } from '../api/types.ts';

export const status = signal<AuthStatus | null>(null);
export const bootError = signal<unknown>(null);
export const features = signal<Features>({});
export const user = signal<User | null>(null);
export const isAdmin = computed(() => Boolean(user.value?.roles?.includes('admin')));
export const volumes = signal<Volume[]>([]);
export const favorites = signal<Favorite[]>([]);

export type Theme = 'system' | 'light' | 'dark';
export interface Preferences {
  showHiddenFiles: boolean;
  showThumbnails: boolean;
  theme: Theme;
  [key: string]: unknown;
}
export const preferences = signal<Preferences>({ showHiddenFiles: false, showThumbnails: true, theme: 'system' });
/** The account's preferences arrived from the server (until then the form would show defaults). */
export const preferencesLoaded = signal(false);

export const chunkedUploads = computed(() => features.value.uploads?.chunked === true);

export async function loadStatus(): Promise<void> {
  bootError.value = null;
  try {
    const [s, f] = await Promise.all([
      api('GET /api/auth/status'),
      api('GET /api/features').catch((): Features => ({})),
    ]);
    features.value = f;
    status.value = s;
    user.value = s.user ?? null;
  } catch (err) {
    bootError.value = err;
  }
}

/** The instance's features again (an administrator switched one in Installation). */
export async function reloadFeatures(): Promise<void> {
  features.value = await api('GET /api/features');
}

export async function loadWorkspace(): Promise<void> {
  const [v, fav, settings] = await Promise.all([
    api('GET /api/volumes').catch(() => [] as Volume[]),
    api('GET /api/favorites').catch(() => [] as Favorite[]),
    api('GET /api/settings').catch(() => null),
  ]);
  volumes.value = Array.isArray(v) ? v : [];
  favorites.value = Array.isArray(fav) ? [...fav].sort((a, b) => a.position - b.position) : [];
  preferences.value = { ...preferences.value, ...(settings?.user ?? {}) };
  preferencesLoaded.value = true;
  applyTheme();
  void refreshTags();
}

/** The places the account can browse, read again (an administrator added or removed a host folder). */
export async function refreshVolumes(): Promise<void> {
  try {
    const v = await api('GET /api/volumes');
    if (Array.isArray(v)) volumes.value = v;
  } catch {
    /* the sidebar keeps what it had */
  }
}

export async function savePreference(key: string, value: unknown): Promise<void> {
  const before = preferences.value;
  preferences.value = { ...before, [key]: value };
  applyTheme();
  try {
    await api('PATCH /api/settings', { body: { user: { [key]: value } } });
  } catch (err) {
    preferences.value = before;
    applyTheme();
    throw err;
  }
}

export function applyTheme(): void {
  const t = preferences.value.theme;
  if (t === 'light' || t === 'dark') document.documentElement.dataset.theme = t;
  else delete document.documentElement.dataset.theme;
  try {
    localStorage.setItem('burrow.theme', t ?? 'system');
  } catch {
    /* private mode */
  }
}

export function signedIn(u: User): void {
  sessionExpired.value = false;
  user.value = u;
  status.value = status.value ? { ...status.value, authenticated: true, requiresSetup: false, user: u } : status.value;
}

export async function signOut(): Promise<void> {
  try {
    await api('POST /api/auth/logout');
  } catch {
    /* the local state goes anyway */
  }
  user.value = null;
  // Messages of the session that ended do not belong on the sign-in card.
  toasts.value = [];
  volumes.value = [];
  favorites.value = [];
  tagVocabulary.value = [];
  await loadStatus();
  sessionExpired.value = false;
}

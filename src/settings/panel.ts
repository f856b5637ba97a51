// GET/PATCH /api/settings: what a caller sees of the settings, and a change applied section by
// section (installation sections by administrators in a session only), with its activity row.
import type { ActivityService } from '../activity/service.ts';
import type { Caller } from '../core/caller.ts';
import { AppError } from '../core/errors.ts';
import { LOGO_PATH, type LogoStore } from './logo.ts';
import type { SettingsService } from './service.ts';
import type { SettingsPatch, SettingsView } from './wire.ts';

const SYSTEM_KEYS = ['branding', 'thumbnails', 'access', 'activity'] as const;

export class SettingsPanel {
  private readonly settings: SettingsService;
  private readonly activity: ActivityService;
  private readonly logos: LogoStore;

  constructor(deps: { settings: SettingsService; activity: ActivityService; logos: LogoStore }) {
    this.settings = deps.settings;
    this.activity = deps.activity;
    this.logos = deps.logos;
  }

  view(caller: Caller): SettingsView {
    const { settings } = this;
    return {
      branding: settings.branding(),
      user: settings.userPrefs(caller.userId),
      thumbnails: settings.thumbnails(),
      ...(caller.isAdmin ? { access: { rules: settings.accessRules() }, activity: settings.activity() } : {}),
    };
  }

  apply(caller: Caller, body: SettingsPatch, ip: string): SettingsView {
    const { settings } = this;
    const system = SYSTEM_KEYS.filter((k) => body[k] !== undefined);
    if (system.length) {
      if (!caller.isAdmin)
        throw new AppError('ADMIN_ONLY', `Only administrators may change ${system.join(', ')} settings.`);
      if (caller.via === 'token')
        throw new AppError('AUTH_TOKEN_NOT_ALLOWED', 'API tokens may not change installation settings.');
    }
    if (body.user) settings.setUserPrefs(caller.userId, body.user);
    if (body.branding) settings.setBranding(stripUndefined(body.branding));
    if (body.thumbnails) settings.setThumbnails(stripUndefined(body.thumbnails));
    if (body.access) settings.setAccessRules(body.access.rules);
    if (body.activity) settings.setActivity(stripUndefined(body.activity));
    if (body.branding?.appLogoUrl !== undefined) {
      const current = settings.branding().appLogoUrl;
      this.logos.prune(current.startsWith(LOGO_PATH) ? [current.slice(LOGO_PATH.length)] : []);
    }
    if (system.length)
      this.activity.record({
        action: 'admin.settings-change',
        outcome: 'success',
        userId: caller.userId,
        ip,
        detail: { sections: system, ...(body.activity ? { activity: settings.activity() } : {}) },
      });
    return this.view(caller);
  }
}

function stripUndefined<T extends object>(value: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}

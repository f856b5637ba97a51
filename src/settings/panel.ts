// GET/PATCH /api/settings: what a caller sees of the settings, and a change applied section by
// section (installation sections by administrators in a session only), with its activity row.
// Folder sizes and the terminal are switches (switches.ts): applied at once, fixed while their
// variable is set; the terminal is switched on only with the administrator's password.
import type { ActivityService } from '../activity/service.ts';
import type { Caller } from '../core/caller.ts';
import { AppError } from '../core/errors.ts';
import { LOGO_PATH, type LogoStore } from './logo.ts';
import type { SettingsService } from './service.ts';
import type { InstallationSwitches } from './switches.ts';
import type { SettingsPatch, SettingsView } from './wire.ts';

const SYSTEM_KEYS = ['branding', 'thumbnails', 'access', 'activity', 'folderSizes', 'terminal'] as const;

export interface SettingsPanelDeps {
  settings: SettingsService;
  activity: ActivityService;
  logos: LogoStore;
  switches: InstallationSwitches;
  /** AUTH_MODE=disabled: everyone is an administrator, so the terminal is never switched on from the web. */
  authDisabled: boolean;
  /** Throws 401 unless `password` is the account's (an account without a password passes). */
  confirmPassword: (userId: string, password: string | undefined, ip: string, sessionId?: string) => Promise<void>;
}

export class SettingsPanel {
  private readonly settings: SettingsService;
  private readonly activity: ActivityService;
  private readonly logos: LogoStore;
  private readonly deps: SettingsPanelDeps;

  constructor(deps: SettingsPanelDeps) {
    this.settings = deps.settings;
    this.activity = deps.activity;
    this.logos = deps.logos;
    this.deps = deps;
  }

  view(caller: Caller): SettingsView {
    const { settings } = this;
    const { folderSizes, terminal } = this.deps.switches;
    return {
      branding: settings.branding(),
      user: settings.userPrefs(caller.userId),
      thumbnails: settings.thumbnails(),
      ...(caller.isAdmin
        ? {
            access: { rules: settings.accessRules() },
            activity: settings.activity(),
            folderSizes: { mode: folderSizes.now(), setBy: folderSizes.setBy },
            terminal: { enabled: terminal.now(), setBy: terminal.setBy },
          }
        : {}),
    };
  }

  async apply(caller: Caller, body: SettingsPatch, ip: string): Promise<SettingsView> {
    const { settings } = this;
    const { switches } = this.deps;
    const system = SYSTEM_KEYS.filter((k) => body[k] !== undefined);
    if (system.length) {
      if (!caller.isAdmin)
        throw new AppError('ADMIN_ONLY', `Only administrators may change ${system.join(', ')} settings.`);
      if (caller.via === 'token')
        throw new AppError('AUTH_TOKEN_NOT_ALLOWED', 'API tokens may not change installation settings.');
    }
    // Every refusal before the first write: a refused change changes nothing.
    if (body.folderSizes) switches.folderSizes.check(body.folderSizes.mode);
    if (body.terminal) switches.terminal.check(body.terminal.enabled);
    const terminalOn = body.terminal?.enabled === true && !switches.terminal.now();
    if (terminalOn) {
      if (this.deps.authDisabled)
        throw new AppError(
          'FORBIDDEN',
          'With AUTH_MODE=disabled anyone who reaches Burrow is an administrator, so the terminal can only be switched on with TERMINAL_ENABLED=true.',
        );
      await this.deps.confirmPassword(caller.userId, body.terminal?.password, ip, caller.sessionId);
    }
    if (body.user) settings.setUserPrefs(caller.userId, body.user);
    if (body.branding) settings.setBranding(stripUndefined(body.branding));
    if (body.thumbnails) settings.setThumbnails(stripUndefined(body.thumbnails));
    if (body.access) settings.setAccessRules(body.access.rules);
    if (body.activity) settings.setActivity(stripUndefined(body.activity));
    if (body.folderSizes) switches.folderSizes.set(body.folderSizes.mode);
    if (body.terminal) switches.terminal.set(body.terminal.enabled);
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
        detail: {
          sections: system,
          ...(body.activity ? { activity: settings.activity() } : {}),
          ...(body.folderSizes ? { folderSizes: switches.folderSizes.now() } : {}),
          ...(body.terminal ? { terminal: switches.terminal.now() ? 'on' : 'off' } : {}),
        },
      });
    return this.view(caller);
  }
}

function stripUndefined<T extends object>(value: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}

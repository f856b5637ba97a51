// Wire shapes of the settings rows (wire-shapes §9).
import { z } from 'zod';

const prefKey = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9_.-]+$/, 'preference names are letters, digits, _ . -');
const userPrefsPatch = z.record(prefKey, z.unknown()).superRefine((prefs, ctx) => {
  for (const key of ['showHiddenFiles', 'showThumbnails']) {
    if (key in prefs && prefs[key] !== null && typeof prefs[key] !== 'boolean')
      ctx.addIssue({ code: 'custom', path: [key], message: 'must be true or false' });
  }
});

const brandingPatch = z
  .object({
    appName: z.string().trim().min(1).max(100).optional(),
    appLogoUrl: z
      .string()
      .trim()
      .max(2048)
      .refine(
        (v) => v.startsWith('/') || /^https?:\/\//i.test(v),
        'must be a server-relative path or an http(s) address',
      )
      .optional(),
    showPoweredBy: z.boolean().optional(),
  })
  .strict();

const thumbnailsPatch = z
  .object({
    enabled: z.boolean().optional(),
    size: z.number().int().min(64).max(1024).optional(),
    quality: z.number().int().min(1).max(100).optional(),
    concurrency: z.number().int().min(1).max(50).optional(),
  })
  .strict();

export const folderSizeMode = z.enum(['off', 'full', 'shallow']);
export type FolderSizeMode = z.infer<typeof folderSizeMode>;

const accessRuleInput = z.object({
  id: z.string().max(100).optional(),
  path: z.string().max(4096),
  recursive: z.boolean().optional(),
  permissions: z.enum(['rw', 'ro', 'hidden']).optional(),
});

export const patchBody = z
  .object({
    user: userPrefsPatch.optional(),
    branding: brandingPatch.optional(),
    thumbnails: thumbnailsPatch.optional(),
    access: z
      .object({ rules: z.array(accessRuleInput).max(1000) })
      .strict()
      .optional(),
    activity: z
      .object({ enabled: z.boolean().optional(), retentionDays: z.number().int().min(1).max(3650).optional() })
      .strict()
      .optional(),
    folderSizes: z
      .object({
        mode: folderSizeMode.describe(
          'off; full (recursive sizes: every volume is walked once in the background, then kept up to date); shallow (direct entries only)',
        ),
      })
      .strict()
      .describe('Applied at once, without a restart; refused (409 SET_BY_ENVIRONMENT) while FOLDER_SIZE_MODE is set')
      .optional(),
    terminal: z
      .object({
        enabled: z.boolean(),
        password: z
          .string()
          .max(1024)
          .optional()
          .describe("Switching on: the administrator's own password (an account without one has nothing to confirm)"),
      })
      .strict()
      .describe(
        'A shell in the browser for administrators, as the account Burrow runs under. Applied at once (off ends the open terminals); refused while TERMINAL_ENABLED is set, and with AUTH_MODE=disabled',
      )
      .optional(),
  })
  .strict();
export type SettingsPatch = z.infer<typeof patchBody>;

export const branding = z.object({ appName: z.string(), appLogoUrl: z.string(), showPoweredBy: z.boolean() });
export type Branding = z.infer<typeof branding>;
export const thumbnails = z.object({
  enabled: z.boolean(),
  size: z.number().int(),
  quality: z.number().int(),
  concurrency: z.number().int(),
});
export type Thumbnails = z.infer<typeof thumbnails>;
export const rulePermission = z.enum(['rw', 'ro', 'hidden']);
export type RulePermission = z.infer<typeof rulePermission>;
export const accessRule = z.object({
  id: z.string(),
  path: z.string(),
  recursive: z.boolean(),
  permissions: rulePermission,
});
export type AccessRule = z.infer<typeof accessRule>;
export const activitySettings = z.object({ enabled: z.boolean(), retentionDays: z.number().int() });
export type ActivitySettings = z.infer<typeof activitySettings>;
/** An account's preferences: showHiddenFiles and showThumbnails, and whatever keys the UI keeps. */
export const userPrefs = z.record(z.string(), z.unknown());
export type UserPrefs = z.infer<typeof userPrefs>;

const setBy = z
  .string()
  .nullable()
  .describe('The environment variable that fixes this setting (it wins over the stored one), or null');
export const folderSizesSetting = z.object({ mode: folderSizeMode, setBy });
export type FolderSizesSetting = z.infer<typeof folderSizesSetting>;
export const terminalSetting = z.object({ enabled: z.boolean(), setBy });
export type TerminalSetting = z.infer<typeof terminalSetting>;

/** What GET/PATCH /api/settings answer; `access`, `activity`, `folderSizes` and `terminal` for administrators only. */
export const settingsView = z.object({
  branding,
  user: userPrefs,
  thumbnails,
  access: z.object({ rules: z.array(accessRule) }).optional(),
  activity: activitySettings.optional(),
  folderSizes: folderSizesSetting.optional(),
  terminal: terminalSetting.optional(),
});
export type SettingsView = z.infer<typeof settingsView>;

export const logoUploaded = z.object({ logoUrl: z.string() });
/** A stored logo's name: an unknown or malformed one answers 404. */
export const logoParams = z.object({ file: z.string().min(1) });

// Rows of the route table for settings (wire-shapes §9): GET/PATCH /api/settings, the public
// branding, and the logo upload with its public address.
import fs from 'node:fs';
import { z } from 'zod';
import type { ActivityService } from '../activity/service.ts';
import { AppError } from '../core/errors.ts';
import { TOKEN_NOT_ALLOWED } from '../http/guard.ts';
import { route, type RouteDef } from '../http/route.ts';
import type { Caller } from '../core/caller.ts';
import { LOGO_TYPES, type LogoStore } from './logo.ts';
import type { SettingsService } from './service.ts';

const LOGO_PATH = '/api/branding/logo/';

const prefKey = z.string().min(1).max(100).regex(/^[A-Za-z0-9_.-]+$/, 'preference names are letters, digits, _ . -');
const userPrefs = z.record(prefKey, z.unknown()).superRefine((prefs, ctx) => {
  for (const key of ['showHiddenFiles', 'showThumbnails']) {
    if (key in prefs && prefs[key] !== null && typeof prefs[key] !== 'boolean') ctx.addIssue({ code: 'custom', path: [key], message: 'must be true or false' });
  }
});

const branding = z.object({
  appName: z.string().trim().min(1).max(100).optional(),
  appLogoUrl: z.string().trim().max(2048).refine((v) => v.startsWith('/') || /^https?:\/\//i.test(v), 'must be a server-relative path or an http(s) address').optional(),
  showPoweredBy: z.boolean().optional(),
}).strict();

const thumbnails = z.object({
  enabled: z.boolean().optional(),
  size: z.number().int().min(64).max(1024).optional(),
  quality: z.number().int().min(1).max(100).optional(),
  concurrency: z.number().int().min(1).max(50).optional(),
}).strict();

const accessRule = z.object({
  id: z.string().max(100).optional(),
  path: z.string().max(4096),
  recursive: z.boolean().optional(),
  permissions: z.enum(['rw', 'ro', 'hidden']).optional(),
});

const patchBody = z.object({
  user: userPrefs.optional(),
  branding: branding.optional(),
  thumbnails: thumbnails.optional(),
  access: z.object({ rules: z.array(accessRule).max(1000) }).strict().optional(),
  activity: z.object({ enabled: z.boolean().optional(), retentionDays: z.number().int().min(1).max(3650).optional() }).strict().optional(),
}).strict();

type Patch = z.infer<typeof patchBody>;
const SYSTEM_KEYS = ['branding', 'thumbnails', 'access', 'activity'] as const;

export interface SettingsRoutesDeps { settings: SettingsService; activity: ActivityService; logos: LogoStore }

export function settingsRoutes({ settings, activity, logos }: SettingsRoutesDeps): RouteDef[] {
  const tags = ['Settings'];

  const view = (caller: Caller) => ({
    branding: settings.branding(),
    user: settings.userPrefs(caller.userId),
    thumbnails: settings.thumbnails(),
    ...(caller.isAdmin ? { access: { rules: settings.accessRules() }, activity: settings.activity() } : {}),
  });

  const apply = (caller: Caller, body: Patch, ip: string) => {
    const system = SYSTEM_KEYS.filter((k) => body[k] !== undefined);
    if (system.length) {
      if (!caller.isAdmin) throw new AppError('ADMIN_ONLY', `Only administrators may change ${system.join(', ')} settings.`);
      if (caller.via === 'token') throw new AppError(TOKEN_NOT_ALLOWED, 'API tokens may not change installation settings.');
    }
    if (body.user) settings.setUserPrefs(caller.userId, body.user);
    if (body.branding) settings.setBranding(stripUndefined(body.branding));
    if (body.thumbnails) settings.setThumbnails(stripUndefined(body.thumbnails));
    if (body.access) settings.setAccessRules(body.access.rules);
    if (body.activity) settings.setActivity(stripUndefined(body.activity));
    if (body.branding?.appLogoUrl !== undefined) {
      const current = settings.branding().appLogoUrl;
      logos.prune(current.startsWith(LOGO_PATH) ? [current.slice(LOGO_PATH.length)] : []);
    }
    if (system.length) activity.record({ action: 'admin.settings-change', outcome: 'success', userId: caller.userId, ip, detail: { sections: system, ...(body.activity ? { activity: settings.activity() } : {}) } });
    return view(caller);
  };

  return [
    route({
      method: 'GET', path: '/api/settings', access: 'account', tags,
      summary: 'Installation settings and this account\'s preferences (administrators also see access rules and the activity log settings)',
      responses: { 200: 'Settings' },
      handler: ({ caller }) => view(caller!),
    }),
    route({
      method: 'PATCH', path: '/api/settings', access: 'account', tags, body: patchBody,
      summary: 'Change preferences (`user`, anyone) or installation settings (`branding`, `thumbnails`, `access`, `activity`: administrators)',
      description: '`user` keys are merged (null removes one); `access.rules` replaces the whole list; the other sections are merged.',
      responses: { 200: 'Settings after the change', 400: 'Malformed body', 403: 'Installation settings by a non-administrator' },
      handler: ({ caller, body, ip }) => apply(caller!, body, ip),
    }),
    route({
      method: 'GET', path: '/api/branding', access: 'public', tags,
      summary: 'Name and logo of this installation',
      responses: { 200: 'Branding' },
      handler: () => settings.branding(),
    }),
    route({
      method: 'POST', path: '/api/settings/upload-logo', access: 'admin', tags, body: 'stream',
      summary: 'Upload a logo (multipart part `logo`, PNG/JPEG/GIF/WebP, at most 2 MB); save its `logoUrl` with PATCH /api/settings',
      responses: { 200: '{logoUrl}', 400: 'No logo part', 413: 'Larger than 2 MB', 415: 'Not an image' },
      handler: async ({ req }) => ({ logoUrl: LOGO_PATH + (await logos.receive(req)) }),
    }),
    route({
      method: 'GET', path: '/api/branding/logo/:file', access: 'public', tags,
      summary: 'An uploaded logo',
      responses: { 200: { description: 'The image', contentType: 'image/*' }, 404: 'No such logo' },
      handler: ({ params, res, req }) => {
        const file = logos.file(params.file!);
        if (!file) throw new AppError('NOT_FOUND', 'No such logo.');
        let stat: fs.Stats;
        try { stat = fs.statSync(file); } catch { throw new AppError('NOT_FOUND', 'No such logo.'); }
        res.writeHead(200, {
          'Content-Type': LOGO_TYPES[params.file!.split('.').pop()!]!,
          'Content-Length': stat.size,
          // The name is a content hash: it never changes meaning.
          'Cache-Control': 'public, max-age=31536000, immutable',
        });
        if (req.method === 'HEAD') return void res.end();
        fs.createReadStream(file).on('error', () => res.destroy()).pipe(res);
      },
    }),
  ];
}

function stripUndefined<T extends object>(value: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}

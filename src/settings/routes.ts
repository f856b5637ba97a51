// Rows of the route table for settings (wire-shapes §9): GET/PATCH /api/settings, the public
// branding, and the logo upload with its public address.
import { route } from '../http/route.ts';
import type { LogoStore } from './logo.ts';
import type { SettingsPanel } from './panel.ts';
import type { SettingsService } from './service.ts';
import { branding, logoParams, logoUploaded, patchBody, settingsView } from './wire.ts';

export interface SettingsRoutesDeps {
  settings: SettingsService;
  panel: SettingsPanel;
  logos: LogoStore;
}

export function settingsRoutes({ settings, panel, logos }: SettingsRoutesDeps) {
  const tags = ['Settings'];
  return [
    route({
      method: 'GET',
      path: '/api/settings',
      access: 'account',
      tags,
      summary:
        "Installation settings and this account's preferences (administrators also see access rules and the activity log settings)",
      responses: { 200: { description: 'Settings', schema: settingsView } },
      handler: ({ caller }) => panel.view(caller),
    }),
    route({
      method: 'PATCH',
      path: '/api/settings',
      access: 'account',
      tags,
      body: patchBody,
      summary:
        'Change preferences (`user`, anyone) or installation settings (`branding`, `thumbnails`, `access`, `activity`: administrators)',
      description:
        '`user` keys are merged (null removes one); `access.rules` replaces the whole list; the other sections are merged.',
      responses: {
        200: { description: 'Settings after the change', schema: settingsView },
        400: 'Malformed body',
        403: 'Installation settings by a non-administrator',
      },
      handler: ({ caller, body, ip }) => panel.apply(caller, body, ip),
    }),
    route({
      method: 'GET',
      path: '/api/branding',
      access: 'public',
      tags,
      summary: 'Name and logo of this installation',
      responses: { 200: { description: 'Branding', schema: branding } },
      handler: () => settings.branding(),
    }),
    route({
      method: 'POST',
      path: '/api/settings/upload-logo',
      access: 'admin',
      tags,
      body: 'stream',
      summary:
        'Upload a logo (multipart part `logo`, PNG/JPEG/GIF/WebP, at most 2 MB); save its `logoUrl` with PATCH /api/settings',
      responses: {
        200: { description: "The logo's address", schema: logoUploaded },
        400: 'No logo part',
        413: 'Larger than 2 MB',
        415: 'Not an image',
      },
      handler: ({ req }) => logos.upload(req),
    }),
    route({
      method: 'GET',
      path: '/api/branding/logo/:file',
      access: 'public',
      tags,
      params: logoParams,
      summary: 'An uploaded logo',
      responses: {
        200: { description: 'The image', contentType: 'image/*' },
        304: 'Not modified (If-None-Match names its ETag)',
        404: 'No such logo',
      },
      handler: ({ params, req, res }) => logos.send(params.file, req, res),
    }),
  ];
}

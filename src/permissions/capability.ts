// File permissions as a capability: mode, owner and group as the host sees them, and chmod /
// chown through the entry itself (never a link), inside volumes only. Administrators only
// (the service checks; an administrator's write token may change them, a read token may look).
import type { Capability } from '../http/capability.ts';
import type { PathResolver } from '../files/paths.ts';
import { virtualPathParams } from '../files/wire.ts';
import { route } from '../http/route.ts';
import { createPermissions } from './service.ts';
import { chmodAnswer, chmodRequest, chownAnswer, chownRequest, permissionsInfo } from './wire.ts';

const tags = ['Permissions'];
const refusals = {
  400: "Not inside a volume, a volume's own folder, a link, a bad mode, or an unknown owner or group",
  403: 'Not an administrator, a read-only volume or token, or the server may not give files away (chown needs root or CAP_CHOWN)',
  404: 'No such file or folder',
  501: 'The server runs on Windows (access lists, not modes)',
};

export function createPermissionsCapability(deps: { resolver: PathResolver }): Capability {
  return { routes: permissionRoutes(createPermissions({ resolver: deps.resolver })) };
}

export function permissionRoutes(permissions: ReturnType<typeof createPermissions>) {
  return [
    route({
      method: 'GET',
      path: '/api/permissions/*',
      access: 'account',
      tags,
      summary: 'Mode, owner and group of a file or folder, as the host sees them (administrators)',
      params: virtualPathParams,
      responses: { 200: { description: 'The permissions', schema: permissionsInfo }, ...refusals },
      handler: ({ caller, params }) => permissions.get(caller, params.path),
    }),
    route({
      method: 'POST',
      path: '/api/permissions/chmod',
      access: 'account',
      tags,
      summary: 'Change the mode of a file or folder, optionally of everything below (links are never followed)',
      body: chmodRequest,
      responses: { 200: { description: 'Changed', schema: chmodAnswer }, ...refusals },
      handler: ({ caller, body }) => permissions.chmod(caller, body),
    }),
    route({
      method: 'POST',
      path: '/api/permissions/chown',
      access: 'account',
      tags,
      summary:
        'Change the owner and/or group of a file or folder, optionally of everything below (links are never followed)',
      body: chownRequest,
      responses: { 200: { description: 'Changed', schema: chownAnswer }, ...refusals },
      handler: ({ caller, body }) => permissions.chown(caller, body),
    }),
  ];
}

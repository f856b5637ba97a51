// Assigned volumes (administrator): give an account labelled host folders, read-only or
// read-write; and "server files", a browser of the host's folders for picking those paths.
// These answers carry absolute host paths: they are for administrators and about host paths.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { Config } from '../config.ts';
import { AppError } from '../core/errors.ts';
import { noContent, route, type RouteDef } from '../http/route.ts';
import { assertPlainName } from '../files/names.ts';
import { RESERVED_PREFIXES } from '../files/paths.ts';
import type { UserVolumeStore } from './store.ts';

import { accountParams, userVolume, volumeParams } from './wire.ts';

export function volumeRoutes(deps: { store: UserVolumeStore; config: Config }): RouteDef[] {
  const { store, config } = deps;
  const assertUser = (id: string) => {
    if (!store.accountExists(id)) throw new AppError('NOT_FOUND', 'No such account.');
  };
  const checkLabel = (label: string) => {
    assertPlainName(label, 'label');
    if (RESERVED_PREFIXES.has(label)) throw new AppError('BAD_NAME', `"${label}" is reserved; choose another label.`);
    return label;
  };
  return [
    route({
      method: 'GET',
      path: '/api/users/:id/volumes',
      access: 'admin',
      summary: 'Volumes assigned to an account',
      tags: ['Accounts'],
      params: accountParams,
      responses: { 200: { description: '`{ volumes }`', schema: z.object({ volumes: z.array(userVolume) }) } },
      handler: ({ params }) => {
        assertUser(params.id);
        return { volumes: store.list(params.id) };
      },
    }),
    route({
      method: 'POST',
      path: '/api/users/:id/volumes',
      access: 'admin',
      summary: 'Assign a host folder to an account under a label',
      tags: ['Accounts'],
      status: 201,
      params: accountParams,
      body: z.object({
        label: z.string(),
        path: z.string(),
        accessMode: z.enum(['readonly', 'readwrite']).default('readonly'),
      }),
      responses: { 201: { description: '`{ volume }`', schema: z.object({ volume: userVolume }) } },
      handler: async ({ params, body }) => {
        assertUser(params.id);
        if (!config.storage.userVolumes)
          throw new AppError('FEATURE_OFF', 'Assigned volumes are off (USER_VOLUMES=false).');
        const label = checkLabel(body.label.trim());
        if (!path.isAbsolute(body.path)) throw new AppError('BAD_PATH', 'The path must be an absolute host folder.');
        const st = await fsp.stat(body.path).catch(() => null);
        if (!st?.isDirectory()) throw new AppError('NOT_A_FOLDER', 'The path is not an existing folder.');
        if (store.list(params.id).some((v) => v.label === label))
          throw new AppError('EXISTS', `The account already has a volume labelled "${label}".`);
        return {
          volume: store.add(params.id, { label, path: await fsp.realpath(body.path), accessMode: body.accessMode }),
        };
      },
    }),
    route({
      method: 'PATCH',
      path: '/api/users/:id/volumes/:volumeId',
      access: 'admin',
      summary: 'Change the access mode or label of an assigned volume',
      tags: ['Accounts'],
      params: volumeParams,
      body: z.object({ accessMode: z.enum(['readonly', 'readwrite']).optional(), label: z.string().optional() }),
      responses: { 200: { description: '`{ volume }`', schema: z.object({ volume: userVolume }) } },
      handler: ({ params, body }) => {
        const label = body.label !== undefined ? checkLabel(body.label.trim()) : undefined;
        if (label && store.list(params.id).some((v) => v.label === label && v.id !== params.volumeId))
          throw new AppError('EXISTS', `The account already has a volume labelled "${label}".`);
        const volume = store.update(params.id, params.volumeId, { accessMode: body.accessMode, label });
        if (!volume) throw new AppError('NOT_FOUND', 'No such assigned volume.');
        return { volume };
      },
    }),
    route({
      method: 'DELETE',
      path: '/api/users/:id/volumes/:volumeId',
      access: 'admin',
      summary: 'Remove an assigned volume (the folder itself is untouched)',
      tags: ['Accounts'],
      params: volumeParams,
      responses: { 204: 'Removed' },
      handler: ({ params }) => {
        if (!store.remove(params.id, params.volumeId)) throw new AppError('NOT_FOUND', 'No such assigned volume.');
        return noContent();
      },
    }),
    route({
      method: 'GET',
      path: '/api/admin/browse-directories',
      access: 'admin',
      summary: 'Folders of the host (to pick an assigned volume path)',
      tags: ['Administration'],
      query: z.object({ path: z.string().optional() }),
      responses: {
        200: {
          description: 'current, parent, directories (absolute host paths)',
          schema: z.object({
            current: z.string(),
            parent: z.string().nullable(),
            directories: z.array(z.object({ name: z.string(), path: z.string() })),
          }),
        },
      },
      handler: async ({ query }) => {
        let wanted = query.path && query.path.trim() ? query.path : config.storage.volumeRoot;
        if (!path.isAbsolute(wanted) || wanted.includes('\0'))
          throw new AppError('BAD_PATH', 'The path must be an absolute host folder.');
        // URLComponents leaves a literal `+` in names; the parser may have made it a space.
        if (!fs.existsSync(wanted) && query.path && fs.existsSync(query.path.replace(/ /g, '+')))
          wanted = query.path.replace(/ /g, '+');
        const current = path.resolve(wanted);
        const entries = await fsp.readdir(current, { withFileTypes: true });
        const directories = [];
        for (const e of entries) {
          const full = path.join(current, e.name);
          if (e.isDirectory() || (e.isSymbolicLink() && (await fsp.stat(full).catch(() => null))?.isDirectory()))
            directories.push({ name: e.name, path: full });
        }
        directories.sort((a, b) => a.name.localeCompare(b.name));
        const parent = path.dirname(current);
        return { current, parent: parent === current ? null : parent, directories };
      },
    }),
  ];
}

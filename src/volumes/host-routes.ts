// Administration → Volumes: host folders served as volumes beside VOLUME_ROOT.
import { noContent, route } from '../http/route.ts';
import type { HostVolumes } from './host-service.ts';
import {
  groupGrant,
  hostVolume,
  hostVolumeAdded,
  hostVolumeGiven,
  hostVolumeId,
  hostVolumeInput,
  hostVolumeList,
  hostVolumePatch,
} from './wire.ts';
import { z } from 'zod';

export function hostVolumeRoutes(volumes: HostVolumes) {
  return [
    route({
      method: 'GET',
      path: '/api/admin/volumes',
      access: 'admin',
      tags: ['Administration'],
      summary: 'Host folders served as volumes, and the files at the top of VOLUME_ROOT that are not shown',
      responses: { 200: { description: '`{ volumes, volumeRoot, looseFiles }`', schema: hostVolumeList } },
      handler: () => volumes.list(),
    }),
    route({
      method: 'POST',
      path: '/api/admin/volumes',
      access: 'admin',
      tags: ['Administration'],
      status: 201,
      summary:
        'Serve a host folder as a volume (named; read-only or read-write); with `group`, for that group only — its level at the root and hidden for everyone else, in one transaction with the volume',
      body: hostVolumeInput,
      responses: {
        201: { description: '`{ volume, rules? }`', schema: hostVolumeAdded },
        400: "BAD_NAME (label), BAD_PATH (not absolute, or inside Burrow's own folders), NOT_A_FOLDER",
        404: 'GROUP_NOT_FOUND: no such group (nothing is created)',
        409: 'EXISTS: a volume (a folder of VOLUME_ROOT or another host folder) already has that label',
      },
      handler: ({ body, caller, ip }) => volumes.add(body, caller, ip),
    }),
    route({
      method: 'POST',
      path: '/api/admin/volumes/:id/group',
      access: 'admin',
      tags: ['Administration'],
      summary:
        "Give a host volume to one group: the group's level at its root and hidden for everyone else (two rules, one transaction)",
      params: z.object({ id: hostVolumeId }),
      body: groupGrant,
      responses: {
        200: { description: '`{ volume, rules }`: the rules written at its root', schema: hostVolumeGiven },
        404: 'NOT_FOUND: no such volume; GROUP_NOT_FOUND: no such group (nothing is written)',
      },
      handler: ({ params, body, caller, ip }) => volumes.give(params.id, body, caller, ip),
    }),
    route({
      method: 'PATCH',
      path: '/api/admin/volumes/:id',
      access: 'admin',
      tags: ['Administration'],
      summary: 'Rename a host volume (the rules at its root and below follow the new label) or change its access mode',
      params: z.object({ id: hostVolumeId }),
      body: hostVolumePatch,
      responses: {
        200: { description: '`{ volume }`', schema: z.object({ volume: hostVolume }) },
        404: 'No such volume',
        409: 'EXISTS: the label is taken',
      },
      handler: ({ params, body }) => volumes.update(params.id, body),
    }),
    route({
      method: 'DELETE',
      path: '/api/admin/volumes/:id',
      access: 'admin',
      tags: ['Administration'],
      summary: 'Stop serving a host folder (the folder itself is untouched)',
      params: z.object({ id: hostVolumeId }),
      responses: { 204: 'Removed', 404: 'No such volume' },
      handler: ({ params }) => {
        volumes.remove(params.id);
        return noContent();
      },
    }),
  ];
}

// Administration → Volumes: host folders served as volumes beside VOLUME_ROOT.
import { noContent, route } from '../http/route.ts';
import type { HostVolumes } from './host-service.ts';
import { hostVolume, hostVolumeId, hostVolumeInput, hostVolumeList, hostVolumePatch } from './wire.ts';
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
      summary: 'Serve a host folder as a volume (named; read-only or read-write)',
      body: hostVolumeInput,
      responses: {
        201: { description: '`{ volume }`', schema: z.object({ volume: hostVolume }) },
        400: "BAD_NAME (label), BAD_PATH (not absolute, or inside Burrow's own folders), NOT_A_FOLDER",
        409: 'EXISTS: a volume (a folder of VOLUME_ROOT or another host folder) already has that label',
      },
      handler: ({ body }) => volumes.add(body),
    }),
    route({
      method: 'PATCH',
      path: '/api/admin/volumes/:id',
      access: 'admin',
      tags: ['Administration'],
      summary: 'Rename a host volume or change its access mode',
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

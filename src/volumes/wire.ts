// Wire shapes of assigned volumes and host volumes (administration).
import { z } from 'zod';

export const userVolume = z.object({
  id: z.string(),
  userId: z.string(),
  label: z.string(),
  path: z.string(),
  accessMode: z.enum(['readonly', 'readwrite']),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type UserVolumeWire = z.infer<typeof userVolume>;
export const accountParams = z.object({ id: z.string().min(1) });
export const volumeParams = z.object({ id: z.string().min(1), volumeId: z.string().min(1) });

// Host volumes (Administration → Volumes).
const accessMode = z.enum(['readonly', 'readwrite']);
export const hostVolumeId = z.string().min(1);
export const hostVolume = z.object({
  id: z.string(),
  label: z.string(),
  path: z.string(),
  accessMode,
  createdAt: z.string(),
  updatedAt: z.string(),
  available: z.boolean().describe('The folder exists and can be read'),
  storageReadOnly: z.boolean().describe('The host refuses writes there (or the folder is unavailable)'),
});
export type WireHostVolume = z.infer<typeof hostVolume>;
export const hostVolumeList = z.object({
  volumes: z.array(hostVolume),
  volumeRoot: z.string(),
  looseFiles: z.array(z.string()),
});
export const hostVolumeInput = z.object({
  label: z.string(),
  path: z.string(),
  accessMode: accessMode.default('readonly'),
});
export const hostVolumePatch = z.object({ label: z.string().optional(), accessMode: accessMode.optional() });

// Wire shapes of assigned volumes and host volumes (administration).
import { z } from 'zod';
import { rule } from '../access/wire.ts';

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
/** A volume for one group: the group's level at the volume's root, and hidden for everyone else. */
export const groupGrant = z.object({
  id: z.string().min(1).max(200).describe("The group's id (GET /api/access/groups)"),
  level: z.enum(['read', 'write', 'manage']).describe("The group's level in the whole volume"),
});
export type GroupGrant = z.infer<typeof groupGrant>;
export const hostVolumeInput = z.object({
  label: z.string(),
  path: z.string(),
  accessMode: accessMode.default('readonly'),
  group: groupGrant
    .optional()
    .describe("Give the volume to one group: the group's level at its root, hidden for everyone else"),
});
export const hostVolumeAdded = z.object({
  volume: hostVolume,
  /** With `group`: the rules written at the volume's root (the group's level, everyone hidden). */
  rules: z.array(rule).optional(),
});
export const hostVolumeGiven = z.object({ volume: hostVolume, rules: z.array(rule) });
export const hostVolumePatch = z.object({ label: z.string().optional(), accessMode: accessMode.optional() });

// Wire shapes of assigned volumes (administration).
import { z } from 'zod';

export const userVolume = z.object({ id: z.string(), userId: z.string(), label: z.string(), path: z.string(), accessMode: z.enum(['readonly', 'readwrite']), createdAt: z.string(), updatedAt: z.string() });
export type UserVolumeWire = z.infer<typeof userVolume>;
export const accountParams = z.object({ id: z.string().min(1) });
export const volumeParams = z.object({ id: z.string().min(1), volumeId: z.string().min(1) });


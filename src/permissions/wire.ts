// Wire shapes of the permissions rows (the native client's permissions screen).
import { z } from 'zod';

const filePath = z.string().min(1).max(4096);

export const permissionsInfo = z.object({
  path: z.string(),
  /** Raw stat mode including the type bits (33188 = a regular file, 0644). */
  mode: z.number().int(),
  owner: z.string(),
  group: z.string(),
  uid: z.number().int(),
  gid: z.number().int(),
  isDirectory: z.boolean(),
});

export const chmodRequest = z.object({
  path: filePath,
  /** Three or four octal digits as a string: "755", "0640". */
  mode: z.string().regex(/^[0-7]{3,4}$/, 'three or four octal digits, such as "755"'),
  recursive: z.boolean().optional(),
});

export const chmodAnswer = z.object({
  success: z.literal(true),
  path: z.string(),
  mode: z.string(),
  changed: z.number().int(),
});

export const chownRequest = z.object({
  path: filePath,
  owner: z.string().max(256).optional(),
  group: z.string().max(256).optional(),
  recursive: z.boolean().optional(),
});

export const chownAnswer = z.object({
  success: z.literal(true),
  path: z.string(),
  owner: z.string(),
  group: z.string(),
  uid: z.number().int(),
  gid: z.number().int(),
  changed: z.number().int(),
});

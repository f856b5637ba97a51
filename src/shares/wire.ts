// Share records on the wire (wire-shapes §1.4 and §7): the shapes the native client decodes.
// Ids are strings, dates ISO with milliseconds, counts integers.
import { z } from 'zod';

export const shareId = z.string().min(1).max(64);
/** A link token as it may appear in a URL; anything else is simply not a link (404, never 400). */
export const linkToken = z.string().max(200);

const allowFlags = {
  allowDownload: z.boolean().optional(),
  allowUpload: z.boolean().optional(),
  allowCreateFile: z.boolean().optional(),
  allowCreateFolder: z.boolean().optional(),
  allowRename: z.boolean().optional(),
  allowDelete: z.boolean().optional(),
  allowEdit: z.boolean().optional(),
  /** The holder sees where the link's photos were taken (EXIF GPS); off, it is taken out of every photo served. */
  allowLocation: z.boolean().optional(),
  /** The holder may have a video their browser cannot play converted by the server (ffmpeg); off by default. */
  allowTranscode: z.boolean().optional(),
};

/** ISO 8601 with or without fraction (the app sends `2027-01-15T10:00:00Z`). */
const isoDate = z
  .string()
  .refine(
    (s) =>
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)),
    'an ISO 8601 date-time',
  );

const fileRequest = z.object({
  maxFiles: z.number().int().min(1).max(1_000_000).nullable().optional(),
  maxBytes: z.number().int().min(1).nullable().optional(),
});

const maxDownloads = z
  .number()
  .int()
  .min(1)
  .max(1_000_000)
  .nullable()
  .optional()
  .describe(
    'Downloads the link gives in all (1: a one-time link); every byte path counts one — download, zip, raw, inline view, screen-sized preview, the editor. Past it the link answers 404 like an expired one. null: no limit',
  );

export const createShareBody = z.object({
  sourcePath: z.string().min(1),
  sharingType: z.enum(['anyone', 'users']).default('anyone'),
  accessMode: z.enum(['readonly', 'readwrite']).optional(),
  userIds: z.array(z.string()).max(1000).optional(),
  password: z.string().min(1).max(1024).optional(),
  expiresAt: isoDate.nullable().optional(),
  label: z.string().max(200).nullable().optional(),
  /** An upload-only link to a folder: a drop page, no listing. */
  fileRequest: fileRequest.nullable().optional(),
  maxDownloads,
  ...allowFlags,
});
export type CreateShareInput = z.infer<typeof createShareBody>;

/** "Key present ⇒ change" (wire-shapes §7): password absent = keep, null = remove, string = set. */
export const updateShareBody = z.object({
  sharingType: z.enum(['anyone', 'users']).optional(),
  accessMode: z.enum(['readonly', 'readwrite']).optional(),
  userIds: z.array(z.string()).max(1000).optional(),
  password: z.string().min(1).max(1024).nullable().optional(),
  expiresAt: isoDate.nullable().optional(),
  label: z.string().max(200).nullable().optional(),
  fileRequest: fileRequest.nullable().optional(),
  maxDownloads,
  ...allowFlags,
});
export type UpdateShareInput = z.infer<typeof updateShareBody>;

export const wireShare = z.object({
  id: z.string(),
  shareToken: z.string(),
  ownerId: z.string(),
  sourcePath: z.string().optional(),
  sourceName: z.string().optional(),
  isDirectory: z.boolean(),
  accessMode: z.enum(['readonly', 'readwrite']),
  sharingType: z.enum(['anyone', 'users']),
  hasPassword: z.boolean(),
  expiresAt: z.string().nullable(),
  label: z.string().nullable(),
  downloadCount: z.number().int(),
  maxDownloads: z.number().int().nullable().describe('The download limit (1: one-time), or null'),
  accessCount: z.number().int(),
  lastAccessedAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  allowDownload: z.boolean(),
  allowUpload: z.boolean(),
  allowCreateFile: z.boolean(),
  allowCreateFolder: z.boolean(),
  allowRename: z.boolean(),
  allowDelete: z.boolean(),
  allowEdit: z.boolean(),
  allowLocation: z
    .boolean()
    .describe("The link's photos keep where they were taken (EXIF GPS); false: taken out of the bytes served"),
  allowTranscode: z
    .boolean()
    .describe(
      "The link's holders may have a video their browser cannot play converted by the server (ffmpeg: remuxed or transcoded); false: offered as a download",
    ),
  permittedUserIds: z.array(z.string()).optional(),
  ownerName: z.string().optional(),
  /** Present for a file request: the limits and what has arrived. */
  fileRequest: z
    .object({
      maxFiles: z.number().int().nullable(),
      maxBytes: z.number().int().nullable(),
      receivedFiles: z.number().int(),
      receivedBytes: z.number().int(),
    })
    .nullable(),
  shareUrl: z.string(),
});
export type WireShare = z.infer<typeof wireShare>;

export const createdShare = wireShare.extend({ directFileUrl: z.string() });
export type CreatedShare = z.infer<typeof createdShare>;

export const shareList = z.object({ shares: z.array(wireShare) });

export const shareableUsers = z.object({
  users: z.array(
    z.object({
      id: z.string(),
      email: z.string().nullable(),
      username: z.string(),
      displayName: z.string().nullable(),
    }),
  ),
});

export const linkInfo = z.object({
  shareToken: z.string(),
  isDirectory: z.boolean(),
  hasPassword: z.boolean(),
  sharingType: z.enum(['anyone', 'users']),
  isExpired: z.boolean(),
  label: z.string().nullable(),
  expiresAt: z.string().nullable(),
  /** Not in the native client's shape (extra keys are ignored there); the visitor page uses them. */
  name: z.string(),
  isFileRequest: z.boolean(),
  needsPassword: z.boolean(),
  allow: z.object({
    download: z.boolean(),
    upload: z.boolean(),
    createFile: z.boolean(),
    createFolder: z.boolean(),
    rename: z.boolean(),
    delete: z.boolean(),
    edit: z.boolean(),
  }),
});
export type LinkInfo = z.infer<typeof linkInfo>;

export const passwordBody = z.object({ password: z.string().max(1024) });

// Wire shapes of the system rows (probes, features).
import { z } from 'zod';

/** `database-unavailable`: PostgreSQL (DATABASE_URL) cannot be reached; the instance recovers by itself. */
export const health = z.object({ status: z.enum(['ok', 'starting', 'database-unavailable']) });

/** GET /licenses.txt: the third-party notices, plain text. */
export const licensesText = z.string().min(1);
export type Health = z.infer<typeof health>;

/** Where this server can be reached, for the page asking (see system/network.ts). */
export const networkSection = z.object({
  enabled: z.literal(true),
  /** PUBLIC_URL: links and passkeys use it when set. */
  publicUrl: z.string().nullable().describe('PUBLIC_URL, or null when unset'),
  loopback: z
    .boolean()
    .describe(
      'This request came from this computer to a loopback address (localhost): links made here name an address no other device can open',
    ),
  reachable: z.boolean().describe('Other devices can connect: Burrow listens on more than a loopback address'),
  lanOrigins: z
    .array(z.string())
    .describe(
      'http://<address>:<port> of each network interface, where other devices on the network reach Burrow; only for a loopback request while PUBLIC_URL is unset, else empty',
    ),
  announced: z
    .string()
    .nullable()
    .describe(
      'The name Burrow announces on the network by mDNS, as an origin (https://burrow.local:3443): where other devices open it and where passkeys work from them; null while none is announced or PUBLIC_URL is set',
    ),
});
export type NetworkSection = z.infer<typeof networkSection>;

const on = { enabled: z.boolean() };
/** HTTPS beside HTTP (tls/): its port once listening, and whether Burrow's own authority signs it. */
const httpsSection = z.object({
  enabled: z.boolean(),
  port: z.number().int().nullable().describe('The HTTPS port, null while it is not listening'),
  authority: z.boolean().describe("Burrow's own certificate authority signs it: a device trusts it once"),
});
const editor = z
  .object({ ...on, extensions: z.array(z.string()).describe('Extensions this editor opens, without the dot') })
  .optional();
/** The sections each capability adds (every one optional: a build or a setting may leave it out). */
export const featureSections = z.object({
  userVolumes: z.object(on).optional(),
  volumeUsage: z.object(on).optional(),
  personal: z.object(on).optional(),
  trash: z.object({ ...on, retentionDays: z.number().int() }).optional(),
  uploads: z
    .object({ ...on, chunked: z.boolean(), maxDirectUploadSize: z.number(), maxFilesPerUpload: z.number().int() })
    .optional(),
  folderSize: z.object({ ...on, mode: z.enum(['off', 'full', 'shallow']) }).optional(),
  search: z.object({ index: z.boolean() }).optional(),
  archives: z.object({ ...on, maxBrowsableSize: z.number(), maxEntries: z.number().int() }).optional(),
  shares: z.object({ ...on, fileRequests: z.boolean() }).optional(),
  webdav: z
    .object({ ...on, path: z.string().describe('Where to mount the files as a drive, on this origin') })
    .optional(),
  terminal: z
    .object({ ...on, available: z.boolean(), reason: z.string().optional().describe('Why it cannot start now') })
    .optional(),
  live: z
    .object({
      ...on,
      socketPath: z
        .string()
        .describe(
          'The WebSocket where a page hears the folders it shows change (watch / changes / reload, JSON frames)',
        ),
    })
    .optional(),
  https: httpsSection.optional(),
  onlyoffice: editor,
  collabora: editor.describe('The WOPI editor (Collabora Online or any WOPI client)'),
  officeeditor: editor.describe('The same as `collabora`, under the name the spec gives it'),
});
export type FeatureSections = z.infer<typeof featureSections>;

/** Every section present has a boolean `enabled`; `version` is the release. */
export const features = featureSections.extend({ version: z.string(), network: networkSection }).catchall(z.unknown());
export type Features = z.infer<typeof features>;

/** The OpenAPI 3.1 document (described by its own standard, not repeated here). */
export const openApiDocument = z.object({
  openapi: z.string(),
  info: z.record(z.string(), z.unknown()),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
  components: z.record(z.string(), z.unknown()),
  /** What this server sends to other programs (notification webhooks). */
  webhooks: z.record(z.string(), z.unknown()).optional(),
  /** The running release (`burrow --version`, /api/features `version`); info.version stays `unversioned` as the spec says. */
  'x-release': z.string(),
});

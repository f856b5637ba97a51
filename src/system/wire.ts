// Wire shapes of the system rows (probes, features).
import { z } from 'zod';

export const health = z.object({ status: z.enum(['ok', 'starting']) });
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
});
export type NetworkSection = z.infer<typeof networkSection>;

/** Every section present has a boolean `enabled`; `version` is the release. */
export const features = z.object({ version: z.string(), network: networkSection }).catchall(z.unknown());
export type Features = z.infer<typeof features>;

/** The OpenAPI 3.1 document (described by its own standard, not repeated here). */
export const openApiDocument = z.object({
  openapi: z.string(),
  info: z.record(z.string(), z.unknown()),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
  components: z.record(z.string(), z.unknown()),
  /** The running release (`burrow --version`, /api/features `version`); info.version stays `unversioned` as the spec says. */
  'x-release': z.string(),
});

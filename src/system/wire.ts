// Wire shapes of the system rows (probes, features).
import { z } from 'zod';

export const health = z.object({ status: z.enum(['ok', 'starting']) });
export type Health = z.infer<typeof health>;

/** Every section present has a boolean `enabled`; `version` is the release. */
export const features = z.object({ version: z.string() }).catchall(z.unknown());
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

// What each capability hands the composition root (src/app.ts).
import type { RouteDef } from './route.ts';

export interface Capability {
  routes: RouteDef[];
  /** Sections of GET /api/features. */
  features?: () => Record<string, unknown>;
  /** Background work, started once the server listens (never in the request path). */
  start?: () => void | Promise<void>;
  /** Stops background work; called before the database closes. */
  stop?: () => void | Promise<void>;
}

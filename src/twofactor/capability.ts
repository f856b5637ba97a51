// The second factor as a capability: its rows (the service itself is built in app.ts before
// auth's, since password sign-in asks it for the code).
import type { Capability } from '../http/capability.ts';
import { twoFactorRoutes, type TwoFactorRoutesDeps } from './routes.ts';

export function createTwoFactorCapability(deps: TwoFactorRoutesDeps): Capability {
  return { routes: twoFactorRoutes(deps) };
}

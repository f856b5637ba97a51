// The second factor as a capability: its rows (the service itself is built by identity, since
// password sign-in asks it for the code).
import type { Capability } from '../core/capability.ts';
import type { Identity } from '../auth/identity.ts';
import { twoFactorRoutes } from './routes.ts';

export function createTwoFactorCapability(identity: Pick<Identity, 'signIn'>): Capability {
  const { twoFactor, auth, authenticator, cookies } = identity.signIn;
  return { routes: twoFactorRoutes({ twoFactor, auth, authenticator, cookies }) };
}

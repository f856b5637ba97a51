// Settings that start a server quietly in a state its owner would not choose: said loudly,
// once, at startup.
import type { Config } from '../config.ts';
import type { Logger } from '../core/log.ts';

/** Only this machine can reach the address (a wildcard address is every interface). */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h) || h === '::ffff:127.0.0.1';
}

export function authStartupWarnings(config: Config, log: Logger, oidcRoutes: boolean): void {
  if (config.auth.mode === 'disabled' && !isLoopbackHost(config.server.host)) {
    log.warn(
      `AUTHENTICATION IS OFF (AUTH_MODE=disabled / AUTH_ENABLED=false) and Burrow listens on ${config.server.host}: anyone who can reach this port can read, change and delete every file as the administrator. Set HOST=127.0.0.1 or turn authentication on.`,
      {
        host: config.server.host,
        authMode: config.auth.mode,
      },
    );
  }
  const o = config.oidc;
  const wantsOidc = o.enabled && (config.auth.mode === 'oidc' || config.auth.mode === 'both');
  if (!wantsOidc) return;
  const missing = [!o.issuer && 'OIDC_ISSUER', !o.clientId && 'OIDC_CLIENT_ID'].filter(Boolean);
  if (missing.length) {
    log.warn(
      `OIDC_ENABLED=true but ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set: single sign-on is OFF and is not offered on the sign-in screen.`,
      { missing },
    );
  } else if (!oidcRoutes) {
    log.warn(
      'OIDC_ENABLED=true but this version of Burrow has no single sign-on yet: it is not offered on the sign-in screen.',
      { issuer: o.issuer },
    );
  }
  if (config.auth.mode === 'oidc' && (missing.length || !oidcRoutes)) {
    log.warn(
      'AUTH_MODE=oidc without a working identity provider: nobody can sign in. Set AUTH_MODE=both or local, or complete the OIDC settings.',
      {},
    );
  }
}

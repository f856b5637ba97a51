// Moved to src/core/errors.ts. This re-export goes when src/archives, webdav, twofactor,
// passkeys, oidc, terminal, plugins and permissions import from core (they are being written now).
export * from '../core/errors.ts';

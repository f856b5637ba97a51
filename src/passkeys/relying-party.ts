// Who we are to a passkey: the RP id (a host name the credential is scoped to) and the origins
// a browser may report. With PUBLIC_URL they are fixed; without it they follow the name the page
// was opened at (localhost on this computer, https://burrow.local:3443 from the LAN), which the
// browser itself vouches for in the signed client data, and which the Host allow-list has already
// checked is one this server answers for. Never a numeric address: browsers refuse one as RP id.
import net from 'node:net';
import { AppError } from '../core/errors.ts';

export interface RelyingParty {
  rpId: string;
  origins: string[];
}

export interface RelyingPartyOptions {
  publicUrl: string | null;
  /** WEBAUTHN_RP_ID: a parent domain of PUBLIC_URL's host, so passkeys work across sub-domains. */
  rpId?: string | null;
}

export class RelyingPartyError extends Error {}

function suffixOf(host: string, rpId: string): boolean {
  return host === rpId || host.endsWith(`.${rpId}`);
}

export class RelyingParties {
  private readonly fixed: RelyingParty | null;
  private readonly rpId: string | null;

  constructor(opts: RelyingPartyOptions) {
    this.rpId = opts.rpId?.trim().toLowerCase() || null;
    if (opts.publicUrl) {
      const url = new URL(opts.publicUrl);
      const rpId = this.rpId ?? url.hostname;
      if (!suffixOf(url.hostname, rpId))
        throw new RelyingPartyError(`WEBAUTHN_RP_ID ${rpId} is not ${url.hostname} or a parent domain of it.`);
      this.fixed = { rpId, origins: [url.origin] };
    } else {
      this.fixed = null;
    }
  }

  /** The relying party for a request that reached us at `requestOrigin` (scheme://host[:port]). */
  for(requestOrigin: string | null): RelyingParty {
    if (this.fixed) return { rpId: this.fixed.rpId, origins: [...this.fixed.origins] };
    if (!requestOrigin) throw new RelyingPartyError('Passkeys need PUBLIC_URL or the address the browser used.');
    const url = new URL(requestOrigin);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (net.isIP(host) !== 0) throw new AppError('PASSKEY_NAME_REQUIRED');
    const rpId = this.rpId && suffixOf(host, this.rpId) ? this.rpId : host;
    return { rpId, origins: [url.origin] };
  }

  /** The RP id passkeys made before it was recorded were made for: the fixed one, else localhost. */
  legacy(): string {
    return this.fixed?.rpId ?? 'localhost';
  }
}

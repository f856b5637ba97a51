// HTTPS on its own port beside HTTP (HTTPS_PORT), with Burrow's own certificate or the
// administrator's (service.ts), its rows (routes.ts), and the page plain HTTP from another
// machine gets (http/secure.ts). The HTTPS server comes up once the certificate is there (made
// in the background on a first start), so HTTP answers at once; a port HTTPS cannot take is
// logged and HTTP goes on.
import type http from 'node:http';
import type https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config.ts';
import type { Logger } from '../core/log.ts';
import type { Capability } from '../http/capability.ts';
import { AUTHORITY_PATH, plainHttpNotice, secureTwin } from '../http/secure.ts';
import { closeServer } from '../http/server.ts';
import { createTls, type Tls } from './service.ts';
import { wantedNames } from './names.ts';
import { tlsRoutes } from './routes.ts';

export interface TlsCapability extends Capability {
  /** The service, null when HTTPS_PORT is off. */
  tls: Tls | null;
  notice: ReturnType<typeof plainHttpNotice>;
  /** Starts HTTPS beside `server` on `host`; resolves with its address, or null when off or it cannot listen. */
  listen(server: http.Server, host: string): Promise<AddressInfo | null>;
  /** The HTTPS address once listening. */
  address(): AddressInfo | null;
  close(graceMs: number): Promise<void>;
}

export function createTlsCapability(deps: {
  config: Config;
  log: Logger;
  /** Names announced on the LAN (mDNS), which the certificate covers too. */
  announced?: () => readonly string[];
}): TlsCapability {
  const { config, log } = deps;
  const port = config.tls.httpsPort;
  const tls =
    port === null
      ? null
      : createTls({
          configDir: config.storage.configDir,
          given: config.tls.cert && config.tls.key ? { cert: config.tls.cert, key: config.tls.key } : null,
          log,
          wanted: () =>
            wantedNames({
              announced: deps.announced ?? (() => ['burrow.local']),
              allowedHosts: config.server.allowedHosts,
              publicUrl: config.server.publicUrl,
              listenHost: config.server.host,
            }),
        });
  let twin: https.Server | null = null;
  let address: AddressInfo | null = null;
  const notice = plainHttpNotice({
    httpsPort: () => (config.server.publicUrl ? null : (address?.port ?? null)),
    generated: tls !== null && config.tls.cert === null,
  });

  return {
    tls,
    notice,
    routes: tlsRoutes({
      authority: () => tls?.authority() ?? null,
      info: () => {
        const i = tls?.info() ?? null;
        return {
          enabled: tls !== null,
          port: address?.port ?? null,
          source: i?.source ?? null,
          names: i ? [...i.names.dns, ...i.names.ips] : [],
          notAfter: i?.notAfter ?? null,
          fingerprint: i?.fingerprint ?? null,
          authorityFingerprint: i?.authorityFingerprint ?? null,
          authorityUrl: i?.source === 'generated' ? AUTHORITY_PATH : null,
        };
      },
    }),
    features: () => ({
      https: { enabled: tls !== null, port: address?.port ?? null, authority: tls !== null && !config.tls.cert },
    }),
    start: () => tls?.start(),
    stop: () => tls?.stop(),
    address: () => address,
    async listen(server, host) {
      if (!tls || port === null) return null;
      try {
        const pem = await tls.ready();
        const s = secureTwin(server, pem);
        tls.onChange((next) => s.setSecureContext({ cert: next.cert, key: next.key }));
        await new Promise<void>((resolve, reject) => {
          s.once('error', reject);
          s.listen(port, host, () => {
            s.off('error', reject);
            resolve();
          });
        });
        twin = s;
        address = s.address() as AddressInfo;
        const info = tls.info();
        log.info('HTTPS is listening', {
          port: address.port,
          source: info?.source,
          names: info ? [...info.names.dns, ...info.names.ips] : [],
          notAfter: info?.notAfter,
        });
        return address;
      } catch (err) {
        log.error('HTTPS is off: it cannot start', { port, err: (err as Error).message });
        return null;
      }
    },
    close(graceMs) {
      const s = twin;
      if (!s) return Promise.resolve();
      return closeServer(s, graceMs);
    },
  };
}

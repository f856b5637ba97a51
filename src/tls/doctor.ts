// `burrow doctor`'s HTTPS line: where the certificate comes from, the names it covers, when it
// ends. Read from the files (the running server's own, or TLS_CERT): nothing is made here.
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import { namesOf } from './authority.ts';
import { RENEW_BEFORE_MS, TLS_DIR } from './service.ts';

/** One line of the doctor's checklist (doctor/doctor.ts `Check`). */
export interface HttpsCheck {
  name: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
}

export function httpsCheck(config: Config, running: boolean): HttpsCheck {
  const name = 'HTTPS';
  const port = config.tls.httpsPort;
  if (port === null)
    return {
      name,
      status: 'warn',
      detail: 'HTTPS_PORT=off: HTTP only (browsers mark it not secure; passkeys work only at localhost)',
    };
  const given = config.tls.cert;
  const file = given ?? path.join(config.storage.configDir, TLS_DIR, 'server.crt');
  const where = port === 0 ? 'a free port' : `port ${port}`;
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(fs.readFileSync(file));
  } catch (err) {
    if (!given && (err as NodeJS.ErrnoException).code === 'ENOENT')
      return {
        name,
        status: 'ok',
        detail: `on ${where}; Burrow makes its certificate authority and certificate at ${running ? 'its next start' : 'the first start'} (${path.dirname(file)})`,
      };
    return { name, status: 'fail', detail: `TLS_CERT ${file} cannot be read: ${(err as Error).message}` };
  }
  const names = namesOf(cert);
  const left = cert.validToDate.getTime() - Date.now();
  const days = Math.floor(left / 86_400_000);
  const detail = `on ${where}, ${given ? `TLS_CERT ${file}` : "Burrow's own certificate authority"}; for ${[...names.dns, ...names.ips].join(', ')}; ends ${cert.validToDate.toISOString().slice(0, 10)} (${days} days)`;
  if (left <= 0)
    return {
      name,
      status: given ? 'fail' : 'warn',
      detail: `${detail}: expired${given ? '; replace TLS_CERT and TLS_KEY' : '; Burrow renews it at its next start'}`,
    };
  if (given && left < RENEW_BEFORE_MS)
    return {
      name,
      status: 'warn',
      detail: `${detail}: renew TLS_CERT soon (Burrow reads the new files without a restart)`,
    };
  return { name, status: 'ok', detail };
}

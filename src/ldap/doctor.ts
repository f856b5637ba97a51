// `burrow doctor`'s directory line, when LDAP_URL is set: connect (TLS with LDAP_CA_FILE),
// bind as the service account and find LDAP_USER_BASE. A directory that cannot be used is a
// warning, not a failure: local accounts still sign in.
import type { Config } from '../config.ts';
import { silentLogger } from '../core/log.ts';
import { Directory, DirectoryDown, ldapOptions } from './directory.ts';

/** One line of the doctor's checklist (doctor/doctor.ts `Check`). */
export interface DirectoryCheck {
  name: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
}

export async function directoryCheck(config: Config): Promise<DirectoryCheck | null> {
  const options = ldapOptions(config);
  if (!options) return null;
  try {
    return { name: 'directory (LDAP)', status: 'ok', detail: await new Directory(options, silentLogger).probe() };
  } catch (err) {
    const detail = err instanceof DirectoryDown ? err.detail : (err as Error).message;
    return {
      name: 'directory (LDAP)',
      status: 'warn',
      detail: `${options.url} cannot be used (${detail}); directory accounts cannot sign in, local accounts still can`,
    };
  }
}

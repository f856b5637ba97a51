// Where an account, or one of its group memberships, comes from — in the words every admin
// screen uses (Users' sign-in badge, Groups' "kept by" badge and member chips): one table.
import type { AdminUser } from '../api/types.ts';

export type DirectorySource = 'ldap' | 'oidc';

/** A directory that keeps accounts or memberships: what it is called, short, and on a member chip. */
export const DIRECTORIES: Record<DirectorySource, { name: string; short: string; member: string }> = {
  ldap: { name: 'directory (LDAP)', short: 'LDAP', member: 'from LDAP' },
  oidc: { name: 'identity provider', short: 'single sign-on', member: 'from single sign-on' },
};

export interface Origin {
  source: DirectorySource | null;
  label: string;
  note: string;
}

/**
 * Where an account comes from: the directory (LDAP) that checks its password and keeps its
 * groups, the identity provider (single sign-on) that signs it in, or this installation.
 */
export function accountOrigin(u: Pick<AdminUser, 'authMethods'>): Origin {
  if (u.authMethods.some((m) => m.method === 'ldap'))
    return {
      source: 'ldap',
      label: 'Directory (LDAP)',
      note: 'The directory checks the password and decides its groups and role at every sign-in; change them there.',
    };
  const oidc = u.authMethods.find((m) => m.method === 'oidc' || m.method === 'oidc-mobile');
  if (oidc)
    return {
      source: 'oidc',
      label: oidc.provider ? `Single sign-on (${oidc.provider})` : 'Single sign-on',
      note: 'Signs in through the identity provider, which may also set its groups.',
    };
  return { source: null, label: 'Local account', note: 'Made on this installation; its password is kept here.' };
}

// Password sign-in against an LDAP / Active Directory directory, as the password step of the
// ordinary sign-in sees it (auth/ asks it for names that are not a local account's, and for the
// accounts it made): find the person with the service account, bind as them, then bring their
// account up to date — made at the first sign-in (a personal folder like any new account), the
// admin role from LDAP_ADMIN_GROUP, Burrow groups from LDAP_GROUP_MAP (joins and leaves of the
// directory's memberships only; the access model logs each). A directory account the search no
// longer finds (disabled, deleted, moved out of the filter) is refused, its sessions end and its
// API tokens are revoked — at a password sign-in, at a passkey sign-in (which asks the directory)
// and at the periodic directory check (LDAP_CHECK_INTERVAL), whichever comes first.
// The password is handed to the directory and dropped: never stored, never logged.
import type { ActivityService } from '../activity/service.ts';
import type { DirectoryGroups } from '../access/service.ts';
import { isAdminRow, type Role, type UserRow, type UsersStore } from '../accounts/users-store.ts';
import type { Logger } from '../core/log.ts';
import { Directory, groupMatches, type DirectoryGroup, type DirectoryPerson } from './directory.ts';

export interface LdapSignInDeps {
  directory: Directory;
  users: UsersStore;
  activity: ActivityService;
  groups: DirectoryGroups;
  /** Ends every session of an account (a disabled directory account). */
  endSessions: (userId: string) => number;
  /** Revokes every API token of an account (a disabled directory account). */
  revokeTokens: (userId: string) => number;
  log: Logger;
}

export const LDAP = 'ldap';

export class LdapSignIn {
  private readonly deps: LdapSignInDeps;
  constructor(deps: LdapSignInDeps) {
    this.deps = deps;
  }

  /** Is this account the directory's (its password is checked there)? */
  owns(userId: string): boolean {
    return this.deps.users.ldapSubjectOf(userId) !== undefined;
  }

  /**
   * The account these credentials sign in to, or null when the directory does not accept them
   * (unknown name, wrong password, a disabled account). `known` is the directory account the
   * name already matched here. Throws LDAP_UNAVAILABLE when the directory cannot answer.
   */
  async authenticate(
    identifier: string,
    password: string,
    ip: string,
    known: UserRow | undefined,
  ): Promise<UserRow | null> {
    const d = this.deps.directory;
    const name = known ? (this.deps.users.ldapSubjectOf(known.id) ?? known.username) : identifier.trim();
    if (name === '') return null;
    const found = await d.session(async (client) => {
      const person = await d.find(client, name);
      if (!person) return null;
      if (!(await d.passwordAccepted(person.dn, password))) return { person, groups: null };
      return { person, groups: await d.groups(client, person) };
    });
    if (!found) {
      if (known) this.disabled(known, ip);
      return null;
    }
    if (found.groups === null) return null;
    return this.account(found.person, found.groups, ip);
  }

  /**
   * A sign-in that does not pass the directory's password (a passkey) asks the directory whether
   * it still knows the account: false when the search no longer finds it (then it is signed out
   * everywhere and its tokens revoked). Throws LDAP_UNAVAILABLE when the directory cannot answer.
   * Accounts that are not the directory's: true.
   */
  async stillEnabled(row: UserRow, ip: string): Promise<boolean> {
    const subject = this.deps.users.ldapSubjectOf(row.id);
    if (subject === undefined) return true;
    const d = this.deps.directory;
    const person = await d.session((client) => d.find(client, subject));
    if (person) return true;
    this.disabled(row, ip);
    return false;
  }

  /**
   * The periodic word of the directory on every account it made (LDAP_CHECK_INTERVAL): one
   * connection, one search each; an account the search no longer finds (disabled, deleted, moved
   * out of the filter) is signed out everywhere and its API tokens revoked now, not at its next
   * sign-in. A directory that finds none of several accounts is taken for a misconfigured base
   * or filter, not a mass removal: nothing is revoked and a warning is logged. Throws
   * LDAP_UNAVAILABLE (nothing revoked) when the directory cannot answer.
   */
  async check(): Promise<{ checked: number; disabled: number }> {
    const accounts = this.deps.users.ldapAccounts();
    if (accounts.length === 0) return { checked: 0, disabled: 0 };
    const d = this.deps.directory;
    const gone = await d.session(async (client) => {
      const missing: string[] = [];
      for (const a of accounts) if (!(await d.find(client, a.subject))) missing.push(a.userId);
      return missing;
    });
    if (gone.length > 1 && gone.length === accounts.length) {
      this.deps.log.warn('the directory check found none of its accounts; check LDAP_USER_BASE and LDAP_USER_FILTER', {
        accounts: accounts.length,
      });
      return { checked: accounts.length, disabled: 0 };
    }
    let disabled = 0;
    for (const userId of gone) {
      const row = this.deps.users.get(userId);
      if (!row) continue;
      if (this.disabled(row, null, true)) disabled++;
    }
    return { checked: accounts.length, disabled };
  }

  /** The search no longer finds a directory account: refused, signed out everywhere, its tokens revoked. */
  private disabled(row: UserRow, ip: string | null, quiet = false): boolean {
    const ended = this.deps.endSessions(row.id);
    const revoked = this.deps.revokeTokens(row.id);
    // The periodic check finds an account it already cut off again and again: logged once.
    if (quiet && ended === 0 && revoked === 0) return false;
    this.deps.activity.record({
      action: 'auth.ldap-disabled',
      outcome: 'success',
      userId: row.id,
      username: row.username,
      ip,
      detail: { sessionsEnded: ended, tokensRevoked: revoked },
    });
    return true;
  }

  private role(groups: DirectoryGroup[]): Role | null {
    const admin = this.deps.directory.options.adminGroup;
    if (!admin) return null;
    return groups.some((g) => groupMatches(g, admin)) ? 'admin' : 'user';
  }

  private mapped(groups: DirectoryGroup[]): string[] {
    const map = this.deps.directory.options.groupMap;
    return [...new Set(map.filter((e) => groups.some((g) => groupMatches(g, e.from))).map((e) => e.to))];
  }

  private freeUsername(wanted: string): string {
    const base = wanted.replace(/[\s/\\]+/g, '-').slice(0, 48) || 'user';
    for (let n = 1; ; n++) {
      const candidate = n === 1 ? base : `${base}-${n}`;
      if (this.deps.users.findByIdentifier(candidate).length === 0) return candidate;
    }
  }

  private account(person: DirectoryPerson, groups: DirectoryGroup[], ip: string): UserRow {
    const { users, activity } = this.deps;
    const subject = person.username.normalize('NFC').toLowerCase();
    const decided = this.role(groups);
    return users.atomically(() => {
      let row = users.findBeforeMaking(() => users.byLdapSubject(subject));
      if (!row) {
        const role: Role = decided ?? (users.count() === 0 ? 'admin' : 'user');
        const email = person.email && !users.findByEmail(person.email) ? person.email : null;
        row = users.insert({
          username: this.freeUsername(person.username.normalize('NFC')),
          email,
          displayName: person.displayName,
          passwordHash: null,
          roles: [role],
        });
        users.addMethod(row.id, 'ldap', LDAP, subject);
        activity.record({
          action: 'auth.ldap-create',
          outcome: 'success',
          userId: row.id,
          username: row.username,
          ip,
          detail: { dn: person.dn, role },
        });
      } else if (decided && (decided === 'admin') !== isAdminRow(row)) {
        const from = isAdminRow(row) ? 'admin' : 'user';
        users.update(row.id, { roles: [decided] });
        activity.record({
          action: 'auth.ldap-role-change',
          outcome: 'success',
          userId: row.id,
          username: row.username,
          ip,
          detail: { from, to: decided, dn: person.dn },
        });
        row = users.get(row.id)!;
      }
      if (this.deps.directory.options.groupMap.length > 0)
        this.deps.groups.syncDirectory({ userId: row.id, source: 'ldap', groups: this.mapped(groups), ip });
      users.touchMethod(row.id, 'ldap', LDAP);
      return row;
    });
  }
}

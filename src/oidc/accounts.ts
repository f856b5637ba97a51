// From verified claims to an account: the provider's subject finds its account; failing that,
// an account with the same email is linked (verified email when required); failing that, one
// is made (when allowed). Roles follow the provider's groups only when OIDC_ADMIN_GROUPS is set
// and a group claim arrived; otherwise the stored role stays.
import type { ActivityService } from '../activity/service.ts';
import { isAdminRow, type Role, type UserRow, type UsersStore } from '../accounts/users-store.ts';
import type { DirectoryGroups } from '../access/service.ts';
import type { GroupMapEntry } from '../config/variables.ts';
import { denied } from './errors.ts';

export interface Claims {
  sub: string;
  email?: unknown;
  email_verified?: unknown;
  preferred_username?: unknown;
  name?: unknown;
  groups?: unknown;
  roles?: unknown;
  entitlements?: unknown;
  [claim: string]: unknown;
}

export interface AccountRules {
  issuer: string;
  adminGroups: readonly string[];
  /** OIDC_GROUPS_CLAIM (null: `groups`, and the role also reads `roles` and `entitlements`). */
  groupsClaim: string | null;
  groupMap: readonly GroupMapEntry[];
  requireEmailVerified: boolean;
  autoCreateUsers: boolean;
}

const GROUP_CLAIMS = ['groups', 'roles', 'entitlements'] as const;

function names(value: unknown): string[] {
  if (typeof value === 'string') return value.split(/[\s,]+/).filter(Boolean);
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return [];
}

/** A claim by name, or by a dotted path into an object (`realm_access.roles`); undefined when absent. */
export function claimAt(claims: Claims, name: string): unknown {
  if (claims[name] !== undefined) return claims[name];
  let at: unknown = claims;
  for (const part of name.split('.')) {
    if (at === null || typeof at !== 'object' || Array.isArray(at)) return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

/** The provider's group names, or null when the claim(s) did not come (the provider said nothing). */
export function providerGroups(claims: Claims, groupsClaim: string | null): string[] | null {
  const present = (groupsClaim ? [groupsClaim] : GROUP_CLAIMS)
    .map((c) => claimAt(claims, c))
    .filter((v) => v !== undefined && v !== null);
  return present.length === 0 ? null : present.flatMap(names);
}

/** The role the provider's groups decide, or null when they decide nothing (rule 2). */
export function roleFromGroups(
  claims: Claims,
  adminGroups: readonly string[],
  groupsClaim: string | null = null,
): Role | null {
  if (adminGroups.length === 0) return null;
  const groups = providerGroups(claims, groupsClaim);
  if (groups === null) return null;
  const wanted = new Set(adminGroups.map((g) => g.toLowerCase()));
  return groups.some((g) => wanted.has(g.toLowerCase())) ? 'admin' : 'user';
}

/** The Burrow groups the map gives for the provider's groups (null: no map, or no claim — nothing changes). */
export function mappedGroups(claims: Claims, rules: Pick<AccountRules, 'groupsClaim' | 'groupMap'>): string[] | null {
  if (rules.groupMap.length === 0) return null;
  const claimed = rules.groupsClaim ? providerGroups(claims, rules.groupsClaim) : providerGroups(claims, 'groups');
  if (claimed === null) return null;
  const have = new Set(claimed.map((g) => g.toLowerCase()));
  return [...new Set(rules.groupMap.filter((e) => have.has(e.from.toLowerCase())).map((e) => e.to))];
}

const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null);

export class OidcAccounts {
  private readonly users: UsersStore;
  private readonly activity: ActivityService;
  private readonly rules: AccountRules;
  private readonly groups: DirectoryGroups | null;

  constructor(
    users: UsersStore,
    activity: ActivityService,
    rules: AccountRules,
    groups: DirectoryGroups | null = null,
  ) {
    this.users = users;
    this.activity = activity;
    this.rules = rules;
    this.groups = groups;
  }

  /** The provider's groups, mapped, become the account's provider-made memberships (logged by the access model). */
  private syncGroups(userId: string, claims: Claims, ip: string): void {
    const groups = mappedGroups(claims, this.rules);
    if (groups === null || !this.groups) return;
    this.groups.syncDirectory({ userId, source: 'oidc', groups, ip });
  }

  private bySubject(sub: string): UserRow | undefined {
    return this.users.byOidcSubject(this.rules.issuer, sub);
  }

  private freeUsername(claims: Claims): string {
    const email = text(claims.email);
    const base =
      (text(claims.preferred_username) ?? (email ? email.split('@')[0]! : null) ?? 'user')
        .replace(/[\s/\\]+/g, '-')
        .slice(0, 48) || 'user';
    for (let n = 1; ; n++) {
      const candidate = n === 1 ? base : `${base}-${n}`;
      if (this.users.findByIdentifier(candidate).length === 0) return candidate;
    }
  }

  /** The account these claims sign in to (linked or made as the rules say), roles brought up to date. */
  resolve(claims: Claims, ip: string): UserRow {
    const email = text(claims.email);
    const verified = claims.email_verified === true || claims.email_verified === 'true';
    const decided = roleFromGroups(claims, this.rules.adminGroups, this.rules.groupsClaim);
    const row = this.users.atomically(() => {
      let user = this.users.findBeforeMaking(() => this.bySubject(claims.sub));
      if (!user && email) {
        const byEmail = this.users.findByEmail(email);
        if (byEmail) {
          if (this.rules.requireEmailVerified && !verified)
            throw denied(
              'Your identity provider has not verified your email address, so it cannot be linked to an account here.',
            );
          const linked = this.users
            .methods(byEmail.id)
            .some((m) => m.type === 'oidc' && m.provider === this.rules.issuer);
          if (linked)
            throw denied('The account with this email is already linked to another identity at this provider.');
          this.users.addMethod(byEmail.id, 'oidc', this.rules.issuer, claims.sub);
          this.activity.record({
            action: 'auth.oidc-link',
            outcome: 'success',
            userId: byEmail.id,
            ip,
            detail: { issuer: this.rules.issuer, subject: claims.sub },
          });
          user = byEmail;
        }
      }
      if (!user) {
        if (!this.rules.autoCreateUsers)
          throw denied(
            'There is no account for you here, and new accounts are not created from the identity provider. Ask an administrator.',
          );
        if (this.rules.requireEmailVerified && !verified)
          throw denied('Your identity provider has not verified your email address, so no account is created for it.');
        // The first account of an installation administers it, as with setup.
        const role: Role = decided ?? (this.users.count() === 0 ? 'admin' : 'user');
        user = this.users.insert({
          username: this.freeUsername(claims),
          email,
          displayName: text(claims.name),
          passwordHash: null,
          roles: [role],
        });
        this.users.addMethod(user.id, 'oidc', this.rules.issuer, claims.sub);
        this.activity.record({
          action: 'auth.oidc-create',
          outcome: 'success',
          userId: user.id,
          username: user.username,
          ip,
          detail: { issuer: this.rules.issuer, role },
        });
        this.syncGroups(user.id, claims, ip);
        return user;
      }
      if (decided && (decided === 'admin') !== isAdminRow(user)) {
        const from = isAdminRow(user) ? 'admin' : 'user';
        this.users.update(user.id, { roles: [decided] });
        this.activity.record({
          action: 'auth.oidc-role-change',
          outcome: 'success',
          userId: user.id,
          username: user.username,
          ip,
          detail: { from, to: decided, issuer: this.rules.issuer },
        });
        user = this.users.get(user.id)!;
      }
      this.syncGroups(user.id, claims, ip);
      return user;
    });
    this.users.touchMethod(row.id, 'oidc', this.rules.issuer);
    return row;
  }
}

// The directory as Burrow speaks to it (ldapts): connect (ldaps:// with the CA given, or StartTLS
// before anything is sent), bind as the service account, search the person by the filter with
// what they typed escaped, bind as them to check the password on a connection of its own, and
// read their groups — the `memberOf` attribute, a group search (with Active Directory's in-chain
// rule, or followed level by level for nested groups elsewhere). The password goes to the
// directory only and is never kept or logged. Anything but a refused password — the directory
// down, slow, a TLS failure, the service account refused — is LDAP_UNAVAILABLE (503).
import type { Client as LdapClient, Entry } from 'ldapts';
import type { Config } from '../config.ts';
import type { GroupMapEntry } from '../config/variables.ts';
import { AppError } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import { fillFilter } from './filter.ts';

// ldapts loads at the first directory sign-in, not at start: an installation without a
// directory never carries it.
let loaded: Promise<typeof import('ldapts')> | undefined;
const ldapts = () => (loaded ??= import('ldapts'));

const NESTED_LEVELS = 8;
const MAX_GROUPS = 1000;

export interface LdapOptions {
  url: string;
  bindDn: string | null;
  bindPassword: string | null;
  userBase: string;
  userFilter: string;
  usernameAttribute: string;
  groupAttribute: string | null;
  groupBase: string | null;
  groupFilter: string;
  groupNested: boolean;
  groupMap: readonly GroupMapEntry[];
  adminGroup: string | null;
  ca: string | null;
  startTls: boolean;
  timeoutMs: number;
}

/** The options when a directory is configured (LDAP_URL), else null. */
export function ldapOptions(config: Config): LdapOptions | null {
  const l = config.ldap;
  if (!l.url || !l.userBase) return null;
  return {
    url: l.url,
    bindDn: l.bindDn,
    bindPassword: l.bindPassword ?? l.bindPasswordFile,
    userBase: l.userBase,
    userFilter: l.userFilter,
    usernameAttribute: l.usernameAttribute,
    groupAttribute: l.groupAttribute.toLowerCase() === 'none' ? null : l.groupAttribute,
    groupBase: l.groupBase,
    groupFilter: l.groupFilter,
    groupNested: l.groupNested,
    groupMap: l.groupMap,
    adminGroup: l.adminGroup,
    ca: l.caFile,
    startTls: l.startTls,
    timeoutMs: l.timeoutMs,
  };
}

/** A person found in the directory. */
export interface DirectoryPerson {
  dn: string;
  username: string;
  email: string | null;
  displayName: string | null;
  /** DNs from the group attribute. */
  memberOf: string[];
}

/** A group: its DN and its name (the first RDN's value, `cn=Staff,…` → `Staff`). */
export interface DirectoryGroup {
  dn: string;
  name: string;
}

const first = (v: Entry[string] | undefined): string | null => {
  const one = Array.isArray(v) ? v[0] : v;
  if (one === undefined) return null;
  const text = Buffer.isBuffer(one) ? one.toString('utf8') : String(one);
  return text.trim() === '' ? null : text;
};
const all = (v: Entry[string] | undefined): string[] =>
  (Array.isArray(v) ? v : v === undefined ? [] : [v]).map((x) => (Buffer.isBuffer(x) ? x.toString('utf8') : String(x)));

/** The value of a DN's first RDN, unescaped enough for a name (`cn=Eltern\, Kinder,ou=…` → `Eltern, Kinder`). */
export function rdnValue(dn: string): string {
  const bytes: number[] = [];
  const text = (t: string) => bytes.push(...Buffer.from(t, 'utf8'));
  for (let i = dn.indexOf('=') + 1; i < dn.length; i++) {
    const c = dn[i]!;
    if (c === '\\' && i + 1 < dn.length) {
      const hex = /^[0-9a-fA-F]{2}/.exec(dn.slice(i + 1, i + 3));
      if (hex) {
        bytes.push(parseInt(hex[0], 16));
        i += 2;
      } else text(dn[++i]!);
    } else if (c === ',' || c === '+') break;
    else text(c);
  }
  return Buffer.from(bytes).toString('utf8').trim();
}

/** Everything that is not the directory's "wrong password" answer becomes a 503 (details to the log). */
export class DirectoryDown extends AppError {
  constructor(detail: string, cause?: unknown) {
    super('LDAP_UNAVAILABLE', undefined, { cause });
    this.detail = detail;
  }
  readonly detail: string;
}

export class Directory {
  readonly options: LdapOptions;
  private readonly log: Logger;
  constructor(options: LdapOptions, log: Logger) {
    this.options = options;
    this.log = log;
  }

  private async client(): Promise<LdapClient> {
    const { Client } = await ldapts();
    const o = this.options;
    const tlsOptions = o.ca ? { ca: [o.ca] } : {};
    const client = new Client({
      url: o.url,
      timeout: o.timeoutMs,
      connectTimeout: o.timeoutMs,
      ...(o.url.startsWith('ldaps:') ? { tlsOptions } : {}),
    });
    if (o.startTls && o.url.startsWith('ldap:')) await client.startTLS(tlsOptions);
    return client;
  }

  private down(during: string, err: unknown): DirectoryDown {
    if (err instanceof DirectoryDown) return err;
    const e = err as { name?: string; message?: string; code?: string | number };
    const detail = `${during}: ${e.name ?? 'Error'} ${e.code ?? ''} ${e.message ?? String(err)}`.slice(0, 400);
    this.log.warn('the directory cannot be used', { detail });
    return new DirectoryDown(detail, err);
  }

  /** A connection bound as the service account (anonymous when no LDAP_BIND_DN). */
  async session<T>(fn: (client: LdapClient) => Promise<T>): Promise<T> {
    let client: LdapClient | null = null;
    try {
      client = await this.client();
      if (this.options.bindDn) await client.bind(this.options.bindDn, this.options.bindPassword ?? '');
    } catch (err) {
      await client?.unbind().catch(() => undefined);
      throw this.down('binding as the service account', err);
    }
    try {
      return await fn(client);
    } catch (err) {
      throw this.down('searching', err);
    } finally {
      await client.unbind().catch(() => undefined);
    }
  }

  /** The one person the filter finds for `username`; null when none (or, refused, more than one). */
  async find(client: LdapClient, username: string): Promise<DirectoryPerson | null> {
    const o = this.options;
    const attributes = [
      o.usernameAttribute,
      'mail',
      'displayName',
      'cn',
      ...(o.groupAttribute ? [o.groupAttribute] : []),
    ];
    const { searchEntries } = await client.search(o.userBase, {
      scope: 'sub',
      filter: fillFilter(o.userFilter, { username }),
      attributes,
      sizeLimit: 2,
      timeLimit: Math.max(1, Math.ceil(o.timeoutMs / 1000)),
    });
    if (searchEntries.length !== 1) {
      if (searchEntries.length > 1) this.log.warn('the directory filter found more than one person; nobody signs in');
      return null;
    }
    const e = searchEntries[0]!;
    const attr = (name: string) => Object.entries(e).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
    return {
      dn: e.dn,
      username: first(attr(o.usernameAttribute)) ?? username,
      email: first(attr('mail')),
      displayName: first(attr('displayName')) ?? first(attr('cn')),
      memberOf: o.groupAttribute ? all(attr(o.groupAttribute)) : [],
    };
  }

  /** Binds as the person on a connection of its own: true when the directory accepts the password. */
  async passwordAccepted(dn: string, password: string): Promise<boolean> {
    // An empty password is an unauthenticated bind (RFC 4513 §5.1.2), which a directory "accepts".
    if (password === '') return false;
    const { InvalidCredentialsError } = await ldapts();
    let client: LdapClient | null = null;
    try {
      client = await this.client();
      await client.bind(dn, password);
      return true;
    } catch (err) {
      if (err instanceof InvalidCredentialsError) return false;
      throw this.down('checking the password', err);
    } finally {
      await client?.unbind().catch(() => undefined);
    }
  }

  /** The person's groups: the attribute's DNs, then the group search (nested when configured). */
  async groups(client: LdapClient, person: DirectoryPerson): Promise<DirectoryGroup[]> {
    const o = this.options;
    const found = new Map<string, DirectoryGroup>();
    for (const dn of person.memberOf) found.set(dn.toLowerCase(), { dn, name: rdnValue(dn) });
    if (o.groupBase) {
      const search = async (dn: string) =>
        (
          await client.search(o.groupBase!, {
            scope: 'sub',
            filter: fillFilter(o.groupFilter, { dn, username: person.username }),
            attributes: ['cn'],
            sizeLimit: MAX_GROUPS,
          })
        ).searchEntries.map((e) => ({ dn: e.dn, name: first(e.cn) ?? rdnValue(e.dn) }));
      // Each group is searched for its parents once, whether the attribute or a search found it.
      const expanded = new Set<string>();
      let level = await search(person.dn);
      for (let depth = 0; level.length > 0 && found.size < MAX_GROUPS; depth++) {
        for (const g of level) if (!found.has(g.dn.toLowerCase())) found.set(g.dn.toLowerCase(), g);
        if (!o.groupNested || depth >= NESTED_LEVELS) break;
        const next = (depth === 0 ? [...found.values()] : level).filter((g) => !expanded.has(g.dn.toLowerCase()));
        for (const g of next) expanded.add(g.dn.toLowerCase());
        level = (await Promise.all(next.map((g) => search(g.dn)))).flat();
      }
    } else if (o.groupNested && person.memberOf.length > 0) {
      // memberOf only: the parents of each group are read from the groups' own memberOf.
      let level = [...found.values()];
      for (let depth = 0; level.length > 0 && depth < NESTED_LEVELS && found.size < MAX_GROUPS; depth++) {
        const next: DirectoryGroup[] = [];
        for (const g of level) {
          const { searchEntries } = await client.search(g.dn, {
            scope: 'base',
            filter: '(objectClass=*)',
            attributes: [o.groupAttribute!],
          });
          for (const e of searchEntries)
            for (const [k, v] of Object.entries(e))
              if (k.toLowerCase() === o.groupAttribute!.toLowerCase())
                for (const dn of all(v))
                  if (!found.has(dn.toLowerCase())) {
                    const parent = { dn, name: rdnValue(dn) };
                    found.set(dn.toLowerCase(), parent);
                    next.push(parent);
                  }
        }
        level = next;
      }
    }
    return [...found.values()];
  }

  /** `burrow doctor`: connect, bind as the service account, find the people's base. */
  async probe(): Promise<string> {
    return this.session(async (client) => {
      const { searchEntries } = await client.search(this.options.userBase, {
        scope: 'base',
        filter: '(objectClass=*)',
        attributes: ['objectClass'],
      });
      if (searchEntries.length === 0) throw new Error(`${this.options.userBase} was not found`);
      return `${this.options.url}${this.options.startTls ? ' (StartTLS)' : ''}: bound${this.options.bindDn ? ` as ${this.options.bindDn}` : ' anonymously'}, ${this.options.userBase} found`;
    });
  }
}

/** Does a directory group match a name of the configuration (its cn or its whole DN, case-insensitively)? */
export function groupMatches(group: DirectoryGroup, name: string): boolean {
  const dn = (s: string) =>
    s
      .trim()
      .replace(/\s*,\s*/g, ',')
      .toLowerCase();
  return dn(group.dn) === dn(name) || group.name.toLowerCase() === name.trim().toLowerCase();
}

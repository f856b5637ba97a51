// The access model as a service: the one check every path asks (levelAt, through the resolver),
// the groups and their members, the per-folder rules, and the explainer ("what can X do at this
// folder, and which rule decides"). Rules are read into a snapshot kept in the installation's
// configuration cache (cluster/config-cache.ts): every change here drops it; on the embedded
// database it is also read again after a second (an account deleted elsewhere takes its rules
// along); on PostgreSQL a change through any instance, an account's deletion included, holds on
// every instance's next request.
// Who may change rules at a folder: an administrator, or a person an explicit `manage` rule
// names there; the level everyone has where no rule speaks (`manage`) manages files, not rules.
import { AppError } from '../core/errors.ts';
import type { Caller } from '../core/caller.ts';
import type { Logger } from '../core/log.ts';
import type { ConfigCache } from '../cluster/config-cache.ts';
import { callerMayWrite, type AccessLevel } from '../files/access.ts';
import { parseVirtualPath, type InsidePath, type PathResolver } from '../files/paths.ts';
import { decide, rank, snapshotOf, type Decision, type Rule, type Snapshot } from './decide.ts';
import type { AccessStore } from './store.ts';

export interface AccessModelDeps {
  store: AccessStore;
  /** Where the snapshot is kept; without one it is read for every check. */
  cache?: ConfigCache;
  log: Logger;
  record: (event: {
    action: string;
    outcome: 'success';
    userId: string;
    ip: string;
    detail: Record<string, unknown>;
  }) => void;
  /**
   * The resolver every request goes through (built after the model, so asked at each call): the
   * explainer resolves the folder as the person would, so its answer carries what the volume
   * adds to the rules — read-only, assigned to other accounts, a storage or folder the process
   * may not write, a read token — exactly as a request of theirs meets it.
   */
  resolver?: () => Pick<PathResolver, 'resolve' | 'spaces'>;
}

/** A directory whose sign-ins keep group memberships: the identity provider, LDAP. */
export type DirectorySource = 'oidc' | 'ldap';

/** What a sign-in through a directory asks of the access model. */
export type DirectoryGroups = Pick<AccessModel, 'syncDirectory'>;

export interface SubjectInput {
  kind: Rule['subjectKind'];
  id?: string | undefined;
}

/** What a level lets a person do, as the explainer and the "Who has access" panel say it. */
export function abilities(level: AccessLevel) {
  const at = (l: AccessLevel) =>
    ['hidden', 'view', 'read', 'write', 'manage'].indexOf(level) >=
    ['hidden', 'view', 'read', 'write', 'manage'].indexOf(l);
  return { see: at('view'), download: at('read'), write: at('write'), delete: at('manage'), share: at('manage') };
}

/**
 * What, beyond the rules, takes something away at a folder: the volume is read-only (its access
 * mode), its storage is (a read-only mount), the host does not let Burrow write the folder, the
 * caller's token only reads, or the folder is in no volume the account reaches (an account given
 * assigned volumes sees only those; an assigned volume is its account's alone).
 */
export type Limit = 'volume-read-only' | 'storage-read-only' | 'not-writable-here' | 'read-token' | 'not-their-volume';

/** An account as a request of its own would be: through a session, no token. */
const personOf = (account: { id: string; username: string }): Caller => ({
  userId: account.id,
  username: account.username,
  roles: [],
  isAdmin: false,
  via: 'session',
});

/** Why the place refuses writing that the rules allow (null: it does not). */
function writeLimit(person: Caller, place: InsidePath): Limit | null {
  if (place.access.canWrite) return null;
  const space = place.space.readOnly;
  if (space === 'storage' || place.access.readOnly === 'storage') return 'storage-read-only';
  if (space === 'access') return 'volume-read-only';
  if (space === 'permission' || place.access.readOnly === 'permission') return 'not-writable-here';
  return callerMayWrite(person) ? null : 'read-token';
}

const FRESH_MS = 1000;

export type AccessModel = ReturnType<typeof createAccessModel>;

export function createAccessModel({ store, log, record, cache, resolver }: AccessModelDeps) {
  const load = (): Snapshot => snapshotOf(store.rules(), store.memberships());
  const snapshot = (): Snapshot => (cache ? cache.read('access', load, { maxAgeMs: FRESH_MS }) : load());
  const changed = () => cache?.drop();

  const check = (userId: string, virtualPath: string): Decision => decide(snapshot(), userId, virtualPath);

  /** A rule's folder: a path inside a space, spelled as the resolver spells it. */
  function rulePath(input: string): string {
    const segments = parseVirtualPath(input);
    if (segments.length === 0)
      throw new AppError('BAD_PATH', 'Name a folder: a rule speaks for a folder of a volume and what is below it.');
    if (segments[0] === 'share')
      throw new AppError('BAD_PATH', 'A link is not a folder of its own: set the rule on the shared folder.');
    return segments.join('/').normalize('NFC');
  }

  /** Administrators, and whoever an explicit manage rule names at the folder, may change who has access there. */
  function assertManages(caller: Caller, path: string): void {
    if (caller.link) throw new AppError('ACCESS_NOT_MANAGER');
    if (caller.isAdmin) return;
    const d = check(caller.userId, path);
    if (d.level === 'hidden') throw new AppError('NOT_FOUND', 'No such file or folder.');
    if (d.level !== 'manage' || d.rule === null) throw new AppError('ACCESS_NOT_MANAGER');
  }

  function groupOr404(id: string) {
    const g = store.group(id);
    if (!g) throw new AppError('GROUP_NOT_FOUND');
    return g;
  }

  function groupName(name: string): string {
    const n = name.normalize('NFC').trim();
    if (n === '' || n.length > 100 || /[\u0000-\u001f\u007f]/.test(n))
      throw new AppError('INVALID_BODY', 'A group name is 1 to 100 characters, without control characters.');
    return n;
  }

  function subjectOf(input: SubjectInput): { subjectKind: Rule['subjectKind']; subjectId: string } {
    if (input.kind === 'everyone') return { subjectKind: 'everyone', subjectId: '' };
    const id = input.id ?? '';
    if (input.kind === 'group') groupOr404(id);
    else if (!store.accountExists(id)) throw new AppError('USER_NOT_FOUND');
    return { subjectKind: input.kind, subjectId: id };
  }

  function names() {
    const groups = new Map(store.groups().map((g) => [g.id, g.name]));
    const accounts = new Map(store.accounts().map((a) => [a.id, a.username]));
    return (r: Rule) => ({
      kind: r.subjectKind,
      id: r.subjectId,
      name:
        r.subjectKind === 'everyone'
          ? 'Everyone'
          : ((r.subjectKind === 'group' ? groups.get(r.subjectId) : accounts.get(r.subjectId)) ?? r.subjectId),
    });
  }

  /** The rules at a folder and at every folder above it, nearest last. */
  function rulesAbove(p: string): Rule[] {
    const segments = p.split('/');
    const above = new Set(segments.map((_, i) => segments.slice(0, i + 1).join('/')));
    return store
      .rules()
      .filter((r) => above.has(r.path.normalize('NFC')))
      .sort((a, b) => a.path.length - b.path.length);
  }

  function ruleWire(r: Rule, subject: ReturnType<ReturnType<typeof names>>) {
    return { id: r.id, path: r.path, subject, level: r.level, inherit: r.inherit };
  }

  /**
   * What a person can do at a folder and why: the rules' decision, then the folder resolved as
   * their request would resolve it — so a read-only volume, an assigned one, the storage and a
   * read token say here what they say to the request. `level` is what they have (the rules'
   * level, capped at read where they cannot write); `ruleLevel` what the rules alone give.
   */
  async function explainFor(person: Caller, path: string, name: ReturnType<typeof names>) {
    const d = check(person.userId, path);
    const ruled = {
      ruleLevel: d.level,
      decidedBy: d.rule ? ('rule' as const) : ('default' as const),
      rule: d.rule ? ruleWire(d.rule, name(d.rule)) : null,
    };
    if (d.level === 'hidden' || !resolver) return { level: d.level, can: abilities(d.level), limit: null, ...ruled };
    const paths = resolver();
    let place: InsidePath;
    try {
      const resolved = await paths.resolve(person, path);
      if (!resolved.space) throw new AppError('NOT_FOUND');
      place = resolved;
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'NOT_FOUND') throw err;
      const first = path.split('/')[0];
      const theirs = (await paths.spaces(person)).some((s) => s.path === first);
      // Inside one of their volumes, a folder no account reaches (Burrow's own, another's personal folder).
      if (theirs) throw err;
      return {
        level: 'hidden' as const,
        can: abilities('hidden'),
        limit: 'not-their-volume' as const,
        ...ruled,
        decidedBy: 'volume' as const,
      };
    }
    const a = place.access;
    // The resolver's own answer: a read token shares nothing (a new link is a change).
    const can = { see: a.canRead, download: a.canDownload, write: a.canWrite, delete: a.canDelete, share: a.canShare };
    const limit = rank(d.level) > rank('read') ? writeLimit(person, place) : null;
    if (!limit) return { level: d.level, can, limit, ...ruled };
    return {
      level: 'read' as const,
      can,
      limit,
      ...ruled,
      decidedBy: limit === 'read-token' ? ('token' as const) : ('volume' as const),
    };
  }

  function log_(caller: Caller, ip: string, action: string, detail: Record<string, unknown>) {
    log.info('access model changed', { action, by: caller.username, ...detail });
    record({ action, outcome: 'success', userId: caller.userId, ip, detail });
  }

  return {
    check,
    levelAt: (userId: string, virtualPath: string): AccessLevel => check(userId, virtualPath).level,
    /** The folders rules are set at (NFC): where a level can change below a folder. */
    rulePaths: (): string[] => [...snapshot().byPath.keys()],

    /** The groups an account is in now (quotas take their defaults from them). */
    groupsOf(userId: string): { id: string; name: string }[] {
      const ids = new Set(
        store
          .memberships()
          .filter((m) => m.userId === userId)
          .map((m) => m.groupId),
      );
      return ids.size
        ? store
            .groups()
            .filter((g) => ids.has(g.id))
            .map((g) => ({ id: g.id, name: g.name }))
        : [];
    },

    groups() {
      const members = store.memberships();
      const accounts = new Map(store.accounts().map((a) => [a.id, a.username]));
      return {
        groups: store.groups().map((g) => ({
          id: g.id,
          name: g.name,
          createdAt: g.createdAt,
          members: members
            .filter((m) => m.groupId === g.id)
            .map((m) => ({
              id: m.userId,
              username: accounts.get(m.userId) ?? m.userId,
              source: (m.source as DirectorySource | null) ?? null,
            }))
            .sort((a, b) => a.username.localeCompare(b.username)),
        })),
      };
    },

    createGroup(caller: Caller, name: string, ip: string) {
      const n = groupName(name);
      // Taken here, or by another instance's request this moment (the unique name).
      const g = store.groupNamed(n) ? undefined : store.addGroup(n);
      if (!g) throw new AppError('GROUP_NAME_TAKEN');
      changed();
      log_(caller, ip, 'access.group-create', { groupId: g.id, name: n });
      return { group: { id: g.id, name: g.name, createdAt: g.createdAt, members: [] } };
    },

    renameGroup(caller: Caller, id: string, name: string, ip: string) {
      const before = groupOr404(id);
      const n = groupName(name);
      const other = store.groupNamed(n);
      const renamed = other && other.id !== id ? 'taken' : store.renameGroup(id, n);
      if (renamed === 'taken') throw new AppError('GROUP_NAME_TAKEN');
      if (renamed === 'missing') throw new AppError('GROUP_NOT_FOUND');
      log_(caller, ip, 'access.group-rename', { groupId: id, from: before.name, to: n });
      return { group: { id, name: n } };
    },

    deleteGroup(caller: Caller, id: string, ip: string): void {
      const g = groupOr404(id);
      store.removeGroup(id);
      changed();
      log_(caller, ip, 'access.group-delete', { groupId: id, name: g.name });
    },

    addMember(caller: Caller, groupId: string, userId: string, ip: string): void {
      const g = groupOr404(groupId);
      if (!store.accountExists(userId)) throw new AppError('USER_NOT_FOUND');
      if (store.addMember(groupId, userId)) {
        changed();
        log_(caller, ip, 'access.member-add', { groupId, group: g.name, member: userId });
      }
    },

    removeMember(caller: Caller, groupId: string, userId: string, ip: string): void {
      const g = groupOr404(groupId);
      if (store.removeMember(groupId, userId)) {
        changed();
        log_(caller, ip, 'access.member-remove', { groupId, group: g.name, member: userId });
      }
    },

    /**
     * A directory's word on an account's groups at sign-in (the identity provider's claim, LDAP):
     * joins the named Burrow groups (made when missing) and leaves the groups this directory put
     * the account in that it no longer names. Memberships added by hand are never touched, and
     * a group the account is already in by hand stays the administrator's. Each change is logged.
     */
    syncDirectory(input: { userId: string; source: DirectorySource; groups: readonly string[]; ip: string }): {
      joined: string[];
      left: string[];
    } {
      const joined: string[] = [];
      const left: string[] = [];
      const event = (action: string, detail: Record<string, unknown>) => {
        log.info('access model changed', { action, source: input.source, ...detail });
        record({
          action,
          outcome: 'success',
          userId: input.userId,
          ip: input.ip,
          detail: { source: input.source, ...detail },
        });
      };
      store.transaction(() => {
        const wanted = new Map<string, string>();
        for (const raw of input.groups) {
          let n: string;
          try {
            n = groupName(raw);
          } catch {
            log.warn('a directory group name is not usable here', { source: input.source });
            continue;
          }
          let g = store.groupNamed(n);
          if (!g) {
            // The same person's (or another's) sign-in on another instance may be making it now.
            const { group, made } = store.groupNamedOrMade(n);
            g = group;
            if (made) event('access.group-create', { groupId: g.id, name: n });
          }
          wanted.set(g.id, g.name);
        }
        const had = store.membershipsOf(input.userId);
        for (const [groupId, name] of wanted) {
          if (had.some((m) => m.groupId === groupId)) continue;
          if (store.addDirectoryMember(groupId, input.userId, input.source)) {
            joined.push(name);
            event('access.member-add', { groupId, group: name, member: input.userId });
          }
        }
        for (const m of had) {
          if (m.source !== input.source || wanted.has(m.groupId)) continue;
          if (store.removeDirectoryMember(m.groupId, input.userId, input.source)) {
            const name = store.group(m.groupId)?.name ?? m.groupId;
            left.push(name);
            event('access.member-remove', { groupId: m.groupId, group: name, member: input.userId });
          }
        }
      });
      if (joined.length || left.length) changed();
      return { joined, left };
    },

    /**
     * A volume for one group (administrators): at its root — `path`, the volume's label — the
     * group's level and hidden for everyone else, written in one transaction after `first` (the
     * volume's own row when it is being added), so a refusal leaves neither. Logged as
     * `access.volume-give`, naming the volume, the group, the level and the two rules.
     */
    giveVolume<T>(
      caller: Caller,
      input: { path: string; groupId: string; level: 'read' | 'write' | 'manage' },
      ip: string,
      first: () => T,
    ) {
      if (!caller.isAdmin || caller.link) throw new AppError('ADMIN_ONLY');
      const p = rulePath(input.path);
      const g = groupOr404(input.groupId);
      const { made, rules } = store.transaction(() => {
        const made = first();
        // Asked again inside: a group deleted meanwhile refuses the whole, the volume included.
        groupOr404(g.id);
        const rules = [
          store.putRule({ path: p, subjectKind: 'group', subjectId: g.id, level: input.level, inherit: true }),
          store.putRule({ path: p, subjectKind: 'everyone', subjectId: '', level: 'hidden', inherit: true }),
        ];
        return { made, rules };
      });
      changed();
      log_(caller, ip, 'access.volume-give', {
        path: p,
        groupId: g.id,
        group: g.name,
        level: input.level,
        rules: rules.map((r) => r.id),
      });
      const name = names();
      return { made, rules: rules.map((r) => ruleWire(r, name(r))) };
    },

    /** Rules at `path` and at every folder above it (all of them, without a path: administrators). */
    rules(caller: Caller, path?: string) {
      const name = names();
      if (path === undefined) {
        if (!caller.isAdmin) throw new AppError('ADMIN_ONLY');
        return { rules: store.rules().map((r) => ruleWire(r, name(r))) };
      }
      const p = rulePath(path);
      assertManages(caller, p);
      return { rules: rulesAbove(p).map((r) => ruleWire(r, name(r))) };
    },

    setRule(
      caller: Caller,
      input: { path: string; subject: SubjectInput; level: AccessLevel; inherit?: boolean | undefined },
      ip: string,
    ) {
      const p = rulePath(input.path);
      assertManages(caller, p);
      const rule = store.putRule({
        path: p,
        ...subjectOf(input.subject),
        level: input.level,
        inherit: input.inherit ?? true,
      });
      changed();
      log_(caller, ip, 'access.rule-set', { ruleId: rule.id, path: p, subject: input.subject, level: input.level });
      return { rule: ruleWire(rule, names()(rule)) };
    },

    removeRule(caller: Caller, id: string, ip: string): void {
      const rule = store.rule(id);
      if (!rule) throw new AppError('RULE_NOT_FOUND');
      assertManages(caller, rule.path);
      store.removeRule(id);
      changed();
      log_(caller, ip, 'access.rule-remove', { ruleId: id, path: rule.path, level: rule.level });
    },

    /**
     * What an account can do at a folder and what decides (one's own always, as this request
     * would be, its token included; another's: administrators and managers).
     */
    async explain(caller: Caller, path: string, userId: string | undefined) {
      const p = rulePath(path);
      const who = userId ?? caller.userId;
      if (who !== caller.userId) assertManages(caller, p);
      else if (!caller.isAdmin && check(who, p).level === 'hidden')
        throw new AppError('NOT_FOUND', 'No such file or folder.');
      const account = store.accounts().find((a) => a.id === who);
      if (!account && who !== caller.userId) throw new AppError('USER_NOT_FOUND');
      const person = who === caller.userId ? caller : personOf(account!);
      const answer = await explainFor(person, p, names());
      if (who === caller.userId && !caller.isAdmin && answer.level === 'hidden')
        throw new AppError('NOT_FOUND', 'No such file or folder.');
      return { path: p, account: { id: who, username: account?.username ?? caller.username }, ...answer };
    },

    /** The folder's "Who has access": every account's level there and what decides it, and the rules in force. */
    async who(caller: Caller, path: string) {
      const p = rulePath(path);
      assertManages(caller, p);
      const name = names();
      const accounts = [];
      for (const a of store.accounts()) accounts.push({ account: a, ...(await explainFor(personOf(a), p, name)) });
      return {
        path: p,
        accounts,
        rules: rulesAbove(p).map((r) => ruleWire(r, name(r))),
        groups: store.groups().map((g) => ({ id: g.id, name: g.name })),
      };
    },

    /** The installation settings' rule list (wire-shapes §9) read from and written to everyone's rules. */
    /** Rules as path-bound rows: carried by renames and moves (app.ts lists it among the bindings). */
    binding: store.binding(() => changed()),

    everyone: {
      list: () =>
        store.everyoneRules().map((r) => ({
          id: r.id,
          path: r.path,
          recursive: r.inherit,
          permissions:
            r.level === 'hidden'
              ? ('hidden' as const)
              : r.level === 'write' || r.level === 'manage'
                ? ('rw' as const)
                : ('ro' as const),
        })),
      replace(rules: { id: string; path: string; recursive: boolean; permissions: 'rw' | 'ro' | 'hidden' }[]): void {
        // One rule per path: a hidden one wins, as it did before; otherwise the first.
        const kept = new Map<string, (typeof rules)[number]>();
        for (const r of rules) {
          const had = kept.get(r.path);
          if (r.path !== '' && (!had || (r.permissions === 'hidden' && had.permissions !== 'hidden')))
            kept.set(r.path, r);
        }
        // Below a hidden folder a rule did nothing before; now the nearest decides, so it is left out.
        const hidden = [...kept.values()].filter((r) => r.permissions === 'hidden').map((r) => r.path + '/');
        const ordered = rules.filter(
          (r) => kept.get(r.path) === r && (r.permissions === 'hidden' || !hidden.some((h) => r.path.startsWith(h))),
        );
        store.replaceEveryone(
          ordered.map((r) => ({
            id: r.id,
            path: r.path,
            level: r.permissions === 'hidden' ? 'hidden' : r.permissions === 'ro' ? 'read' : 'manage',
            inherit: r.permissions === 'hidden' || r.recursive,
          })),
        );
        changed();
      },
    },
  };
}

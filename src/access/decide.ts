// The one decision of the access model, as pure logic over a snapshot of the rules and the
// groups: what a person may do at a virtual path, and which rule says so. The nearest folder
// (the path itself, then each folder above) holding a rule that names the person — their
// account, a group they belong to, or everyone — decides; among that folder's rules the lowest
// level wins (a deny beats an allow at the same folder). Everyone's rule there speaks for everyone
// else: for a person no account or group rule of that folder names (so "the group Parents
// writes, everyone else: hidden" at a volume's root is a volume for one group). A rule that does not inherit speaks
// only for its own folder, except `hidden`, which always reaches everything below. No rule at
// all: `manage`, what every account could do before the model existed.
import { LEVELS, type AccessLevel } from '../files/access.ts';

export interface Rule {
  id: string;
  path: string;
  subjectKind: 'account' | 'group' | 'everyone';
  subjectId: string;
  level: AccessLevel;
  inherit: boolean;
}

export interface Decision {
  level: AccessLevel;
  /** The rule that decided, or null when no rule names the person anywhere above. */
  rule: Rule | null;
}

export interface Snapshot {
  /** Rules by their path. */
  byPath: ReadonlyMap<string, readonly Rule[]>;
  /** Group ids by member account. */
  groupsOf: ReadonlyMap<string, ReadonlySet<string>>;
}

export const DEFAULT_LEVEL: AccessLevel = 'manage';

export const rank = (level: AccessLevel): number => LEVELS.indexOf(level);

export function snapshotOf(
  rules: readonly Rule[],
  memberships: readonly { groupId: string; userId: string }[],
): Snapshot {
  const byPath = new Map<string, Rule[]>();
  for (const r of rules) {
    // Names are compared as NFC: a rule typed one way holds for a folder spelled the other way.
    const key = r.path.normalize('NFC');
    const list = byPath.get(key) ?? [];
    list.push(r);
    byPath.set(key, list);
  }
  const groupsOf = new Map<string, Set<string>>();
  for (const m of memberships) {
    const set = groupsOf.get(m.userId) ?? new Set<string>();
    set.add(m.groupId);
    groupsOf.set(m.userId, set);
  }
  return { byPath, groupsOf };
}

function names(rule: Rule, userId: string, groups: ReadonlySet<string> | undefined): boolean {
  if (rule.subjectKind === 'everyone') return true;
  if (rule.subjectKind === 'account') return rule.subjectId === userId;
  return groups?.has(rule.subjectId) === true;
}

/**
 * The rules of one folder that speak for the person there (`own`: the path itself, not a folder
 * above): those naming their account or a group of theirs, or else everyone's (everyone else).
 */
function speaking(snapshot: Snapshot, folder: string, userId: string, own: boolean): Rule[] {
  const rules = snapshot.byPath.get(folder);
  if (!rules) return [];
  const groups = snapshot.groupsOf.get(userId);
  const named = rules.filter((r) => names(r, userId, groups) && (own || r.inherit || r.level === 'hidden'));
  const theirs = named.filter((r) => r.subjectKind !== 'everyone');
  return theirs.length ? theirs : named;
}

/** The lowest level among rules (ties: an account's rule is named before a group's). */
function lowest(rules: Rule[]): Rule {
  const kind = { account: 0, group: 1, everyone: 2 } as const;
  return rules.reduce((best, r) =>
    rank(r.level) < rank(best.level) || (r.level === best.level && kind[r.subjectKind] < kind[best.subjectKind])
      ? r
      : best,
  );
}

export function decide(snapshot: Snapshot, userId: string, virtualPath: string): Decision {
  if (snapshot.byPath.size === 0) return { level: DEFAULT_LEVEL, rule: null };
  const segments = virtualPath.normalize('NFC').split('/').filter(Boolean);
  for (let n = segments.length; n > 0; n--) {
    const rules = speaking(snapshot, segments.slice(0, n).join('/'), userId, n === segments.length);
    if (rules.length) {
      const rule = lowest(rules);
      return { level: rule.level, rule };
    }
  }
  return { level: DEFAULT_LEVEL, rule: null };
}

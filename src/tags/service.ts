// Tags: an account's own words on files and folders it can see. Each account's tags are its
// own (its items never shown to another); a tagged item the account can no longer see (a
// hidden rule, a folder no longer assigned) is left out of every answer but keeps its tag. An
// account may share a tag's name with a group it is in: the group's members see it and reuse
// it (the same spelling on their own items), a non-member never sees it.
import fs from 'node:fs';
import type { Caller } from '../core/caller.ts';
import { AppError } from '../core/errors.ts';
import { fileItem, splitVirtual } from '../files/items.ts';
import type { PathResolver } from '../files/paths.ts';
import type { TagStore } from './store.ts';
import { TAG_MAX, type PathTags, type PathTagsList, type TagList, type TaggedFiles, type TaggedItem } from './wire.ts';

/** The tag as kept (NFC, trimmed, inner spaces as one) and the key it is compared by. */
export function tagOf(raw: string): { tag: string; key: string } {
  const tag = raw.normalize('NFC').trim().replace(/ +/gu, ' ');
  // eslint-disable-next-line no-control-regex
  if (tag === '' || [...tag].length > TAG_MAX || /[/,\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(tag))
    throw new AppError(
      'BAD_TAG',
      `“${raw.slice(0, 80)}” is not a tag: 1 to ${TAG_MAX} characters, without “/”, “,” or control characters.`,
    );
  return { tag, key: tagKey(tag) };
}
export const tagKey = (tag: string): string => tag.normalize('NFC').trim().replace(/ +/gu, ' ').toLowerCase();

export function createTags(deps: {
  resolver: PathResolver;
  store: TagStore;
  /** The groups an account is in now (the access model's). */
  groupsOf: (userId: string) => { id: string; name: string }[];
}) {
  const { resolver, store } = deps;

  /** The account's tags with the groups it shares each with, and the tags its groups' other members share. */
  function list(userId: string): TagList {
    const groups = deps.groupsOf(userId);
    const named = new Map(groups.map((g) => [g.id, g]));
    const sharing = store.sharedGroups(userId);
    const tags = store.vocabulary(userId).map((t) => ({
      ...t,
      groups: (sharing.get(tagKey(t.name)) ?? []).flatMap((id) => (named.has(id) ? [named.get(id)!] : [])),
    }));
    const own = new Set(tags.map((t) => tagKey(t.name)));
    const shared = new Map<string, { name: string; groups: { id: string; name: string }[] }>();
    for (const row of store.sharedWith(
      userId,
      groups.map((g) => g.id),
    )) {
      if (own.has(row.key)) continue;
      const entry = shared.get(row.key) ?? { name: row.tag, groups: [] };
      if (!entry.groups.some((g) => g.id === row.groupId)) entry.groups.push(named.get(row.groupId)!);
      shared.set(row.key, entry);
    }
    return { tags, groups, shared: [...shared.values()] };
  }

  /** One of the caller's groups, or 404 (another group is as if it did not exist). */
  function ownGroup(caller: Caller, groupId: string): { id: string; name: string } {
    const group = deps.groupsOf(caller.userId).find((g) => g.id === groupId);
    if (!group) throw new AppError('NOT_FOUND', 'No such group among yours.');
    return group;
  }

  /** The spelling a tag takes for this account: its own, else one its groups share, else as typed. */
  function spelled(userId: string, t: { tag: string; key: string }): { tag: string; key: string } {
    const own = store.spelling(userId, t.key);
    if (own !== undefined) return { tag: own, key: t.key };
    const groups = deps.groupsOf(userId).map((g) => g.id);
    const shared = store.sharedWith(userId, groups).find((r) => r.key === t.key);
    return { tag: shared?.tag ?? t.tag, key: t.key };
  }

  /** The item at a virtual path as this caller sees it, or null (gone, hidden, no longer reachable). */
  async function visible(caller: Caller, virtualPath: string, tags: string[]): Promise<TaggedItem | null> {
    try {
      const r = await resolver.resolve(caller, virtualPath, { mustExist: true });
      if (!r.space || !r.exists) return null;
      const stats = await fs.promises.stat(r.realPath);
      const { parent, name } = splitVirtual(r.virtualPath);
      return { ...fileItem(parent, name, stats), tags };
    } catch {
      return null;
    }
  }

  return {
    list: (caller: Caller): TagList => list(caller.userId),

    async files(caller: Caller, name: string): Promise<TaggedFiles> {
      const { tag, key } = tagOf(name);
      const paths = store.pathsWith(caller.userId, key);
      const all = store.tagsOf(caller.userId, paths);
      const items: TaggedItem[] = [];
      for (const p of paths) {
        const item = await visible(caller, p, all.get(p) ?? []);
        if (item) items.push(item);
      }
      return { tag: store.spelling(caller.userId, key) ?? tag, items };
    },

    /** Tags of the items directly inside a folder (what a listing shows as chips). */
    async inFolder(caller: Caller, folder: string): Promise<PathTagsList> {
      const r = await resolver.resolve(caller, folder, { mustExist: true });
      if (!r.isDirectory) throw new AppError('NOT_A_FOLDER');
      const hidden = resolver.hiddenChildren(caller, r);
      const byPath = new Map<string, string[]>();
      for (const row of store.childrenOf(caller.userId, r.virtualPath)) {
        if (hidden(splitVirtual(row.path).name)) continue;
        byPath.set(row.path, [...(byPath.get(row.path) ?? []), row.tag]);
      }
      return { items: [...byPath].map(([path, tags]) => ({ path, tags })) };
    },

    /** Tags of one item (the details panel). */
    async of(caller: Caller, path: string): Promise<PathTags> {
      const r = await resolver.resolveInside(caller, path, { mustExist: true, atTop: 'The top has no tags.' });
      return { path: r.virtualPath, tags: store.tagsOf(caller.userId, [r.virtualPath]).get(r.virtualPath) ?? [] };
    },

    /** Adds and removes tags on several items at once: all of them or none. */
    async apply(caller: Caller, paths: string[], add: string[] = [], remove: string[] = []): Promise<PathTagsList> {
      const adding = add.map(tagOf).map((t) => spelled(caller.userId, t));
      const removing = remove.map((t) => tagOf(t).key);
      if (!adding.length && !removing.length) throw new AppError('BAD_TAG', 'Name a tag to add or remove.');
      const targets: string[] = [];
      for (const p of paths) {
        const r = await resolver.resolveInside(caller, p, { mustExist: true, atTop: 'The top cannot be tagged.' });
        if (!targets.includes(r.virtualPath)) targets.push(r.virtualPath);
      }
      store.apply(caller.userId, targets, adding, removing);
      const tags = store.tagsOf(caller.userId, targets);
      return { items: targets.map((path) => ({ path, tags: tags.get(path) ?? [] })) };
    },

    rename(caller: Caller, from: string, to: string): TagList {
      const next = tagOf(to);
      if (!store.rename(caller.userId, tagOf(from).key, next)) throw new AppError('NOT_FOUND', 'No such tag.');
      return list(caller.userId);
    },

    drop(caller: Caller, name: string): TagList {
      if (!store.drop(caller.userId, tagOf(name).key)) throw new AppError('NOT_FOUND', 'No such tag.');
      return list(caller.userId);
    },

    /** Shares one of the caller's tags (its name) with one of the caller's groups. */
    share(caller: Caller, name: string, groupId: string): TagList {
      const { key } = tagOf(name);
      const group = ownGroup(caller, groupId);
      const tag = store.spelling(caller.userId, key);
      if (tag === undefined) throw new AppError('NOT_FOUND', 'No such tag.');
      store.share(caller.userId, { tag, key }, group.id);
      return list(caller.userId);
    },

    /** Stops sharing one of the caller's tags with a group (the caller's own sharing only). */
    unshare(caller: Caller, name: string, groupId: string): TagList {
      const { key } = tagOf(name);
      if (!store.unshare(caller.userId, key, groupId))
        throw new AppError('NOT_FOUND', 'This tag is not shared with that group.');
      return list(caller.userId);
    },
  };
}
export type Tags = ReturnType<typeof createTags>;

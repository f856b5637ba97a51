// Tags as the page keeps them: the account's vocabulary (the sidebar), the tags of the open
// folder's entries (chips in the list), and the one way to change them (POST /api/tags/apply).
import { signal } from '@preact/signals';
import { api, queryString } from '../api/client.ts';
import type { TagList, TagSummary } from '../api/types.ts';

export const tagVocabulary = signal<TagSummary[]>([]);
/** Tags other members of the account's groups share, to reuse (their names only). */
export const groupTags = signal<TagList['shared']>([]);
/** The account's groups: where it may share a tag. */
export const myGroups = signal<TagList['groups']>([]);
/** Tags of the open folder's entries by full path. */
export const folderTags = signal<Readonly<Record<string, string[]>>>({});
/** Counts changes made here: open panels and the tag page read again on it. */
export const tagsRev = signal(0);

/** `/tags?tag=…`: everything tagged with it, a place of its own. */
export const tagUrl = (tag: string) => `/tags?${queryString({ tag })}`;

export async function refreshTags(): Promise<void> {
  try {
    const answer = await api('GET /api/tags');
    tagVocabulary.value = answer.tags;
    groupTags.value = answer.shared;
    myGroups.value = answer.groups;
  } catch {
    /* the sidebar keeps what it had */
  }
}

let folderSeq = 0;
export async function loadFolderTags(path: string): Promise<void> {
  const seq = ++folderSeq;
  if (!path) {
    folderTags.value = {};
    return;
  }
  try {
    const answer = await api('GET /api/tags/folder', { query: { path } });
    if (seq === folderSeq) folderTags.value = Object.fromEntries(answer.items.map((i) => [i.path, i.tags]));
  } catch {
    if (seq === folderSeq) folderTags.value = {};
  }
}

/** Adds and removes tags on these items; the open folder's chips and the sidebar follow. */
export async function applyTags(paths: string[], add: string[], remove: string[]): Promise<Record<string, string[]>> {
  const answer = await api('POST /api/tags/apply', { body: { paths, add, remove } });
  const now = Object.fromEntries(answer.items.map((i) => [i.path, i.tags]));
  const next = { ...folderTags.value };
  for (const [p, tags] of Object.entries(now)) next[p] = tags;
  folderTags.value = next;
  tagsRev.value++;
  void refreshTags();
  return now;
}

export function TagChips({ tags, small }: { tags: readonly string[] | undefined; small?: boolean }) {
  if (!tags?.length) return null;
  return (
    <span class={small ? 'tag-chips small' : 'tag-chips'} aria-label="Tags">
      {tags.map((t) => (
        <span key={t} class="tag-chip" dir="auto">
          {t}
        </span>
      ))}
    </span>
  );
}

// "Tags…" for one item or a selection: the tags all of them carry (× takes one off every item),
// the ones only some carry (+ puts it on the rest), the tags the account's groups share (read
// again each time it opens), and a field to add a tag (the account's tags offered as it is typed). Each change is sent at once; the dialog shows the answer.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import { Dialog, showDialog } from '../components/Dialog.tsx';
import { ErrorNote } from '../components/common.tsx';
import { useSubmit } from '../components/useSubmit.ts';
import { applyTags, groupTags, refreshTags, tagVocabulary } from './tags.tsx';

export function openTagDialog(items: { path: string; name: string }[]): void {
  if (!items.length) return;
  showDialog((close) => <TagDialog items={items} close={close} />);
}

function TagDialog({ items, close }: { items: { path: string; name: string }[]; close: () => void }) {
  const paths = items.map((i) => i.path);
  const [byPath, setByPath] = useState<Record<string, string[]> | null>(null);
  const [text, setText] = useState('');
  const { busy, error, run } = useSubmit();
  useEffect(() => {
    let live = true;
    // What the groups share now (a member may have shared or stopped sharing since the page loaded).
    void refreshTags();
    Promise.all(paths.map((p) => api('GET /api/tags/item', { query: { path: p } }).catch(() => null))).then(
      (answers) => {
        if (live) setByPath(Object.fromEntries(paths.map((p, i) => [p, answers[i]?.tags ?? []])));
      },
    );
    return () => {
      live = false;
    };
  }, []);
  const { all, some } = useMemo(() => {
    const lists = Object.values(byPath ?? {});
    const seen = new Map<string, number>();
    for (const l of lists) for (const t of l) seen.set(t, (seen.get(t) ?? 0) + 1);
    const all = [...seen].filter(([, n]) => n === lists.length).map(([t]) => t);
    const some = [...seen].filter(([, n]) => n < lists.length).map(([t]) => t);
    return { all, some };
  }, [byPath]);
  const change = (add: string[], remove: string[]) =>
    run(async () => {
      const now = await applyTags(paths, add, remove);
      setByPath((before) => ({ ...before, ...now }));
    });
  const submit = async (e: Event) => {
    e.preventDefault();
    const wanted = text
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    if (!wanted.length) return;
    await change(wanted, []);
    setText('');
  };
  const offered = tagVocabulary.value.map((t) => t.name).filter((t) => !all.includes(t));
  // Tags the account's groups share: one click puts one on every item (spelled as shared).
  const fromGroups = groupTags.value.filter((t) => !all.includes(t.name));
  const title = items.length === 1 ? `Tags of “${items[0]!.name}”` : `Tags of ${items.length} items`;
  return (
    <Dialog title={title} onClose={close}>
      <form class="stack tag-dialog" onSubmit={submit}>
        <div class="tag-chips" aria-label="Tags on every item" role="list">
          {byPath === null ? (
            <span class="muted">Reading tags…</span>
          ) : all.length === 0 ? (
            <span class="muted">No tags yet.</span>
          ) : (
            all.map((t) => (
              <span key={t} class="tag-chip" role="listitem" dir="auto">
                {t}
                <button
                  type="button"
                  class="chip-remove"
                  aria-label={`Remove tag ${t}`}
                  disabled={busy}
                  onClick={() => void change([], [t])}
                >
                  ×
                </button>
              </span>
            ))
          )}
        </div>
        {some.length > 0 && (
          <div class="stack">
            <span class="muted small">On some of them:</span>
            <div class="tag-chips">
              {some.map((t) => (
                <button
                  key={t}
                  type="button"
                  class="tag-chip partial"
                  title="Put it on every item"
                  onClick={() => void change([t], [])}
                >
                  + {t}
                </button>
              ))}
            </div>
          </div>
        )}
        {fromGroups.length > 0 && (
          <div class="stack">
            <span class="muted small">Your groups' tags:</span>
            <div class="tag-chips" role="group" aria-label="Your groups' tags">
              {fromGroups.map((t) => (
                <button
                  key={t.name}
                  type="button"
                  class="tag-chip partial"
                  dir="auto"
                  title={`Shared in ${t.groups.map((g) => g.name).join(', ')}: put it on every item`}
                  disabled={busy}
                  onClick={() => void change([t.name], [])}
                >
                  + {t.name}
                </button>
              ))}
            </div>
          </div>
        )}
        <label>
          Add a tag
          <input
            value={text}
            list="tag-vocabulary"
            placeholder="e.g. Receipts 2025"
            autoFocus
            spellcheck={false}
            onInput={(e) => setText(e.currentTarget.value)}
          />
          <datalist id="tag-vocabulary">
            {[...offered, ...fromGroups.map((t) => t.name)].map((t) => (
              <option key={t} value={t} />
            ))}
          </datalist>
        </label>
        <ErrorNote error={error} />
        <div class="actions">
          <button type="button" onClick={close}>
            Done
          </button>
          <button class="primary" disabled={busy || !text.trim()}>
            Add tag
          </button>
        </div>
      </form>
    </Dialog>
  );
}

// Everything tagged with one tag (`/tags?tag=…`), as a place of its own: the items the account
// tagged and may still see, wherever they are, with their folder, size, date and tags; the tag
// can be renamed or taken off everything here.
import { useEffect, useState } from 'preact/hooks';
import { api, joinPath } from '../api/client.ts';
import type { TaggedFiles } from '../api/types.ts';
import { askText, confirmDialog } from '../components/Dialog.tsx';
import { ErrorNote, Spinner } from '../components/common.tsx';
import { OpenFolderButton, Thumb } from '../folder/rows.tsx';
import { filesUrl, location, navigate } from '../state/router.ts';
import { toastError } from '../state/toasts.ts';
import { formatBytes, formatDate } from '../util.ts';
import { openAtAddress } from '../viewers/state.tsx';
import { myGroups, refreshTags, TagChips, tagsRev, tagUrl, tagVocabulary } from './tags.tsx';

export default function TaggedView() {
  const tag = location.value.query.get('tag') ?? '';
  const [answer, setAnswer] = useState<TaggedFiles | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let live = true;
    setError(null);
    api('GET /api/tags/files', { query: { tag } }).then(
      (a) => live && setAnswer(a),
      (err) => live && setError(err),
    );
    return () => {
      live = false;
    };
  }, [tag, tagsRev.value]);
  const rename = () =>
    askText({
      title: `Rename the tag “${answer?.tag ?? tag}”`,
      label: 'New name',
      value: answer?.tag ?? tag,
      confirm: 'Rename',
      action: async (name) => {
        await api('PATCH /api/tags/:name', { params: { name: tag }, body: { name } });
        await refreshTags();
        navigate(tagUrl(name.trim()), { replace: true });
      },
    });
  const remove = async () => {
    const ok = await confirmDialog({
      title: `Remove the tag “${answer?.tag ?? tag}”?`,
      body: <p>It is taken off everything it is on. The files and folders stay as they are.</p>,
      confirm: 'Remove tag',
      danger: true,
    });
    if (!ok) return;
    try {
      await api('DELETE /api/tags/:name', { params: { name: tag } });
      await refreshTags();
      navigate('/');
    } catch (err) {
      toastError(err, 'Could not remove the tag');
    }
  };
  const own = tagVocabulary.value.find((t) => t.name.toLowerCase() === (answer?.tag ?? tag).toLowerCase());
  const sharedIn = new Set(own?.groups.map((g) => g.id) ?? []);
  const shareIn = async (groupId: string, on: boolean) => {
    try {
      const params = { name: own?.name ?? tag, groupId };
      if (on) await api('PUT /api/tags/:name/groups/:groupId', { params });
      else await api('DELETE /api/tags/:name/groups/:groupId', { params });
      await refreshTags();
    } catch (err) {
      toastError(err, on ? 'Could not share the tag' : 'Could not stop sharing the tag');
    }
  };
  return (
    <section class="page">
      <div class="actions" style={{ justifyContent: 'space-between' }}>
        <h1>
          Tagged “<span dir="auto">{answer?.tag ?? tag}</span>”
        </h1>
        <div class="actions">
          <button type="button" onClick={rename} disabled={!answer?.items.length}>
            Rename tag…
          </button>
          <button type="button" class="danger" onClick={() => void remove()} disabled={!answer?.items.length}>
            Remove tag
          </button>
        </div>
      </div>
      {own && myGroups.value.length > 0 && (
        <fieldset class="tag-groups">
          <legend>Share this tag's name with a group (its members can use it; what you tagged stays yours)</legend>
          {myGroups.value.map((g) => (
            <label key={g.id}>
              <input
                type="checkbox"
                checked={sharedIn.has(g.id)}
                onChange={(e) => void shareIn(g.id, e.currentTarget.checked)}
              />{' '}
              <span dir="auto">{g.name}</span>
            </label>
          ))}
        </fieldset>
      )}
      <ErrorNote error={error} />
      {!answer && !error && <Spinner label="Reading" />}
      {answer && !answer.items.length && <p class="muted">Nothing you can see carries this tag.</p>}
      {answer && answer.items.length > 0 && (
        <ul class="results tagged-results" aria-label={`Tagged ${answer.tag}`}>
          {answer.items.map((item) => {
            const full = joinPath(item.path, item.name);
            const dir = item.kind === 'directory';
            return (
              <li key={full} data-name={item.name}>
                <Thumb item={item} size={32} />
                <div class="grow">
                  <button
                    type="button"
                    class="link"
                    dir="auto"
                    onClick={() => (dir ? navigate(filesUrl(full)) : openAtAddress(full))}
                  >
                    <span class="result-name">{item.name}</span>
                  </button>
                  <div class="where" dir="auto">
                    {item.path}
                  </div>
                  <TagChips tags={item.tags} small />
                </div>
                <div class="meta muted">
                  {!dir && <span class="size">{formatBytes(item.size)}</span>}
                  <span class="date">{formatDate(item.dateModified)}</span>
                </div>
                <OpenFolderButton path={item.path} name={item.name} />
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

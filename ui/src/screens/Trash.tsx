// The trash: what was deleted, from where and when; restore, delete for good, empty.
import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { TrashEntry } from '../api/types.ts';
import { confirmDialog } from '../components/Dialog.tsx';
import { ErrorNote, Icon, Spinner } from '../components/common.tsx';
import { toast, toastError } from '../state/toasts.ts';
import { formatBytes, formatDate, iconFor } from '../util.ts';

/** A path that may wrap after each "/" (and nowhere inside a name). */
function Breakable({ path }: { path: string }) {
  const parts = path.split('/');
  return (
    <>
      {parts.map((p, i) => (
        <Fragment key={i}>
          {p}
          {i < parts.length - 1 && '/'}
          {i < parts.length - 1 && <wbr />}
        </Fragment>
      ))}
    </>
  );
}

export default function Trash() {
  const [entries, setEntries] = useState<TrashEntry[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = () =>
    api('GET /api/trash').then((a) => {
      setEntries(a.items);
      setError(null);
    }, setError);
  useEffect(() => {
    void load();
  }, []);
  const restore = async (e: TrashEntry) => {
    try {
      const a = await api('POST /api/trash/items/:id/restore', { params: { id: e.id } });
      toast(`Restored ${e.name} to ${a.path}`);
      void load();
    } catch (err) {
      toastError(err, 'Restore failed');
    }
  };
  const purge = async (e: TrashEntry) => {
    if (
      !(await confirmDialog({
        title: `Delete “${e.name}” for good?`,
        body: 'It cannot be restored afterwards.',
        confirm: 'Delete for good',
        danger: true,
      }))
    )
      return;
    try {
      await api('DELETE /api/trash/items/:id', { params: { id: e.id } });
      toast(`Deleted ${e.name} for good`);
      void load();
    } catch (err) {
      toastError(err);
    }
  };
  const empty = async () => {
    if (
      !(await confirmDialog({
        title: 'Empty the trash?',
        body: `Everything in the trash (${entries?.length ?? 0} items) is deleted for good.`,
        confirm: 'Empty trash',
        danger: true,
      }))
    )
      return;
    try {
      await api('DELETE /api/trash');
      toast('Trash emptied');
      void load();
    } catch (err) {
      toastError(err);
    }
  };
  return (
    <section class="page">
      <div class="actions page-head">
        <h1>Trash</h1>
        <button type="button" class="danger" disabled={!entries?.length} onClick={() => void empty()}>
          Empty trash
        </button>
      </div>
      <ErrorNote error={error} />
      {!entries && !error && <Spinner />}
      {entries && !entries.length && <p class="muted">The trash is empty.</p>}
      {entries && entries.length > 0 && (
        <div class="table-wrap">
          <table class="data" aria-label="Trash">
            <thead>
              <tr>
                <th>Name</th>
                <th>From</th>
                <th>Deleted</th>
                <th>Size</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr key={e.id}>
                  <td>
                    <span class="card-title">
                      <Icon name={e.isDirectory ? 'folder' : iconFor(e.kind)} size={18} />
                      <span dir="auto">{e.name}</span>
                    </span>
                  </td>
                  <td dir="auto" data-label="From">
                    <Breakable path={e.path} />
                  </td>
                  <td class="when" data-label="Deleted">
                    {formatDate(e.deletedAt)}
                  </td>
                  <td data-label="Size">{e.isDirectory ? '—' : formatBytes(e.size)}</td>
                  <td class="actions">
                    <button type="button" class="small" onClick={() => void restore(e)}>
                      Restore
                    </button>
                    <button type="button" class="small danger" onClick={() => void purge(e)}>
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

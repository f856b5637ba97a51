// An archive opened like a folder: breadcrumbs into it, its entries one level at a time, one
// entry previewed (pictures and text only, from a blob; never as a page) or downloaded, and
// "Extract here" / "Extract to…" for the whole archive or the ticked entries.
import { useEffect, useState } from 'preact/hooks';
import { api, describeError, encodePath } from '../api/client.ts';
import type { ArchiveListing } from '../api/types.ts';
import { ErrorNote, Icon, Spinner } from '../components/common.tsx';
import { Breadcrumbs } from '../folder/FolderView.tsx';
import { location, navigate } from '../state/router.ts';
import { formatBytes, formatDate } from '../util.ts';
import { extractArchive, extractToDialog } from './actions.tsx';
import { archiveUrl, entryUrl } from './kinds.ts';
import './archives.css';

type Entry = ArchiveListing['entries'][number];

const IMAGE = /\.(png|jpe?g|gif|webp|avif|bmp)$/i;
const TEXT =
  /\.(txt|md|log|csv|json|ya?ml|toml|ini|conf|cfg|xml|html?|css|js|ts|tsx|py|sh|c|h|cpp|rs|go|java|sql|svg)$/i;
const TEXT_LIMIT = 1024 * 1024;

function Preview({ archive, entry, onClose }: { archive: string; entry: Entry; onClose: () => void }) {
  const [state, setState] = useState<{ url?: string; text?: string; error?: string } | null>(null);
  useEffect(() => {
    let url: string | undefined;
    let cancelled = false;
    (async () => {
      try {
        const res = await fetch(entryUrl(archive, entry.path));
        if (!res.ok) throw new Error((await res.json().catch(() => null))?.error?.message ?? `HTTP ${res.status}`);
        const blob = await res.blob();
        if (cancelled) return;
        // Raster pictures only as images; everything else as text in a <pre>: no markup of the
        // archive ever runs on our origin.
        if (IMAGE.test(entry.name))
          setState({ url: (url = URL.createObjectURL(new Blob([blob], { type: 'image/*' }))) });
        else setState({ text: await blob.slice(0, TEXT_LIMIT).text() });
      } catch (err) {
        if (!cancelled) setState({ error: describeError(err).message });
      }
    })();
    return () => {
      cancelled = true;
      if (url) URL.revokeObjectURL(url);
    };
  }, [archive, entry.path]);
  return (
    <aside class="archive-preview" aria-label={`Preview of ${entry.name}`}>
      <header>
        <strong dir="auto">{entry.name}</strong>
        <a class="button" href={entryUrl(archive, entry.path)} download={entry.name}>
          Download
        </a>
        <button type="button" onClick={() => extractToDialog(archive, [entry.path])}>
          Extract to…
        </button>
        <button type="button" class="icon-button" aria-label="Close preview" onClick={onClose}>
          <Icon name="close" size={16} />
        </button>
      </header>
      {!state ? (
        <Spinner />
      ) : state.error ? (
        <p class="error">{state.error}</p>
      ) : state.url ? (
        <img src={state.url} alt={entry.name} />
      ) : (
        <pre class="archive-text">{state.text}</pre>
      )}
    </aside>
  );
}

export default function ArchiveView() {
  const loc = location.value;
  const archive = loc.query.get('path') ?? '';
  const inside = loc.query.get('inside') ?? '';
  const [listing, setListing] = useState<ArchiveListing | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [ticked, setTicked] = useState<Set<string>>(new Set());
  const [preview, setPreview] = useState<Entry | null>(null);
  const load = async () => {
    setError(null);
    try {
      setListing(await api('GET /api/archive/list', { query: { path: archive, ...(inside ? { inside } : {}) } }));
    } catch (err) {
      setListing(null);
      setError(err);
    }
  };
  useEffect(() => {
    setTicked(new Set());
    setPreview(null);
    void load();
  }, [archive, inside]);

  const folder = archive.includes('/') ? archive.slice(0, archive.lastIndexOf('/')) : '';
  const parts = inside.split('/').filter(Boolean);
  const open = (e: Entry) => {
    if (e.isDirectory) navigate(archiveUrl(archive, e.path));
    else if (!e.encrypted) setPreview(e);
  };
  const toggle = (p: string) =>
    setTicked((t) => {
      const n = new Set(t);
      if (n.has(p)) n.delete(p);
      else n.add(p);
      return n;
    });
  const chosen = [...ticked];
  const canPreview = (e: Entry) => IMAGE.test(e.name) || TEXT.test(e.name);
  return (
    <section class="folder archive" aria-label={`Archive ${archive}`}>
      <div class="folder-head">
        <div class="crumbs-row">
          <Breadcrumbs path={folder} />
          <nav class="crumbs" aria-label="Inside the archive">
            <span class="sep" aria-hidden="true">
              ›
            </span>
            {parts.length ? (
              <a
                href={archiveUrl(archive)}
                onClick={(ev) => {
                  ev.preventDefault();
                  navigate(archiveUrl(archive));
                }}
              >
                {listing?.name ?? archive.slice(archive.lastIndexOf('/') + 1)}
              </a>
            ) : (
              <span aria-current="page">{archive.slice(archive.lastIndexOf('/') + 1)}</span>
            )}
            {parts.map((p, i) => {
              const to = parts.slice(0, i + 1).join('/');
              return (
                <>
                  <span class="sep" aria-hidden="true">
                    ›
                  </span>
                  {i === parts.length - 1 ? (
                    <span aria-current="page" dir="auto">
                      {p}
                    </span>
                  ) : (
                    <a
                      href={archiveUrl(archive, to)}
                      dir="auto"
                      onClick={(ev) => {
                        ev.preventDefault();
                        navigate(archiveUrl(archive, to));
                      }}
                    >
                      {p}
                    </a>
                  )}
                </>
              );
            })}
          </nav>
        </div>
        <div class="toolbar" role="toolbar" aria-label="Archive actions">
          <button type="button" onClick={() => void extractArchive(archive, chosen)}>
            {chosen.length ? `Extract ${chosen.length} here` : 'Extract here'}
          </button>
          <button type="button" onClick={() => extractToDialog(archive, chosen)}>
            Extract to…
          </button>
          <a
            class="button"
            href={`/files/${encodePath(folder)}`}
            onClick={(ev) => {
              ev.preventDefault();
              navigate(`/files/${encodePath(folder)}`);
            }}
          >
            Back to folder
          </a>
        </div>
      </div>
      <ErrorNote error={error}>
        <button type="button" onClick={() => void load()}>
          Try again
        </button>
      </ErrorNote>
      {!listing && !error && (
        <div class="center">
          <Spinner />
        </div>
      )}
      {listing && (
        <table class="data" aria-label="Entries">
          <thead>
            <tr>
              <th scope="col" aria-label="Select"></th>
              <th scope="col">Name</th>
              <th scope="col">Size</th>
              <th scope="col">Modified</th>
            </tr>
          </thead>
          <tbody>
            {listing.entries.map((e) => (
              <tr key={e.path} aria-selected={ticked.has(e.path)}>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Select ${e.name}`}
                    checked={ticked.has(e.path)}
                    onChange={() => toggle(e.path)}
                  />
                </td>
                <td>
                  <button
                    type="button"
                    class="link"
                    dir="auto"
                    disabled={!e.isDirectory && (e.encrypted || !canPreview(e))}
                    onClick={() => open(e)}
                  >
                    <Icon name={e.isDirectory ? 'folder' : 'file'} size={16} /> {e.name}
                    {e.encrypted ? ' 🔒' : ''}
                  </button>
                  {!e.isDirectory && !e.encrypted && (
                    <a
                      class="entry-download"
                      href={entryUrl(archive, e.path)}
                      download={e.name}
                      aria-label={`Download ${e.name}`}
                    >
                      <Icon name="download" size={14} />
                    </a>
                  )}
                </td>
                <td>{e.size === null ? '' : formatBytes(e.size)}</td>
                <td>{formatDate(e.modified)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {listing && (
        <footer class="status-line">
          {listing.entries.length} here · {listing.total} in the archive
          {listing.outside ? ` · ${listing.outside} left out (names pointing outside)` : ''}
        </footer>
      )}
      {preview && <Preview archive={archive} entry={preview} onClose={() => setPreview(null)} />}
    </section>
  );
}

// A folder: breadcrumbs and toolbar, the entries, a status line, and the details panel.
import { useEffect, useState } from 'preact/hooks';
import { Icon, ErrorNote, Spinner } from '../components/common.tsx';
import { Lazy } from '../components/Lazy.tsx';
import { favorites, features, isAdmin, volumes } from '../state/session.ts';
import { filesUrl, navigate } from '../state/router.ts';
import { formatBytes } from '../util.ts';
import { api, queryString } from '../api/client.ts';
import { download, newFile, newFolder, refOf, rename, toggleFavorite } from './actions.ts';
import { confirmDelete, copyMoveDialog } from './dialogs.tsx';
import { FileArea } from './FileArea.tsx';
import { selectionSize } from './selection.ts';
import { compressSelection, detailsItem, dropOnto, pickFiles, tagSelection } from './interact.ts';
import { addFromLink } from './fetch.ts';
import { readOnlyWords, type Explanation } from './read-only.ts';
import {
  access,
  filterText,
  folderSizes,
  folderSizesPending,
  items,
  listing,
  loadError,
  loading,
  followFolder,
  openFolder,
  selectedItems,
  setViewPrefs,
  viewPrefs,
  reload,
  selected,
} from './model.ts';

export function Breadcrumbs({ path }: { path: string }) {
  const parts = path.split('/').filter(Boolean);
  const volume = volumes.value.find((v) => v.path === parts[0]);
  const drop = (target: string) => ({
    onDragOver: (e: DragEvent) => {
      if (e.dataTransfer?.types.includes('application/x-burrow-items')) {
        e.preventDefault();
        e.dataTransfer.dropEffect = e.altKey ? 'copy' : 'move';
      }
    },
    onDrop: (e: DragEvent) => {
      e.preventDefault();
      dropOnto(e, null, target);
    },
  });
  return (
    <nav class="crumbs" aria-label="Breadcrumbs">
      <a
        href="/"
        onClick={(e) => {
          e.preventDefault();
          navigate('/');
        }}
      >
        <Icon name="home" size={16} label="Home" />
      </a>
      {parts.map((p, i) => {
        const to = parts.slice(0, i + 1).join('/');
        const label = i === 0 && volume ? volume.name : p;
        return (
          <>
            <span class="sep" aria-hidden="true">
              ›
            </span>
            {i === parts.length - 1 ? (
              <span aria-current="page" dir="auto" {...drop(to)}>
                {label}
              </span>
            ) : (
              <a
                href={filesUrl(to)}
                dir="auto"
                onClick={(e) => {
                  e.preventDefault();
                  navigate(filesUrl(to));
                }}
                {...drop(to)}
              >
                {label}
              </a>
            )}
          </>
        );
      })}
    </nav>
  );
}

function SelectionBar() {
  const sel = selectedItems.value;
  const a = access.value;
  // Shown under the entries so that selecting never moves the rows being clicked.
  if (!sel.length) return null;
  return (
    <div class="selection-bar" role="toolbar" aria-label="Selection">
      <button
        type="button"
        class="icon-button"
        aria-label="Clear selection"
        title="Clear selection (Esc)"
        onClick={() => {
          selected.value = new Set();
        }}
      >
        <Icon name="close" size={16} />
      </button>
      <span class="selection-count">
        {sel.length} selected ·{' '}
        {selectionSize(sel, folderSizes.value, {
          recursive: features.value.folderSize?.mode === 'full',
          pending: folderSizesPending.value,
        })}
      </span>
      <button
        type="button"
        onClick={() =>
          void download(
            sel.map(refOf),
            sel.map((i) => i.kind),
          )
        }
      >
        Download
      </button>
      {sel.length === 1 && (
        <button type="button" disabled={!a?.canWrite} onClick={() => rename(sel[0]!)}>
          Rename
        </button>
      )}
      <button type="button" disabled={!a?.canWrite} onClick={() => compressSelection(sel)}>
        Compress to zip…
      </button>
      <button type="button" onClick={() => tagSelection(sel)}>
        Tags…
      </button>
      <button type="button" onClick={() => copyMoveDialog('copy', sel)}>
        Copy to…
      </button>
      <button type="button" disabled={!a?.canWrite} onClick={() => copyMoveDialog('move', sel)}>
        Move to…
      </button>
      <button type="button" class="danger" disabled={!a?.canWrite} onClick={() => void confirmDelete(sel)}>
        Delete
      </button>
    </div>
  );
}

/** Filters the loaded entries as one types; Enter (or the button) searches this folder and below. */
function FilterBox({ path }: { path: string }) {
  const q = filterText.value;
  const search = () => {
    if (q.trim().length >= 3) navigate(`/search?${queryString({ q: q.trim(), path })}`);
  };
  return (
    <form
      class="filter-box"
      role="search"
      aria-label="This folder"
      onSubmit={(e) => {
        e.preventDefault();
        search();
      }}
    >
      <input
        type="search"
        aria-label="Filter this folder"
        placeholder="Filter"
        value={q}
        onInput={(e) => {
          filterText.value = e.currentTarget.value;
        }}
        onKeyDown={(e) => {
          if (e.key === 'Escape' && q) {
            e.preventDefault();
            e.stopPropagation();
            filterText.value = '';
          }
        }}
      />
      <button
        type="submit"
        class="icon-button"
        disabled={q.trim().length < 3}
        aria-label="Search in this folder"
        title="Search in this folder and below"
      >
        <Icon name="search" size={16} />
      </button>
    </form>
  );
}

/**
 * What the explainer says of the one looking at this folder (asked once per folder, and again
 * when what they may do here changes): whether they may change who has access here — an
 * administrator, or a person a manage rule names at this folder or above — and why the folder
 * is read-only when it is (the banner).
 */
function useExplained(
  path: string,
  canWrite: boolean | undefined,
): { manages: boolean; explained: Explanation | null } {
  const [explained, setExplained] = useState<Explanation | null>(null);
  useEffect(() => {
    setExplained(null);
    // A link is its own space; an administrator manages everywhere, so only a read-only folder asks why.
    if (!path || /^share(\/|$)/.test(path) || (isAdmin.value && canWrite !== false)) return;
    let live = true;
    api('GET /api/access/explain', { query: { path } }).then(
      (e) => live && setExplained(e),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [path, canWrite, isAdmin.value]);
  // A personal folder is its owner's alone. Who may change who has access is the rules' word (a
  // manage rule), whatever the volume takes away.
  const manages =
    !/^personal(\/|$)/.test(path) &&
    !/^share(\/|$)/.test(path) &&
    !!path &&
    (isAdmin.value || (explained !== null && explained.ruleLevel === 'manage' && explained.rule !== null));
  return { manages, explained };
}

export function FolderView({ path }: { path: string }) {
  useEffect(() => {
    void openFolder(path);
    return followFolder(path);
  }, [path]);
  useEffect(() => {
    detailsItem.value = null;
  }, [path]);
  const a = access.value;
  const l = listing.value;
  const isFav = favorites.value.some((f) => f.path === path);
  const view = viewPrefs.value.view;
  const readOnly = a && !a.canWrite;
  const { manages, explained } = useExplained(path, a?.canWrite);
  return (
    <section class="folder" aria-label={`Folder ${path}`}>
      <div class="folder-head">
        <Breadcrumbs path={path} />
        <FilterBox path={path} />
        <div class="toolbar" role="toolbar" aria-label="Folder actions">
          <button type="button" disabled={!a?.canWrite} onClick={newFolder}>
            <Icon name="plus" size={16} /> Folder
          </button>
          <button type="button" class="wide-only" disabled={!a?.canWrite} onClick={newFile}>
            <Icon name="plus" size={16} /> File
          </button>
          <button type="button" disabled={!a?.canUpload} onClick={() => pickFiles(false)}>
            <Icon name="upload" size={16} /> Upload
          </button>
          <button type="button" class="wide-only" disabled={!a?.canUpload} onClick={() => pickFiles(true)}>
            Upload folder
          </button>
          <button
            type="button"
            disabled={!a?.canUpload}
            onClick={addFromLink}
            aria-label="Add from link"
            title="Add a file from a web address"
          >
            <Icon name="download" size={16} /> <span class="wide-only">From link</span>
          </button>
          <button
            type="button"
            disabled={a?.canShare === false}
            onClick={() =>
              void import('../shares/ShareDialog.tsx').then((m) =>
                m.openShareDialog({ path, name: path.slice(path.lastIndexOf('/') + 1), isDirectory: true }),
              )
            }
          >
            Share
          </button>
          {manages && (
            <button
              type="button"
              class="wide-only"
              onClick={() => void import('./WhoHasAccess.tsx').then((m) => m.openWhoHasAccess(path))}
            >
              Who has access
            </button>
          )}
          <button
            type="button"
            class="icon-button"
            aria-pressed={isFav}
            aria-label={isFav ? 'Remove folder from favourites' : 'Add folder to favourites'}
            onClick={() => void toggleFavorite(path)}
          >
            <Icon name="star" size={18} />
          </button>
          <button
            type="button"
            class="icon-button"
            aria-label={view === 'list' ? 'Show as grid' : 'Show as list'}
            onClick={() => setViewPrefs({ view: view === 'list' ? 'grid' : 'list' })}
          >
            <Icon name={view === 'list' ? 'grid' : 'list'} size={18} />
          </button>
        </div>
      </div>
      {readOnly && <p class="notice">{readOnlyWords(a, explained)}</p>}
      {a && a.canRead && !a.canDownload && !path.startsWith('share/') && (
        <p class="notice">View only: you may look at what is here, but not download it.</p>
      )}
      <ErrorNote error={loadError.value}>
        <button type="button" onClick={() => void reload()}>
          Try again
        </button>
      </ErrorNote>
      {l || !loading.value ? (
        <FileArea />
      ) : (
        <div class="center">
          <Spinner />
        </div>
      )}
      <SelectionBar />
      {l && !items.value.length && !loading.value && (
        <p class="empty muted">
          {filterText.value
            ? `Nothing here matches “${filterText.value}”.`
            : 'This folder is empty. Drop files here to upload.'}
        </p>
      )}
      <footer class="status-line" aria-live="polite">
        {l
          ? `${items.value.length} item${items.value.length === 1 ? '' : 's'}${filterText.value ? ` matching “${filterText.value}”` : ''}`
          : ''}
        {loading.value && l ? ' · refreshing…' : ''}
      </footer>
      {detailsItem.value && (
        <Lazy
          load={() => import('./Details.tsx')}
          props={{
            item: detailsItem.value,
            onClose: () => {
              detailsItem.value = null;
            },
          }}
        />
      )}
    </section>
  );
}

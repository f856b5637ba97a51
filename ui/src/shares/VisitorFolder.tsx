// A shared folder as its visitor sees it: breadcrumbs inside the link, the entries as a list or
// a grid of thumbnails (a folder mostly of pictures opens as the grid), the actions the link
// allows (download one or a zip, upload, new folder/file, rename, delete), and a file's preview
// with next/previous through the folder's files.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, joinPath, parentOf } from '../api/client.ts';
import type { FileItem, Listing } from '../api/types.ts';
import { isDir } from '../api/types.ts';
import { openMenu, type MenuItem } from '../components/ContextMenu.tsx';
import { askText, confirmDialog } from '../components/Dialog.tsx';
import { ErrorNote, Icon, Spinner } from '../components/common.tsx';
import { navigate } from '../state/router.ts';
import { toast, toastError } from '../state/toasts.ts';
import { collectDropped, collectPicked, startUpload } from '../upload/start.ts';
import { collator, formatBytes, formatDate, iconFor } from '../util.ts';
import { viewKind } from '../viewers/kinds.ts';
import type { LinkApi, LinkInfo } from './api.ts';
import { LinkPreview } from './LinkPreview.tsx';
import { downloadZip, linkUrl, relOf } from './Visitor.tsx';

function Crumbs({ token, name, rel }: { token: string; name: string; rel: string }) {
  const parts = rel.split('/').filter(Boolean);
  const go = (to: string) => (e: Event) => {
    e.preventDefault();
    navigate(linkUrl(token, to));
  };
  return (
    <nav class="crumbs" aria-label="Breadcrumbs">
      {parts.length ? (
        <a href={linkUrl(token, '')} onClick={go('')} dir="auto">
          {name}
        </a>
      ) : (
        <span aria-current="page" dir="auto">
          {name}
        </span>
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
              <a href={linkUrl(token, to)} onClick={go(to)} dir="auto">
                {p}
              </a>
            )}
          </>
        );
      })}
    </nav>
  );
}

/** A folder of at least four files, six in ten of them pictures, opens as a grid. */
function mostlyPictures(list: FileItem[]): boolean {
  const files = list.filter((i) => !isDir(i));
  return files.length >= 4 && files.filter((i) => viewKind(i.kind) === 'image').length / files.length >= 0.6;
}

/** The link's thumbnail of a picture or video (made by the server), else the kind's icon. */
function LinkThumb({ api, token, item, size }: { api: LinkApi; token: string; item: FileItem; size: number }) {
  const [failed, setFailed] = useState(false);
  if (!item.supportsThumbnail || failed) return <Icon name={isDir(item) ? 'folder' : iconFor(item.kind)} size={size} />;
  return (
    <img
      class="link-thumb"
      src={api.thumbnailUrl(relOf(token, item))}
      alt=""
      loading="lazy"
      decoding="async"
      draggable={false}
      onError={() => setFailed(true)}
    />
  );
}

export function FolderLink({
  api,
  info,
  rel,
  signInNeeded,
}: {
  api: LinkApi;
  info: LinkInfo;
  rel: string;
  onSignIn: () => void;
  signInNeeded: ComponentChildren;
}) {
  const token = info.shareToken;
  const [listing, setListing] = useState<Listing | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [viewing, setViewing] = useState<FileItem | null>(null);
  const [dragOver, setDragOver] = useState(false);
  /** The person's choice of list or grid in this link; until then, by what the folder holds. */
  const [chosenView, setChosenView] = useState<'list' | 'grid' | null>(null);
  const a = info.allow;

  const load = () =>
    api.browse(rel).then(
      (l: Listing) => {
        setListing(l);
        setError(null);
      },
      (err) => {
        setError(err);
        setListing(null);
      },
    );
  useEffect(() => {
    setListing(null);
    setSelected(new Set());
    setViewing(null);
    void load();
  }, [rel]);

  if (error instanceof ApiError && error.status === 401) return <>{signInNeeded}</>;

  const items = [...(listing?.items ?? [])].sort(
    (x, y) => (isDir(y) ? 1 : 0) - (isDir(x) ? 1 : 0) || collator.compare(x.name, y.name),
  );
  const sel = items.filter((i) => selected.has(i.name));
  const toggle = (name: string) => {
    const s = new Set(selected);
    if (s.has(name)) s.delete(name);
    else s.add(name);
    setSelected(s);
  };

  const view = chosenView ?? (listing && mostlyPictures(listing.items) ? 'grid' : 'list');
  const files = items.filter((i) => !isDir(i));
  const at = viewing ? files.findIndex((i) => i.name === viewing.name) : -1;
  const step = (by: 1 | -1) => {
    if (at >= 0 && files.length > 1) setViewing(files[(at + by + files.length) % files.length]!);
  };
  const open = (i: FileItem) => (isDir(i) ? navigate(linkUrl(token, relOf(token, i))) : setViewing(i));
  const download = (list: FileItem[]) => {
    if (list.length === 1 && !isDir(list[0]!)) {
      const el = document.createElement('a');
      el.href = api.fileUrl(relOf(token, list[0]!), 'download');
      el.download = list[0]!.name;
      document.body.append(el);
      el.click();
      el.remove();
    } else
      void downloadZip(
        api,
        list.map((i) => relOf(token, i)),
        list.length === 1 ? list[0]!.name : rel ? rel.split('/').pop()! : info.name,
      );
  };
  const rename = (i: FileItem) =>
    askText({
      title: `Rename “${i.name}”`,
      label: 'New name',
      value: i.name,
      confirm: 'Rename',
      selectStem: !isDir(i),
      action: async (newName) => {
        if (newName === i.name) return;
        await api.rename(rel, i.name, newName);
        toast(`Renamed to ${newName}`);
        await load();
      },
    });
  const remove = async (list: FileItem[]) => {
    const ok = await confirmDialog({
      title: list.length === 1 ? `Delete “${list[0]!.name}”?` : `Delete ${list.length} items?`,
      body: 'The owner can restore it from their trash.',
      confirm: 'Delete',
      danger: true,
    });
    if (!ok) return;
    try {
      await api.remove(list.map((i) => ({ path: rel, name: i.name })));
      toast('Deleted');
      setSelected(new Set());
    } catch (err) {
      toastError(err, 'Delete failed');
    }
    await load();
  };
  const create = (kind: 'folder' | 'file') =>
    askText({
      title: kind === 'folder' ? 'New folder' : 'New file',
      label: 'Name',
      value: kind === 'folder' ? 'New folder' : 'New file.txt',
      confirm: 'Create',
      selectStem: kind === 'file',
      action: async (name) => {
        await (kind === 'folder' ? api.createFolder(rel, name) : api.createFile(rel, name));
        toast(`Created ${name}`);
        await load();
      },
    });
  // Taken names are asked about as in one's own folders: keep both, skip, or replace where the link allows it.
  const taken = (names: string[]) => api.conflicts(rel, names);
  const upload = (dir: boolean) => {
    const input = document.createElement('input');
    input.type = 'file';
    input.multiple = true;
    if (dir) input.webkitdirectory = true;
    input.onchange = () => {
      if (input.files)
        void startUpload(collectPicked(input.files), api.uploadTo(rel), () => void load(), api.uploads, taken);
    };
    input.click();
  };
  const onDrop = async (e: DragEvent) => {
    e.preventDefault();
    setDragOver(false);
    if (!a.upload || !e.dataTransfer) return;
    const files = await collectDropped(e.dataTransfer);
    void startUpload(files, api.uploadTo(rel), () => void load(), api.uploads, taken);
  };
  const menu = (i: FileItem, x: number, y: number) => {
    const entries: MenuItem[] = [{ label: 'Open', action: () => open(i) }];
    if (a.download) entries.push({ label: isDir(i) ? 'Download as zip' : 'Download', action: () => download([i]) });
    if (a.rename) entries.push({ label: 'Rename…', action: () => rename(i) });
    if (a.delete) entries.push('separator', { label: 'Delete…', action: () => void remove([i]), danger: true });
    openMenu(x, y, entries);
  };

  return (
    <section
      class={`visitor-folder${dragOver ? ' dropping' : ''}`}
      aria-label={`Shared folder ${info.name}`}
      onDragOver={(e) => {
        if (a.upload && e.dataTransfer?.types.includes('Files')) {
          e.preventDefault();
          setDragOver(true);
        }
      }}
      onDragLeave={() => setDragOver(false)}
      onDrop={(e) => void onDrop(e)}
    >
      <div class="folder-head">
        <Crumbs token={token} name={info.name} rel={rel} />
        <div class="toolbar" role="toolbar" aria-label="Folder actions">
          {a.download && (
            <button
              type="button"
              onClick={() =>
                sel.length ? download(sel) : void downloadZip(api, [rel], rel ? rel.split('/').pop()! : info.name)
              }
            >
              <Icon name="download" size={16} /> {sel.length ? `Download ${sel.length}` : 'Download all'}
            </button>
          )}
          {a.upload && (
            <button type="button" onClick={() => upload(false)}>
              <Icon name="upload" size={16} /> Upload
            </button>
          )}
          {a.createFolder && (
            <button type="button" onClick={() => create('folder')}>
              <Icon name="plus" size={16} /> Folder
            </button>
          )}
          {a.createFile && (
            <button type="button" onClick={() => create('file')}>
              <Icon name="plus" size={16} /> File
            </button>
          )}
          {a.delete && sel.length > 0 && (
            <button type="button" class="danger" onClick={() => void remove(sel)}>
              Delete {sel.length}
            </button>
          )}
          <button
            type="button"
            class="icon-button"
            aria-label={view === 'list' ? 'Show as grid' : 'Show as list'}
            title={view === 'list' ? 'Show as grid' : 'Show as list'}
            onClick={() => setChosenView(view === 'list' ? 'grid' : 'list')}
          >
            <Icon name={view === 'list' ? 'grid' : 'list'} size={18} />
          </button>
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
      {listing && view === 'grid' && (
        <ul class="link-grid" aria-label="Entries">
          {items.map((i) => (
            <li
              key={i.name}
              class={`link-tile${selected.has(i.name) ? ' selected' : ''}`}
              data-name={i.name}
              onContextMenu={(e) => {
                e.preventDefault();
                menu(i, e.clientX, e.clientY);
              }}
            >
              <button
                type="button"
                class="link-tile-open"
                aria-label={isDir(i) ? `Folder ${i.name}` : i.name}
                onClick={() => open(i)}
              >
                <span class="link-tile-picture">
                  <LinkThumb api={api} token={token} item={i} size={48} />
                </span>
                <span class="name" dir="auto" title={i.name}>
                  {i.name}
                </span>
              </button>
              <input
                type="checkbox"
                class="link-tile-check"
                aria-label={`Select ${i.name}`}
                checked={selected.has(i.name)}
                onChange={() => toggle(i.name)}
              />
            </li>
          ))}
        </ul>
      )}
      {listing && view === 'list' && (
        <ul class="link-entries" aria-label="Entries">
          {items.map((i) => (
            <li
              key={i.name}
              class={`link-entry${selected.has(i.name) ? ' selected' : ''}`}
              data-name={i.name}
              onContextMenu={(e) => {
                e.preventDefault();
                menu(i, e.clientX, e.clientY);
              }}
            >
              <input
                type="checkbox"
                aria-label={`Select ${i.name}`}
                checked={selected.has(i.name)}
                onChange={() => toggle(i.name)}
              />
              <button type="button" class="row-button link-open" onClick={() => open(i)}>
                <span class="link-row-picture">
                  <LinkThumb api={api} token={token} item={i} size={20} />
                </span>
                <span class="name" dir="auto">
                  {i.name}
                </span>
              </button>
              <span class="muted small link-size">{isDir(i) ? '' : formatBytes(i.size)}</span>
              <span class="muted small link-date wide-only">{formatDate(i.dateModified)}</span>
              <button
                type="button"
                class="icon-button"
                aria-label={`Actions for ${i.name}`}
                onClick={(e) => {
                  const r = (e.currentTarget as HTMLElement).getBoundingClientRect();
                  menu(i, r.left, r.bottom);
                }}
              >
                ⋯
              </button>
            </li>
          ))}
        </ul>
      )}
      {listing && !items.length && (
        <p class="empty muted">This folder is empty.{a.upload ? ' Drop files here to upload.' : ''}</p>
      )}
      {viewing && (
        <div
          class="overlay link-overlay"
          onClick={(e) => {
            if (e.target === e.currentTarget) setViewing(null);
          }}
        >
          <LinkPreview
            api={api}
            info={info}
            item={viewing}
            rel={joinPath(rel, viewing.name)}
            onClose={() => setViewing(null)}
            onSaved={() => void load()}
            {...(files.length > 1 && at >= 0 ? { onStep: step, position: `${at + 1} of ${files.length}` } : {})}
          />
        </div>
      )}
    </section>
  );
}

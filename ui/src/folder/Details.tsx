// A file's details: facts from the server, download, its earlier versions (restore, restore
// as a copy), and "Edit text" into the full-window editor. Loaded on first use.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, joinPath } from '../api/client.ts';
import type { FileItem, Metadata, Version } from '../api/types.ts';
import { ErrorNote, Spinner } from '../components/common.tsx';
import { toast, toastError } from '../state/toasts.ts';
import { formatBytes, formatDate, formatDuration, iconFor } from '../util.ts';
import { download, refOf } from './actions.ts';
import { reload } from './model.ts';
import { editing } from '../viewers/state.tsx';
import { TagChips, tagsRev } from '../tags/tags.tsx';
import { openTagDialog } from '../tags/TagDialog.tsx';

// `rev` counts saves and restores in this panel (and the editor closing): the facts and versions reload on it.
// A text file's version shows its text on demand: a date and a size alone do not say which of
// several saves made the same minute holds the words one wants back.
function Versions({
  path,
  rev,
  onRestored,
  isText,
}: {
  path: string;
  rev: number;
  onRestored: () => void;
  isText: boolean;
}) {
  const [list, setList] = useState<Version[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  /** The texts shown, by version id (an Error: it could not be read). */
  const [shown, setShown] = useState<Record<string, string | Error>>({});
  const toggle = async (v: Version) => {
    if (v.id in shown) {
      const { [v.id]: _, ...rest } = shown;
      setShown(rest);
      return;
    }
    try {
      const a = await api('GET /api/versions/:id/text', { params: { id: v.id } });
      setShown((s) => ({ ...s, [v.id]: a.content }));
    } catch (err) {
      setShown((s) => ({ ...s, [v.id]: err instanceof Error ? err : new Error(String(err)) }));
    }
  };
  const load = () =>
    api('GET /api/versions', { query: { path } }).then((a) => {
      setList(a.items);
      setError(null);
    }, setError);
  useEffect(() => {
    void load();
  }, [path, rev]);
  const restore = async (v: Version, asCopy: boolean) => {
    try {
      if (asCopy) {
        const a = await api('POST /api/versions/:id/restore-copy', { params: { id: v.id } });
        toast(`Restored as ${a.item.name}`);
      } else {
        await api('POST /api/versions/:id/restore', { params: { id: v.id } });
        toast('Version restored');
      }
      onRestored();
      void reload();
    } catch (err) {
      toastError(err, 'Restore failed');
    }
  };
  return (
    <section aria-label="Versions">
      <h3>Earlier versions</h3>
      <ErrorNote error={error} />
      {!list && !error && <Spinner />}
      {list && !list.length && (
        <p class="muted small">No earlier versions. A version is kept each time the file is saved over.</p>
      )}
      <ul class="results">
        {list?.map((v) => (
          <li key={v.id}>
            <div class="grow">
              {formatDate(v.modifiedAt)}
              <div class="where">{formatBytes(v.size)}</div>
              {isText && (
                <button type="button" class="link small" aria-expanded={v.id in shown} onClick={() => void toggle(v)}>
                  {v.id in shown ? 'Hide text' : 'Show text'}
                </button>
              )}
              {shown[v.id] instanceof Error ? (
                <ErrorNote error={shown[v.id]} />
              ) : (
                v.id in shown && (
                  <pre
                    class="version-text"
                    dir="auto"
                    aria-label={`Text of the version of ${formatDate(v.modifiedAt)}`}
                  >
                    {shown[v.id] as string}
                  </pre>
                )
              )}
            </div>
            <button type="button" class="small" onClick={() => void restore(v, false)}>
              Restore
            </button>
            <button type="button" class="small" onClick={() => void restore(v, true)}>
              Restore as copy
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** A fact row when there is something to say. */
function Fact({ label, value }: { label: string; value: string | number | null | undefined }) {
  if (value === null || value === undefined || value === '') return null;
  return (
    <>
      <dt>{label}</dt>
      <dd dir="auto">{value}</dd>
    </>
  );
}

const join = (...parts: (string | number | null | undefined | false)[]) => parts.filter(Boolean).join(' · ');
/** EXIF's date taken is the camera's clock (no zone): shown as written, not moved into this one. */
const takenAt = (iso: string) => iso.replace('T', ' ').slice(0, 16);
const exposure = (s: number | null) => (s === null ? null : s >= 1 ? `${s} s` : `1/${Math.round(1 / s)} s`);

/** What the file says about itself (a photo's camera and place, a song's tags, a video's streams, a document's title). */
function MediaFacts({ meta }: { meta: Metadata }) {
  const { image, audio, video, document } = meta;
  return (
    <>
      {image && (
        <>
          <Fact label="Dimensions" value={image.width ? `${image.width} × ${image.height}` : null} />
          <Fact label="Taken" value={image.dateTaken ? takenAt(image.dateTaken) : null} />
          <Fact label="Camera" value={join(image.cameraMake, image.cameraModel)} />
          <Fact label="Lens" value={image.lensModel} />
          <Fact
            label="Exposure"
            value={join(
              exposure(image.exposureTime),
              image.fNumber && `f/${image.fNumber}`,
              image.iso && `ISO ${image.iso}`,
              image.focalLength && `${image.focalLength} mm`,
            )}
          />
          {image.gps && (
            <>
              <dt>Location</dt>
              <dd>
                <a
                  href={`https://www.openstreetmap.org/?mlat=${image.gps.latitude}&mlon=${image.gps.longitude}#map=15/${image.gps.latitude}/${image.gps.longitude}`}
                  target="_blank"
                  rel="noopener noreferrer"
                >
                  {image.gps.latitude.toFixed(5)}, {image.gps.longitude.toFixed(5)}
                </a>
                {image.gps.altitude !== null && ` · ${Math.round(image.gps.altitude)} m`}
              </dd>
            </>
          )}
        </>
      )}
      {audio && (
        <>
          <Fact label="Title" value={audio.title} />
          <Fact label="Artist" value={audio.artist} />
          <Fact label="Album" value={join(audio.album, audio.year)} />
          <Fact
            label="Track"
            value={audio.track ? join(audio.track + (audio.trackCount ? ` of ${audio.trackCount}` : '')) : null}
          />
          <Fact label="Genre" value={audio.genre} />
          <Fact label="Duration" value={audio.duration ? formatDuration(audio.duration) : null} />
        </>
      )}
      {video && (
        <>
          <Fact label="Duration" value={video.duration ? formatDuration(video.duration) : null} />
          <Fact label="Resolution" value={video.width ? `${video.width} × ${video.height}` : null} />
          <Fact label="Codecs" value={join(video.videoCodec, video.audioCodec)} />
        </>
      )}
      {document && (
        <>
          <Fact label="Title" value={document.title} />
          <Fact label="Author" value={document.author} />
          <Fact label="Pages" value={document.pages} />
        </>
      )}
    </>
  );
}

/** The item's tags as chips (read again when tags change here) and "Edit tags…". */
function ItemTags({ path, name }: { path: string; name: string }) {
  const [tags, setTags] = useState<string[] | null>(null);
  useEffect(() => {
    api('GET /api/tags/item', { query: { path } }).then(
      (a) => setTags(a.tags),
      () => setTags(null),
    );
  }, [path, tagsRev.value]);
  return (
    <div class="actions" style={{ justifyContent: 'flex-start', flexWrap: 'wrap' }}>
      {tags && tags.length ? <TagChips tags={tags} /> : <span class="muted">None</span>}
      <button type="button" class="small" onClick={() => openTagDialog([{ path, name }])}>
        Edit tags…
      </button>
    </div>
  );
}

export default function Details({ item, onClose }: { item: FileItem; onClose: () => void }) {
  const path = joinPath(item.path, item.name);
  const [meta, setMeta] = useState<Metadata | null>(null);
  const [rev, setRev] = useState(0);
  const bump = () => setRev((r) => r + 1);
  const editingThis = editing.value?.path === path;
  const wasEditing = useRef(false);
  // Saves made in the editor are new versions: read them when it closes.
  useEffect(() => {
    if (wasEditing.current && !editingThis) {
      bump();
      void reload();
    }
    wasEditing.current = editingThis;
  }, [editingThis]);
  useEffect(() => {
    api('GET /api/metadata/*', { params: { path } }).then(setMeta, () => setMeta(null));
  }, [path, rev]);
  const isText = iconFor(item.kind) === 'text';
  const panel = useRef<HTMLElement>(null);
  // Focus moves into the panel so the keyboard (and a screen reader) follows what opened.
  useEffect(() => {
    panel.current?.focus();
  }, [path]);
  return (
    <aside
      ref={panel}
      tabIndex={-1}
      class="side-panel stack"
      aria-label={`Details of ${item.name}`}
      onKeyDown={(e) => {
        if (e.key === 'Escape') onClose();
      }}
    >
      <div class="actions" style={{ justifyContent: 'space-between' }}>
        <h2 dir="auto" style={{ margin: 0 }}>
          {item.name}
        </h2>
        <button type="button" class="icon-button" aria-label="Close details" onClick={onClose}>
          ×
        </button>
      </div>
      <dl class="facts">
        <dt>Size</dt>
        <dd>{formatBytes(meta?.size ?? item.size)}</dd>
        <dt>Modified</dt>
        <dd>{formatDate(meta?.dateModified ?? item.dateModified)}</dd>
        {meta?.dateCreated && (
          <>
            <dt>Created</dt>
            <dd>{formatDate(meta.dateCreated)}</dd>
          </>
        )}
        <dt>Where</dt>
        <dd dir="auto">{item.path}</dd>
        <dt>Tags</dt>
        <dd>
          <ItemTags path={path} name={item.name} />
        </dd>
        {meta && <MediaFacts meta={meta} />}
      </dl>
      <div class="actions" style={{ justifyContent: 'flex-start' }}>
        <button type="button" onClick={() => void download([refOf(item)], [item.kind])}>
          Download
        </button>
        {isText && (
          <button
            type="button"
            onClick={() => {
              editing.value = { path, name: item.name, kind: item.kind };
            }}
          >
            Edit text
          </button>
        )}
      </div>
      <Versions path={path} rev={rev} onRestored={bump} isText={isText} />
    </aside>
  );
}

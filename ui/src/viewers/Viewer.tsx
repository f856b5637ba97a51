// The full-window viewer: one file at a time, next/previous through the folder's files
// (arrow keys, buttons, swipe), Escape closes, download and "open in new tab". Pictures in a
// lightbox, PDF in the browser's own viewer (pdf.js where it has none that works: PdfView), audio (its cover and tags, with the folder's audio as a playlist) and
// video in the browser's player (Range streaming) or, for what it cannot play, the server's
// ffmpeg stream with a seek bar of our own (VideoPlayer), text read-only with syntax colours,
// Markdown rendered and sanitised, anything else a facts panel. Loaded on first use.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, apiUrl, joinPath } from '../api/client.ts';
import type { FileItem } from '../api/types.ts';
import { Icon } from '../components/common.tsx';
import { Lazy } from '../components/Lazy.tsx';
import { download, refOf } from '../folder/actions.ts';
import { detailsItem } from '../folder/interact.ts';
import { formatBytes, formatDate, kindLabel } from '../util.ts';
import { ImageView } from './ImageView.tsx';
import { browserShowsPdf, isEditable, viewKind } from './kinds.ts';
import { closeViewer, editing, viewAt, viewing } from './state.tsx';
import { TextView } from './TextView.tsx';
import { previewUrl } from './urls.ts';
import { SongCard } from './SongCard.tsx';
import { VideoPlayer } from './VideoPlayer.tsx';
import './viewer.css';

function Facts({ item, note }: { item: FileItem; note: string }) {
  return (
    <div class="viewer-message facts-card">
      <Icon name="file" size={56} />
      <p>
        <strong>{note}</strong>
      </p>
      <dl class="facts">
        <dt>Kind</dt>
        <dd>{kindLabel(item.kind)}</dd>
        <dt>Size</dt>
        <dd>{formatBytes(item.size)}</dd>
        <dt>Modified</dt>
        <dd>{formatDate(item.dateModified)}</dd>
        <dt>Where</dt>
        <dd dir="auto">{item.path}</dd>
      </dl>
      <button type="button" class="primary" onClick={() => void download([refOf(item)], [item.kind])}>
        Download
      </button>
    </div>
  );
}

function Playlist({
  items,
  current,
  onPick,
}: {
  items: FileItem[];
  current: FileItem;
  onPick: (item: FileItem) => void;
}) {
  const audio = items.filter((i) => viewKind(i.kind) === 'audio');
  if (audio.length < 2) return null;
  return (
    <ol class="playlist" aria-label="Playlist">
      {audio.map((i) => (
        <li key={i.name}>
          <button
            type="button"
            class="row-button"
            aria-current={i === current ? 'true' : undefined}
            onClick={() => onPick(i)}
          >
            <Icon name="audio" size={16} />
            <span class="name" dir="auto">
              {i.name}
            </span>
          </button>
        </li>
      ))}
    </ol>
  );
}

export default function Viewer() {
  const v = viewing.value!;
  const item = v.items[v.index]!;
  const path = joinPath(item.path, item.name);
  const kind = viewKind(item.kind);
  /** Changes when the file does (a save in the editor): the text is read again. */
  const version = `${path}\0${item.size}\0${item.dateModified}`;
  const root = useRef<HTMLDivElement>(null);
  const [restore] = useState(() => document.activeElement as HTMLElement | null);
  const count = v.items.length;

  const go = (step: 1 | -1) => {
    const cur = viewing.value;
    if (!cur || cur.items.length < 2) return;
    viewAt((cur.index + step + cur.items.length) % cur.items.length);
  };
  const goTo = (target: FileItem) => {
    const cur = viewing.value;
    if (cur) viewAt(cur.items.indexOf(target));
  };
  // Back closes the viewer (its entry is its own when it opened from the folder: state.tsx).
  const close = closeViewer;
  const nextAudio = () => {
    const cur = viewing.value;
    if (!cur) return;
    for (let k = 1; k < cur.items.length; k++) {
      const i = (cur.index + k) % cur.items.length;
      if (i <= cur.index) break; // the playlist ends at the folder's end
      if (viewKind(cur.items[i]!.kind) === 'audio') {
        viewAt(i);
        return;
      }
    }
  };

  useEffect(() => {
    root.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (document.querySelector('dialog[open]')) return;
      const t = e.target as HTMLElement;
      const typing = t.closest('.cm-editor, input, textarea, select, audio, video');
      if (e.key === 'Escape') {
        e.preventDefault();
        close();
        return;
      }
      if (typing) return;
      if (e.key === 'ArrowRight' || e.key === 'PageDown') {
        e.preventDefault();
        go(1);
      } else if (e.key === 'ArrowLeft' || e.key === 'PageUp') {
        e.preventDefault();
        go(-1);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('keydown', onKey);
      restore?.focus?.();
    };
  }, []);

  let body;
  if (kind === 'image') body = <ImageView key={path} item={item} path={path} onSwipe={go} />;
  else if (kind === 'pdf')
    body = browserShowsPdf() ? (
      <iframe key={version} class="pdf-frame" title={item.name} src={previewUrl(path)} />
    ) : (
      <Lazy key={version} load={() => import('./PdfView.tsx')} props={{ url: previewUrl(path), name: item.name }} />
    );
  else if (kind === 'video')
    body = (
      <VideoPlayer
        key={path}
        class="media"
        name={item.name}
        source={{
          key: version,
          plan: () => api('GET /api/video/plan', { query: { path } }),
          directUrl: previewUrl(path),
          streamUrl: (start) => apiUrl('GET /api/video/stream', { query: { path, start } }),
        }}
      />
    );
  else if (kind === 'audio')
    body = (
      <div class="audio-stage">
        <SongCard path={path} name={item.name} />
        <audio
          key={path}
          class="media"
          src={previewUrl(path)}
          controls
          autoplay
          preload="metadata"
          onEnded={nextAudio}
          aria-label={`Player: ${item.name}`}
        />
        <Playlist items={v.items} current={item} onPick={goTo} />
      </div>
    );
  else if (kind === 'markdown')
    body = <Lazy key={version} load={() => import('./MarkdownView.tsx')} props={{ path }} />;
  else if (kind === 'text') body = <TextView key={version} path={path} kind={item.kind} />;
  else body = <Facts item={item} note="No preview for this kind of file." />;

  const canOpenTab = kind !== 'none';
  return (
    <div class="viewer" ref={root} tabIndex={-1} role="dialog" aria-modal="true" aria-label={`Viewer: ${item.name}`}>
      <header class="viewer-bar">
        <button type="button" class="icon-button" aria-label="Close viewer" onClick={close}>
          <Icon name="close" />
        </button>
        <div class="viewer-title">
          <span class="name" dir="auto" title={item.name}>
            {item.name}
          </span>
          <span class="muted small">
            {count > 1 ? `${v.index + 1} of ${count} · ` : ''}
            {formatBytes(item.size)}
          </span>
        </div>
        {count > 1 && (
          <button type="button" class="icon-button" aria-label="Previous file" onClick={() => go(-1)}>
            ‹
          </button>
        )}
        {count > 1 && (
          <button type="button" class="icon-button" aria-label="Next file" onClick={() => go(1)}>
            ›
          </button>
        )}
        {isEditable(item.kind) && v.canWrite && (
          <button
            type="button"
            onClick={() => {
              editing.value = { path, name: item.name, kind: item.kind };
            }}
          >
            Edit
          </button>
        )}
        <button
          type="button"
          class="icon-button"
          aria-label="Download"
          title="Download"
          onClick={() => void download([refOf(item)], [item.kind])}
        >
          <Icon name="download" />
        </button>
        {canOpenTab && (
          <a
            class="button icon-button"
            href={previewUrl(path)}
            target="_blank"
            rel="noopener noreferrer"
            aria-label="Open in a new tab"
            title="Open in a new tab"
          >
            <Icon name="external" />
          </a>
        )}
        <button
          type="button"
          class="icon-button wide-only"
          aria-label="Details and versions"
          title="Details and versions"
          onClick={() => {
            detailsItem.value = item;
            close();
          }}
        >
          <Icon name="info" />
        </button>
      </header>
      <div class={`viewer-body kind-${kind}`}>{body}</div>
    </div>
  );
}

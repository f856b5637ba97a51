// One file of a link: a preview where the browser can show it safely (pictures, video, audio,
// PDF through pdf.js, text as text — never markup run on our origin), download, and the editor
// where allowed. Over a shared folder it is a lightbox: next/previous through the folder's files
// (buttons, arrow keys, a swipe on touch), Escape or the close button ends it.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { FileItem } from '../api/types.ts';
import { ErrorNote, Icon, Spinner } from '../components/common.tsx';
import { Lazy } from '../components/Lazy.tsx';
import { formatBytes, formatDate, kindLabel } from '../util.ts';
import { isEditable, RENDITION_ONLY, viewKind } from '../viewers/kinds.ts';
import { request } from '../api/client.ts';
import type { LinkApi, LinkInfo } from './api.ts';
import { VideoPlayer } from '../viewers/VideoPlayer.tsx';

/** Pictures up to this size are shown as they are; larger ones (and HEIC, TIFF…) as the server's screen-sized rendition. */
const DIRECT_BYTES = 1.5 * 1024 * 1024;

function TextPreview({ url }: { url: string }) {
  const [text, setText] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    setText(null);
    setError(null);
    request('GET', url, undefined, { allow401: true, headers: { accept: '*/*', range: 'bytes=0-1048575' } })
      .then((r) => r.text())
      .then(setText, setError);
  }, [url]);
  if (error) return <ErrorNote error={error} />;
  if (text === null) return <Spinner />;
  return (
    <pre class="link-text" dir="auto">
      {text}
    </pre>
  );
}

function Picture({ api, rel, item }: { api: LinkApi; rel: string; item: FileItem }) {
  const [failed, setFailed] = useState(false);
  useEffect(() => setFailed(false), [rel]);
  const screen =
    Math.max(window.screen.width, window.screen.height, window.innerWidth, window.innerHeight) *
    (window.devicePixelRatio || 1);
  // A listing gives the size; a link to one file does not (0): its rendition, which the server
  // never makes larger than the picture.
  const direct = item.kind === 'gif' || (!RENDITION_ONLY.has(item.kind) && item.size > 0 && item.size <= DIRECT_BYTES);
  const src = direct ? api.fileUrl(rel, 'inline') : api.thumbnailUrl(rel, Math.round(screen));
  if (failed) return <p class="muted">This picture cannot be shown here. Download it to open it in another program.</p>;
  return (
    <div class="link-stage">
      <img key={src} class="link-image" src={src} alt={item.name} draggable={false} onError={() => setFailed(true)} />
    </div>
  );
}

export function LinkPreview({
  api,
  info,
  item,
  rel,
  inline,
  onClose,
  onSaved,
  onStep,
  position,
}: {
  api: LinkApi;
  info: LinkInfo;
  item: FileItem;
  rel: string;
  inline?: boolean;
  onClose?: () => void;
  onSaved?: () => void;
  /** Next (1) or previous (-1) file of the folder; absent when there is no other. */
  onStep?: (step: 1 | -1) => void;
  /** "3 of 12" */
  position?: string;
}) {
  const [editing, setEditing] = useState(false);
  const swipe = useRef<{ x: number; y: number; id: number } | null>(null);
  const root = useRef<HTMLElement>(null);
  // The lightbox takes the keyboard's focus (and gives it back where it was when it closes).
  useEffect(() => {
    if (inline) return;
    const before = document.activeElement as HTMLElement | null;
    root.current?.focus();
    return () => before?.focus?.();
  }, [inline]);
  const kind = viewKind(item.kind);
  const src = api.fileUrl(rel, 'inline');
  const canEdit = info.allow.edit && isEditable(item.kind) && item.kind !== 'svg';

  // The lightbox's keys: Escape closes, arrows step (not while typing, a dialog or the editor is open).
  // The listener reads the handlers of the latest render: a key pressed right after a step, before
  // an effect could register a new listener, must step from where the lightbox is now, not from where
  // the previous render was (it went back two photos, or to the last one).
  const handlers = useRef({ onClose, onStep });
  handlers.current = { onClose, onStep };
  useEffect(() => {
    if (inline || editing) return;
    const onKey = (e: KeyboardEvent) => {
      const { onClose, onStep } = handlers.current;
      if (document.querySelector('dialog[open]')) return;
      const t = e.target as HTMLElement;
      if (e.key === 'Escape') {
        e.preventDefault();
        onClose?.();
        return;
      }
      if (t.closest('input, textarea, select, audio, video, .cm-editor, .pdf-stage')) return;
      if (e.key === 'ArrowRight' && onStep) {
        e.preventDefault();
        onStep(1);
      } else if (e.key === 'ArrowLeft' && onStep) {
        e.preventDefault();
        onStep(-1);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [inline, editing]);

  let body;
  if (!info.allow.download)
    body = <p class="muted">This link does not allow viewing or downloading the file's content.</p>;
  else if (kind === 'image') body = <Picture api={api} rel={rel} item={item} />;
  else if (kind === 'video')
    body = (
      <VideoPlayer
        key={src}
        class="link-media"
        name={item.name}
        source={{
          key: src,
          plan: () => api.videoPlan(rel),
          directUrl: src,
          streamUrl: (start) => api.videoStreamUrl(rel, start),
        }}
      />
    );
  else if (kind === 'audio') body = <audio key={src} src={src} controls preload="metadata" />;
  else if (kind === 'pdf')
    // pdf.js in every browser: a link's file comes sandboxed, and no browser draws a PDF in a sandbox.
    body = (
      <div class="link-stage">
        <Lazy key={src} load={() => import('../viewers/PdfView.tsx')} props={{ url: src, name: item.name }} />
      </div>
    );
  else if (kind === 'text' || kind === 'markdown') body = <TextPreview url={api.fileUrl(rel, 'raw')} />;
  else
    body = (
      <p class="muted">
        {kindLabel(item.kind)}
        {item.size ? ` · ${formatBytes(item.size)}` : ''}
        {item.dateModified ? ` · ${formatDate(item.dateModified)}` : ''} — no preview; download it to open.
      </p>
    );
  return (
    <section
      ref={root}
      tabIndex={inline ? undefined : -1}
      class={inline ? 'link-file' : 'link-preview'}
      role={inline ? undefined : 'dialog'}
      aria-modal={inline ? undefined : 'true'}
      aria-label={item.name}
    >
      <header class="link-preview-bar">
        {onClose && (
          <button type="button" class="icon-button" aria-label="Close" title="Close (Esc)" onClick={onClose}>
            <Icon name="close" />
          </button>
        )}
        <span class="name" dir="auto" title={item.name}>
          {item.name}
          {position && <span class="muted small link-position">{position}</span>}
        </span>
        {onStep && (
          <>
            <button type="button" class="icon-button" aria-label="Previous file" onClick={() => onStep(-1)}>
              ‹
            </button>
            <button type="button" class="icon-button" aria-label="Next file" onClick={() => onStep(1)}>
              ›
            </button>
          </>
        )}
        {canEdit && (
          <button type="button" onClick={() => setEditing(true)}>
            Edit
          </button>
        )}
        {info.allow.download && (
          <a
            class="button primary"
            href={api.fileUrl(rel, 'download')}
            download={item.name}
            aria-label={`Download ${item.name}`}
          >
            <Icon name="download" size={16} /> <span class="wide-only">Download</span>
          </a>
        )}
      </header>
      <div
        class={`link-preview-body kind-${kind}`}
        onPointerDown={(e) => {
          if (e.pointerType === 'touch' && e.isPrimary) swipe.current = { x: e.clientX, y: e.clientY, id: e.pointerId };
        }}
        onPointerUp={(e) => {
          const s = swipe.current;
          swipe.current = null;
          if (!s || s.id !== e.pointerId || !onStep) return;
          // A horizontal swipe steps: towards the left is the next file.
          const dx = e.clientX - s.x,
            dy = e.clientY - s.y;
          if (Math.abs(dx) > 60 && Math.abs(dx) > Math.abs(dy) * 1.5) onStep(dx < 0 ? 1 : -1);
        }}
        onPointerCancel={() => {
          swipe.current = null;
        }}
      >
        {body}
      </div>
      {editing && (
        <Lazy
          load={() => import('../editor/Editor.tsx')}
          props={{
            file: { path: rel || item.name, name: item.name, kind: item.kind },
            onClose: () => setEditing(false),
            adapter: {
              editorUrl: api.editorUrl(rel),
              rawUrl: api.fileUrl(rel, 'raw'),
              save: (content: string, headers: Record<string, string>) => api.save(rel, content, headers),
              onSaved,
            },
          }}
        />
      )}
    </section>
  );
}

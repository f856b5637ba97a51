// One file of a link: a preview where the browser can show it safely (pictures, video, audio,
// text as text — never markup run on our origin), download, and the editor where allowed.
import { useEffect, useState } from 'preact/hooks';
import type { FileItem } from '../api/types.ts';
import { ErrorNote, Icon, Spinner } from '../components/common.tsx';
import { Lazy } from '../components/Lazy.tsx';
import { formatBytes, formatDate, kindLabel } from '../util.ts';
import { isEditable, RENDITION_ONLY, viewKind } from '../viewers/kinds.ts';
import { request } from '../api/client.ts';
import type { LinkApi, LinkInfo } from './api.ts';

function TextPreview({ url }: { url: string }) {
  const [text, setText] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
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

export function LinkPreview({
  api,
  info,
  item,
  rel,
  inline,
  onClose,
  onSaved,
}: {
  api: LinkApi;
  info: LinkInfo;
  item: FileItem;
  rel: string;
  inline?: boolean;
  onClose?: () => void;
  onSaved?: () => void;
}) {
  const [editing, setEditing] = useState(false);
  const kind = RENDITION_ONLY.has(item.kind) ? 'none' : viewKind(item.kind);
  const src = api.fileUrl(rel, 'inline');
  const canEdit = info.allow.edit && isEditable(item.kind) && item.kind !== 'svg';
  let body;
  if (!info.allow.download)
    body = <p class="muted">This link does not allow viewing or downloading the file's content.</p>;
  else if (kind === 'image') body = <img class="link-image" src={src} alt={item.name} />;
  else if (kind === 'video') body = <video class="link-media" src={src} controls preload="metadata" />;
  else if (kind === 'audio') body = <audio src={src} controls preload="metadata" />;
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
    <section class={inline ? 'link-file' : 'link-preview'} role={inline ? undefined : 'dialog'} aria-label={item.name}>
      <header class="link-preview-bar">
        {onClose && (
          <button type="button" class="icon-button" aria-label="Close" onClick={onClose}>
            <Icon name="close" />
          </button>
        )}
        <span class="name" dir="auto">
          {item.name}
        </span>
        {canEdit && (
          <button type="button" onClick={() => setEditing(true)}>
            Edit
          </button>
        )}
        {info.allow.download && (
          <a class="button primary" href={api.fileUrl(rel, 'download')} download={item.name}>
            <Icon name="download" size={16} /> Download
          </a>
        )}
      </header>
      <div class="link-preview-body">{body}</div>
      {editing && (
        <Lazy
          load={() => import('../editor/Editor.tsx')}
          props={{
            file: { path: rel || item.name, name: item.name, kind: item.kind },
            onClose: () => setEditing(false),
            adapter: {
              editorUrl: api.editorUrl(rel),
              rawUrl: api.fileUrl(rel, 'raw'),
              save: (content: string, headers: Record<string, string>) =>
                request('PUT', `${api.base}/editor`, { path: rel, content }, { allow401: true, headers }),
              onSaved,
            },
          }}
        />
      )}
    </section>
  );
}

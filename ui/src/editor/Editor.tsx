// The text editor, full-window: CodeMirror 6 (line numbers, search and replace, syntax by
// extension), Ctrl/Cmd+S saves. The file's encoding and line endings are shown and kept (the
// server writes the encoding the file has; the lines are joined with the endings they had).
// Unsaved changes are guarded on close, Back and tab close. A save carries the ETag the text
// was read with (If-Match): the server refuses it (412) when someone changed the file
// meanwhile, checked as it writes, and the person chooses; "Replace with mine" saves without
// the condition. The replaced content is kept as a version either way.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, apiFetch, apiUrl, request } from '../api/client.ts';
import { confirmDialog } from '../components/Dialog.tsx';
import { ErrorNote, Icon, Spinner } from '../components/common.tsx';
import { listing, reload } from '../folder/model.ts';
import { toast } from '../state/toasts.ts';
import { refreshViewed } from '../viewers/state.tsx';
import { rawUrl } from '../viewers/urls.ts';
import type { EditorView } from './codemirror.ts';
import '../viewers/viewer.css';

type Endings = 'LF' | 'CRLF' | 'CR';
const SEPARATOR: Record<Endings, string> = { LF: '\n', CRLF: '\r\n', CR: '\r' };

/** The same reading as the server's (src/files/text.ts): BOM, then strict UTF-8, else Latin-1. */
export function encodingOf(bytes: Uint8Array): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'UTF-8 with BOM';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'UTF-16 LE';
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return 'UTF-8';
  } catch {
    return 'Latin-1 (ISO-8859-1)';
  }
}

export function endingsOf(text: string): { endings: Endings; mixed: boolean } {
  const crlf = (text.match(/\r\n/g) ?? []).length;
  const lf = (text.match(/(?<!\r)\n/g) ?? []).length;
  const cr = (text.match(/\r(?!\n)/g) ?? []).length;
  const most = Math.max(crlf, lf, cr);
  const endings: Endings = most === 0 || most === lf ? 'LF' : most === crlf ? 'CRLF' : 'CR';
  return { endings, mixed: [crlf, lf, cr].filter((n) => n > 0).length > 1 };
}

interface Loaded {
  etag: string | null;
  encoding: string;
  endings: Endings;
  mixed: boolean;
}

/** Another home for the file (a share link): where it is read and saved, and what to do after a save. */
export interface EditorAdapter {
  editorUrl: string;
  rawUrl: string;
  /** Sends the text with `headers` (If-Match when the person has not chosen to replace). */
  save: (content: string, headers: Record<string, string>) => Promise<Response>;
  onSaved?: () => void;
}

export default function Editor({
  file,
  onClose,
  adapter,
}: {
  file: { path: string; name: string; kind: string };
  onClose: () => void;
  adapter?: EditorAdapter;
}) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [dirty, setDirty] = useState(false);
  const [saving, setSaving] = useState(false);
  const dirtyRef = useRef(false);
  const info = useRef<Loaded | null>(null);
  const closing = useRef(false);
  // A save in flight, read from a ref: key handlers registered by an earlier render (CodeMirror's
  // keymap, the window listener before its effect re-runs) must see the current state, not
  // the one of the render that made them. One Ctrl+S starts exactly one save.
  const savingNow = useRef(false);
  const saveLatest = useRef<() => Promise<void>>(async () => {});
  dirtyRef.current = dirty;

  const editorUrl = adapter?.editorUrl ?? apiUrl('GET /api/editor', { query: { path: file.path } });

  useEffect(() => {
    let live = true;
    (async () => {
      try {
        const [res, raw, cm] = await Promise.all([
          request('GET', editorUrl),
          fetch(adapter?.rawUrl ?? rawUrl(file.path), { credentials: 'same-origin', cache: 'no-store' }).then(
            async (r) => (r.ok ? new Uint8Array(await r.arrayBuffer()) : null),
          ),
          import('./codemirror.ts'),
        ]);
        const { content } = (await res.json()) as { content: string };
        if (!live) return;
        const e = endingsOf(content);
        const l: Loaded = { etag: res.headers.get('etag'), encoding: raw ? encodingOf(raw) : 'UTF-8', ...e };
        info.current = l;
        setLoaded(l);
        view.current = await cm.createEditor({
          parent: host.current!,
          doc: content,
          kind: file.kind,
          readOnly: false,
          onChange: () => setDirty(true),
          onSave: () => void saveLatest.current(),
        });
        view.current.focus();
      } catch (err) {
        if (live) setError(err);
      }
    })();
    return () => {
      live = false;
      view.current?.destroy();
    };
  }, [file.path]);

  // Tab close and reload: the browser's own question (the only one it allows there).
  useEffect(() => {
    const before = (e: BeforeUnloadEvent) => {
      if (dirtyRef.current) {
        e.preventDefault();
        e.returnValue = '';
      }
    };
    window.addEventListener('beforeunload', before);
    // Back: one history entry of our own, so Back closes the editor (asking first when changed).
    history.pushState({ burrowEditor: true }, '', window.location.href);
    const onPop = () => {
      if (closing.current) return;
      if (!dirtyRef.current) {
        closing.current = true;
        onClose();
        return;
      }
      history.pushState({ burrowEditor: true }, '', window.location.href);
      void confirmLeave().then((ok) => {
        if (ok) {
          closing.current = true;
          history.back();
          onClose();
        }
      });
    };
    window.addEventListener('popstate', onPop);
    return () => {
      window.removeEventListener('beforeunload', before);
      window.removeEventListener('popstate', onPop);
    };
  }, []);

  const confirmLeave = () =>
    confirmDialog({
      title: 'Discard unsaved changes?',
      body: `Your changes to “${file.name}” are not saved.`,
      confirm: 'Discard changes',
      danger: true,
    });

  const close = async () => {
    if (dirtyRef.current && !(await confirmLeave())) return;
    closing.current = true;
    if (history.state?.burrowEditor) history.back();
    onClose();
  };

  async function save(): Promise<void> {
    const v = view.current;
    const l = info.current;
    if (!v || !l || savingNow.current) return;
    savingNow.current = true;
    setSaving(true);
    setError(null);
    try {
      const content = v.state.doc.sliceString(0, v.state.doc.length, SEPARATOR[l.endings]);
      const send = (headers: Record<string, string>) =>
        adapter
          ? adapter.save(content, headers)
          : apiFetch('PUT /api/editor', { body: { path: file.path, content } }, { headers });
      let res: Response;
      try {
        // Only over the file we opened: the server compares as it writes.
        res = await send(l.etag ? { 'if-match': l.etag } : {});
      } catch (err) {
        if (!(err instanceof ApiError && err.status === 412)) throw err;
        const replace = await confirmDialog({
          title: 'The file changed since you opened it',
          body: `Someone (or another tab) saved “${file.name}” after you opened it. Replace it with your text? What is there now is kept as an earlier version.`,
          confirm: 'Replace with mine',
          danger: true,
        });
        if (!replace) return;
        res = await send({});
      }
      info.current = { ...l, etag: res.headers.get('etag') };
      setLoaded(info.current);
      setDirty(false);
      toast(`Saved ${file.name}`);
      if (adapter) adapter.onSaved?.();
      // The folder's listing, and the viewer this editor came from: its size and date are the saved file's.
      else void reload().then(() => refreshViewed(listing.value?.items ?? []));
    } catch (err) {
      setError(err);
    } finally {
      savingNow.current = false;
      setSaving(false);
    }
  }
  saveLatest.current = save;

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 's') {
        // Taken here for the whole window; CodeMirror's own Mod-s never sees it (one save).
        e.preventDefault();
        e.stopPropagation();
        void saveLatest.current();
      } else if (
        e.key === 'Escape' &&
        !document.querySelector('dialog[open]') &&
        !(e.target as HTMLElement).closest('.cm-panel')
      ) {
        e.preventDefault();
        e.stopPropagation();
        void close();
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  });

  return (
    <div class="editor-window" role="dialog" aria-modal="true" aria-label={`Editing ${file.name}`}>
      <header class="viewer-bar">
        <button type="button" class="icon-button" aria-label="Close editor" onClick={() => void close()}>
          <Icon name="close" />
        </button>
        <div class="viewer-title">
          <span class="name" dir="auto">
            {file.name}
          </span>
          <span class="muted small">{file.path}</span>
        </div>
        <button
          type="button"
          class="wide-only"
          onClick={() => {
            if (view.current) void import('./codemirror.ts').then((cm) => cm.openSearchPanel(view.current!));
          }}
        >
          Find and replace
        </button>
        <button type="button" class="primary" disabled={!dirty || saving} onClick={() => void save()}>
          {saving ? 'Saving…' : 'Save'}
        </button>
      </header>
      <ErrorNote error={error} />
      <div class="editor-body">
        {!loaded && !error && <Spinner label="Loading the file" />}
        <div class="code-host" ref={host} />
      </div>
      {loaded && (
        <footer class="editor-status" aria-label="File format">
          <span class={dirty ? 'dirty' : undefined} role="status">
            {dirty ? 'Unsaved changes' : 'Saved'}
          </span>
          <span title="Kept when saving">Encoding: {loaded.encoding}</span>
          <span title="Kept when saving">
            Line endings: {loaded.endings}
            {loaded.mixed ? ' (mixed; saved as ' + loaded.endings + ')' : ''}
          </span>
          <span class="wide-only">Ctrl+S saves · Ctrl+F finds</span>
        </footer>
      )}
    </div>
  );
}

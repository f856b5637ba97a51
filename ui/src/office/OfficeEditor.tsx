// An office document in its editor, full-window. WOPI: the page asks for the editor address
// and an access_token, then posts the token in a form aimed at the editor's frame (as WOPI
// hosts do: the token never appears in an address). ONLYOFFICE: the document server's api.js
// builds the editor from the signed config.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, describeError } from '../api/client.ts';
import type { OfficeDocument } from './state.tsx';
import type { ApiAnswer } from '../../../src/contract.ts';
import './office.css';

type WopiConfig = ApiAnswer<'POST /api/officeeditor/config'>;
declare global {
  interface Window {
    DocsAPI?: { DocEditor: new (id: string, config: Record<string, unknown>) => { destroyEditor(): void } };
  }
}

function loadScript(src: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (document.querySelector(`script[src="${CSS.escape(src)}"]`) && window.DocsAPI) return resolve();
    const el = document.createElement('script');
    el.src = src;
    el.onload = () => resolve();
    el.onerror = () => reject(new Error('The document server could not be reached.'));
    document.head.appendChild(el);
  });
}

export default function OfficeEditor({ doc, onClose }: { doc: OfficeDocument; onClose: () => void }) {
  const form = useRef<HTMLFormElement>(null);
  const [wopi, setWopi] = useState<WopiConfig | null>(null);
  const [error, setError] = useState<string | null>(null);
  const full = doc.path ? `${doc.path}/${doc.name}` : doc.name;

  useEffect(() => {
    let editor: { destroyEditor(): void } | null = null;
    let live = true;
    (async () => {
      try {
        if (doc.kind === 'wopi') {
          const c = await api('POST /api/officeeditor/config', { body: { path: full, mode: doc.mode } });
          if (live) setWopi(c);
        } else {
          const c = await api('POST /api/onlyoffice/config', { body: { path: full, mode: doc.mode } });
          await loadScript(`${c.documentServerUrl.replace(/\/+$/, '')}/web-apps/apps/api/documents/api.js`);
          if (live && window.DocsAPI)
            editor = new window.DocsAPI.DocEditor('office-onlyoffice', { ...c.config, width: '100%', height: '100%' });
        }
      } catch (err) {
        if (live) setError(describeError(err).message);
      }
    })();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') onClose();
    };
    window.addEventListener('keydown', onKey);
    return () => {
      live = false;
      window.removeEventListener('keydown', onKey);
      editor?.destroyEditor();
    };
  }, [full, doc.kind, doc.mode]);

  // The form is submitted once it is rendered with the answer: its target is the frame below.
  useEffect(() => {
    if (wopi) form.current?.submit();
  }, [wopi]);

  return (
    <div class="office-editor" role="dialog" aria-label={`${doc.name} in the office editor`}>
      <header class="office-bar">
        <strong title={full}>{doc.name}</strong>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </header>
      {error && (
        <p class="office-error" role="alert">
          {error}
        </p>
      )}
      {doc.kind === 'wopi' && (
        <>
          {wopi && (
            <form ref={form} action={wopi.urlSrc} method="post" target="office-frame" class="office-form">
              <input type="hidden" name="access_token" value={wopi.access_token} />
              <input type="hidden" name="access_token_ttl" value={String(wopi.access_token_ttl)} />
            </form>
          )}
          <iframe
            name="office-frame"
            title={`Editor for ${doc.name}`}
            class="office-frame"
            allow="clipboard-read; clipboard-write; fullscreen"
          />
        </>
      )}
      {doc.kind === 'onlyoffice' && (
        <div class="office-frame">
          <div id="office-onlyoffice" />
        </div>
      )}
    </div>
  );
}

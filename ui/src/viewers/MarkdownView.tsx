// Markdown rendered by marked and cleaned by DOMPurify before it touches the page: no script,
// no event handlers, no frames or forms. Pictures from other sites stay blocked until the
// person asks (a remote picture tells its server who read the document and when); pictures
// beside the document are shown through the preview route.
import { useEffect, useMemo, useState } from 'preact/hooks';
import DOMPurify from 'dompurify';
import { marked } from 'marked';
import { parentOf } from '../api/client.ts';
import { ErrorNote, Spinner } from '../components/common.tsx';
import { fetchText } from './TextView.tsx';
import { filesUrl, navigate } from '../state/router.ts';
import { previewUrl } from './urls.ts';

const REMOTE = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

/** The virtual path a relative (or volume-absolute) reference names from `folder`; null outside. */
function localPath(ref: string, folder: string): string | null {
  let p = ref.split(/[?#]/)[0]!;
  try {
    p = decodeURIComponent(p);
  } catch {
    /* kept as written */
  }
  return normalise(p.startsWith('/') ? p : `${folder}/${p}`);
}

/** `a/b/../c` → `a/c`; null when it climbs above the top. */
function normalise(path: string): string | null {
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (!part || part === '.') continue;
    if (part === '..') {
      if (!out.length) return null;
      out.pop();
    } else out.push(part);
  }
  return out.join('/');
}

export function renderMarkdown(
  source: string,
  folder: string,
  allowRemote: boolean,
): { html: string; blocked: number } {
  let blocked = 0;
  const purify = DOMPurify();
  purify.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName === 'A') {
      const href = node.getAttribute('href') ?? '';
      if (REMOTE.test(href)) {
        node.setAttribute('target', '_blank');
        node.setAttribute('rel', 'noopener noreferrer');
      } else if (href && !href.startsWith('#')) {
        // A file or folder beside the document (`../Notes/todo.md`): its address in Burrow.
        const local = localPath(href, folder);
        if (local) {
          node.setAttribute('href', filesUrl(local));
          node.setAttribute('data-local', '');
        } else node.removeAttribute('href');
      }
    }
    if (node.tagName === 'INPUT') {
      // A task list's box (`- [x] milk`): shown, never a control. Any other input becomes one too.
      const checked = node.hasAttribute('checked');
      for (const name of node.getAttributeNames()) node.removeAttribute(name);
      node.setAttribute('type', 'checkbox');
      node.setAttribute('disabled', '');
      if (checked) node.setAttribute('checked', '');
      node.setAttribute('aria-label', checked ? 'Done' : 'Not done');
      node.parentElement?.classList.add('task');
    }
    if (node.tagName === 'IMG') {
      const src = node.getAttribute('src') ?? '';
      node.removeAttribute('srcset');
      if (/^data:image\//i.test(src)) return;
      if (REMOTE.test(src)) {
        if (!allowRemote) {
          blocked++;
          node.setAttribute('data-blocked-src', src);
          node.removeAttribute('src');
          node.setAttribute('alt', `[picture from ${src.replace(/^[a-z]+:\/\//i, '').split('/')[0]} not loaded]`);
        }
        return;
      }
      const local = localPath(src, folder);
      if (!local) node.removeAttribute('src');
      else node.setAttribute('src', previewUrl(local));
    }
  });
  const raw = marked.parse(source, { async: false, gfm: true }) as string;
  const html = purify.sanitize(raw, {
    FORBID_TAGS: ['style', 'form', 'button', 'select', 'textarea', 'iframe', 'object', 'embed'],
    FORBID_ATTR: ['style'],
  });
  return { html, blocked };
}

export default function MarkdownView({ path }: { path: string }) {
  const [source, setSource] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [allowRemote, setAllowRemote] = useState(false);
  useEffect(() => {
    const controller = new AbortController();
    setSource(null);
    setError(null);
    setAllowRemote(false);
    fetchText(path, controller.signal).then(
      (r) => setSource(r.text),
      (err) => {
        if (!controller.signal.aborted) setError(err);
      },
    );
    return () => controller.abort();
  }, [path]);
  const rendered = useMemo(
    () => (source === null ? null : renderMarkdown(source, parentOf(path), allowRemote)),
    [source, allowRemote, path],
  );
  if (error)
    return (
      <div class="viewer-message">
        <ErrorNote error={error} />
      </div>
    );
  if (!rendered) return <Spinner label="Loading the document" />;
  return (
    <div class="markdown-stage">
      {rendered.blocked > 0 && (
        <p class="notice remote-note">
          {rendered.blocked} picture{rendered.blocked === 1 ? '' : 's'} from other sites not loaded.
          <button type="button" class="small" onClick={() => setAllowRemote(true)}>
            Show remote pictures
          </button>
        </p>
      )}
      <article
        class="markdown-body"
        dir="auto"
        onClick={(e) => {
          // A link to a file or folder opens here (a modified click opens a new tab, at the same address).
          const a = (e.target as Element).closest('a[data-local]');
          if (!a || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey || e.button !== 0) return;
          e.preventDefault();
          navigate(a.getAttribute('href')!);
        }}
        dangerouslySetInnerHTML={{ __html: rendered.html }}
      />
    </div>
  );
}

// The page a link opens (/s/<token>), for people without an account too: the password prompt
// (with the wait the server asks for after too many tries), the shared folder to browse, a
// shared file, or a file request's drop page. What the link allows decides what is offered;
// the server checks every request again.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, joinPath } from '../api/client.ts';
import type { FileItem } from '../api/types.ts';
import { ErrorNote, Spinner } from '../components/common.tsx';
import { Tray } from '../components/Tray.tsx';
import { useSubmit } from '../components/useSubmit.ts';
import { location } from '../state/router.ts';
import { toastError } from '../state/toasts.ts';
import { linkApi, type LinkApi, type LinkInfo } from './api.ts';
import { FolderLink } from './VisitorFolder.tsx';
import { DropPage } from './DropPage.tsx';
import { LinkPreview } from './LinkPreview.tsx';
import './shares.css';

export function Gone() {
  return (
    <main class="auth-page">
      <div class="auth-card stack visitor-gone">
        <h1>This link does not exist or has expired</h1>
        <p class="muted">Ask the person who sent it for a new one.</p>
      </div>
    </main>
  );
}

function PasswordGate({ api, info, onOpen }: { api: LinkApi; info: LinkInfo; onOpen: () => void }) {
  const [password, setPassword] = useState('');
  const [wait, setWait] = useState(0);
  const { busy, error, setError, run } = useSubmit();
  useEffect(() => {
    if (wait <= 0) return;
    const t = setTimeout(() => setWait(wait - 1), 1000);
    return () => clearTimeout(t);
  }, [wait]);
  const submit = (e: Event) => {
    e.preventDefault();
    void run(
      async () => {
        await api.unlock(password);
        onOpen();
      },
      (err) => {
        if (err instanceof ApiError && err.status === 429) setWait(err.retryAfter ?? 60);
        setError(err);
      },
    );
  };
  return (
    <main class="auth-page">
      <form class="auth-card stack" onSubmit={submit}>
        <h1 dir="auto">{info.label || info.name}</h1>
        <p>This link is protected by a password.</p>
        <label>
          Password
          <input
            type="password"
            autocomplete="current-password"
            autoFocus
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        {wait > 0 ? (
          <div class="error-note" role="alert">
            Too many tries. Try again in {wait} s.
          </div>
        ) : (
          <ErrorNote error={error} />
        )}
        <button class="primary" disabled={busy || wait > 0 || !password}>
          Open
        </button>
      </form>
    </main>
  );
}

function SignInNeeded({ info }: { info: LinkInfo }) {
  return (
    <main class="auth-page">
      <div class="auth-card stack">
        <h1 dir="auto">{info.label || info.name}</h1>
        <p>This link is shared with named accounts. Sign in with yours, then open the link again.</p>
        <a class="button primary" href="/">
          Sign in
        </a>
      </div>
    </main>
  );
}

function FileLink({ api, info }: { api: LinkApi; info: LinkInfo }) {
  const item: FileItem = {
    name: info.name,
    path: '',
    size: 0,
    dateModified: '',
    kind: info.name.includes('.') ? info.name.slice(info.name.lastIndexOf('.') + 1).toLowerCase() : 'unknown',
  };
  return <LinkPreview api={api} info={info} item={item} rel="" inline />;
}

export default function Visitor({ token }: { token: string }) {
  const api = linkApi(token);
  const [info, setInfo] = useState<LinkInfo | null>(null);
  const [state, setState] = useState<'loading' | 'gone' | 'error' | 'ready'>('loading');
  const [error, setError] = useState<unknown>(null);
  const load = () =>
    api.info().then(
      (i) => {
        setInfo(i);
        setState('ready');
      },
      (err) => {
        if (err instanceof ApiError && err.status === 404) setState('gone');
        else {
          setError(err);
          setState('error');
        }
      },
    );
  useEffect(() => {
    document.title = 'Shared with you · Burrow';
    void load();
  }, [token]);
  if (state === 'loading')
    return (
      <div class="center boot">
        <Spinner />
      </div>
    );
  if (state === 'gone') return <Gone />;
  if (state === 'error' || !info)
    return (
      <main class="auth-page">
        <div class="auth-card stack">
          <ErrorNote error={error} />
          <button type="button" class="primary" onClick={() => void load()}>
            Try again
          </button>
        </div>
      </main>
    );
  if (info.needsPassword) return <PasswordGate api={api} info={info} onOpen={() => void load()} />;
  const rel = location.value.query.get('path') ?? '';
  return (
    <div class="visitor">
      <header class="topbar visitor-bar">
        <span class="logo">
          <img src="/favicon.svg" width="26" height="26" alt="" />
          <span>Burrow</span>
        </span>
        <span class="visitor-title" dir="auto">
          {info.label || info.name}
        </span>
      </header>
      <main id="main" class="visitor-main">
        {info.isFileRequest ? (
          <DropPage api={api} info={info} />
        ) : info.isDirectory ? (
          <FolderLink
            api={api}
            info={info}
            rel={rel}
            onSignIn={() => setState('ready')}
            signInNeeded={<SignInNeeded info={info} />}
          />
        ) : (
          <FileLink api={api} info={info} />
        )}
      </main>
      {!info.isFileRequest && <Tray />}
    </div>
  );
}

/** The relative path (inside the link) of a listed item; listings name parents as `share/<token>/…`. */
export function relOf(token: string, item: FileItem): string {
  const prefix = `share/${token}`;
  const parent =
    item.path === prefix ? '' : item.path.startsWith(`${prefix}/`) ? item.path.slice(prefix.length + 1) : item.path;
  return joinPath(parent, item.name);
}

export const linkUrl = (token: string, rel: string) =>
  `/s/${encodeURIComponent(token)}${rel ? `?path=${encodeURIComponent(rel)}` : ''}`;

/** Several items of a link as one zip (POST, so the selection can be long). */
export async function downloadZip(api: LinkApi, rels: string[], name: string): Promise<void> {
  try {
    const res = await api.zip(rels, name);
    const url = URL.createObjectURL(await res.blob());
    const a = document.createElement('a');
    a.href = url;
    a.download = name.endsWith('.zip') ? name : `${name}.zip`;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  } catch (err) {
    toastError(err, 'Download failed');
  }
}

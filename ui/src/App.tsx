// The shell: boot (status → setup / sign-in / workspace), top bar, sidebar, the routed
// screen, and what floats above it (dialogs, menu, tray, toasts, the session-expired sign-in).
import { Bell } from './notify/Bell.tsx';
import { useEffect, useState } from 'preact/hooks';
import { confirmSignIn, sessionExpired, slowRequests } from './api/client.ts';
import { ContextMenuHost } from './components/ContextMenu.tsx';
import { DialogHost } from './components/Dialog.tsx';
import { ErrorNote, Icon } from './components/common.tsx';
import { Lazy } from './components/Lazy.tsx';
import { offline } from './state/online.ts';
import { Sidebar } from './components/Sidebar.tsx';
import { Toasts, Tray } from './components/Tray.tsx';
import { FolderView } from './folder/FolderView.tsx';
import { ViewerHost } from './viewers/state.tsx';
import { OfficeHost } from './office/state.tsx';
import { linkTokenOf } from './shares/api.ts';
import { Home } from './screens/Home.tsx';
import { SetupScreen, SignInForm, SignInScreen } from './screens/SignIn.tsx';
import { BootWait } from './screens/signin-methods.tsx';
import { folderOf, location, navigate } from './state/router.ts';
import { resumeKeptUploads } from './upload/start.ts';
import { bootError, isAdmin, loadStatus, loadWorkspace, signOut, status, user } from './state/session.ts';

function Screen() {
  const loc = location.value;
  const folder = folderOf(loc);
  if (folder !== null) return folder ? <FolderView path={folder} /> : <Home />;
  if (loc.path === '/search') return <Lazy load={() => import('./screens/Search.tsx')} props={{}} />;
  if (loc.path === '/share') return <Lazy load={() => import('./share/ShareTarget.tsx')} props={{}} />;
  if (loc.path === '/tags') return <Lazy load={() => import('./tags/TaggedView.tsx')} props={{}} />;
  if (loc.path === '/trash') return <Lazy load={() => import('./screens/Trash.tsx')} props={{}} />;
  if (loc.path === '/archive') return <Lazy load={() => import('./archives/ArchiveView.tsx')} props={{}} />;
  if (loc.path === '/shared')
    return <Lazy load={() => import('./shares/SharesView.tsx')} props={{ which: 'mine' as const }} />;
  if (loc.path === '/shared-with-me')
    return <Lazy load={() => import('./shares/SharesView.tsx')} props={{ which: 'withMe' as const }} />;
  if (loc.path.startsWith('/settings')) return <Lazy load={() => import('./settings/Settings.tsx')} props={{}} />;
  if (loc.path.startsWith('/admin') && isAdmin.value)
    return <Lazy load={() => import('./admin/Admin.tsx')} props={{}} />;
  return <Home />;
}

function SearchBox() {
  const shown = location.value.path === '/search' ? (location.value.query.get('q') ?? '') : null;
  const [q, setQ] = useState(shown ?? '');
  // A filter chip added or taken out on the results page changes the query: the box follows.
  useEffect(() => {
    if (shown !== null) setQ(shown);
  }, [shown]);
  return (
    <form
      class="search-box"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        if (q.trim()) navigate(`/search?q=${encodeURIComponent(q.trim())}`);
      }}
    >
      <Icon name="search" size={18} />
      <input
        type="search"
        aria-label="Search files"
        placeholder="Search files & text"
        value={q}
        onInput={(e) => setQ(e.currentTarget.value)}
      />
    </form>
  );
}

function Workspace() {
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => {
    void loadWorkspace();
    // Uploads an earlier page of this account left unfinished go on (upload/kept.ts).
    void resumeKeptUploads(user.value?.id ?? 'local');
  }, [user.value?.id]);
  const u = user.value;
  const authEnabled = status.value?.authEnabled !== false;
  return (
    <div class={`shell${menuOpen ? ' menu-open' : ''}`}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <button
          type="button"
          class="icon-button menu-button"
          aria-label="Menu"
          aria-expanded={menuOpen}
          onClick={() => setMenuOpen(!menuOpen)}
        >
          <Icon name="menu" />
        </button>
        <a
          class="logo"
          href="/"
          onClick={(e) => {
            e.preventDefault();
            navigate('/');
          }}
        >
          <img src="/favicon.svg" width="26" height="26" alt="" />
          <span>Burrow</span>
        </a>
        <SearchBox />
        {u && <Bell />}
        {u && (
          <span class="who wide-only" dir="auto">
            {u.displayName || u.username}
          </span>
        )}
        {authEnabled && (
          <button type="button" class="sign-out" title="Sign out" onClick={() => void signOut()}>
            <Icon name="signout" size={18} />
            <span class="sign-out-label">Sign out</span>
          </button>
        )}
      </header>
      {offline.value && (
        <div class="slow-bar" role="status">
          You are offline: what is on screen stays, and Burrow reconnects when the network is back.
        </div>
      )}
      {slowRequests.value > 0 && !offline.value && (
        <div class="slow-bar" role="status">
          Waiting for the server…
        </div>
      )}
      <Sidebar onNavigate={() => setMenuOpen(false)} />
      {menuOpen && <div class="scrim" onClick={() => setMenuOpen(false)} />}
      <main id="main" tabIndex={-1}>
        <Screen />
      </main>
      <Tray />
      <ViewerHost />
      <OfficeHost />
      {confirmSignIn.value && !sessionExpired.value && (
        <div class="overlay" role="dialog" aria-modal="true" aria-label="Confirm it is you">
          <SignInForm
            confirm
            onDone={() => {
              confirmSignIn.value = false;
            }}
          />
        </div>
      )}
      {sessionExpired.value && (
        <div class="overlay" role="dialog" aria-modal="true" aria-label="Sign in again">
          <SignInForm
            overlay
            onDone={() => {
              sessionExpired.value = false;
            }}
          />
        </div>
      )}
    </div>
  );
}

export function App() {
  useEffect(() => {
    void loadStatus();
    // Opened offline (the kept shell): asked again once the network is back.
    const back = () => {
      if (!status.value) void loadStatus();
    };
    window.addEventListener('online', back);
    return () => window.removeEventListener('online', back);
  }, []);
  // A share link's page is for visitors too: no sign-in, no workspace around it.
  const linkToken = linkTokenOf(location.value.path);
  if (linkToken)
    return (
      <>
        <Lazy load={() => import('./shares/Visitor.tsx')} props={{ token: linkToken }} />
        <DialogHost />
        <ContextMenuHost />
        <Toasts />
      </>
    );
  const s = status.value;
  let body;
  if (bootError.value && !s) {
    body = (
      <main class="auth-page">
        <div class="auth-card stack">
          <h1>{offline.value ? 'You are offline' : 'Burrow is not answering'}</h1>
          {offline.value ? (
            <p>This device is not on a network. Burrow opens by itself when it is back.</p>
          ) : (
            <ErrorNote error={bootError.value} />
          )}
          <button type="button" class="primary" onClick={() => void loadStatus()}>
            Try again
          </button>
        </div>
      </main>
    );
  } else if (!s) body = <BootWait />;
  else if (s.requiresSetup) body = <SetupScreen />;
  else if (s.authEnabled && !s.authenticated && !user.value) body = <SignInScreen />;
  else body = <Workspace />;
  return (
    <>
      {body}
      <DialogHost />
      <ContextMenuHost />
      <Toasts />
    </>
  );
}

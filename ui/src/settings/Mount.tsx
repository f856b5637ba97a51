// "Mount as a drive": the WebDAV address of this server and how each system connects to it.
// The address comes from GET /api/features (webdav.path) on the origin this page was served from.
import { features, user } from '../state/session.ts';

export function Mount() {
  const dav = features.value.webdav;
  if (!dav?.enabled) return <p class="muted">WebDAV is turned off on this server (WEBDAV_ENABLED=false).</p>;
  const { protocol, host } = window.location;
  const secure = protocol === 'https:';
  const url = `${protocol}//${host}${dav.path}`;
  const name = user.value?.username ?? 'your-name';
  const linux = `${secure ? 'davs' : 'dav'}://${host}${dav.path}`;
  const windows = secure ? url : `\\\\${host.replace(/:(\d+)$/, '@$1')}${dav.path.replace(/\//g, '\\')}`;
  return (
    <div class="stack">
      <p>
        Your folders can be opened as a drive in other programs. Address: <code>{url}</code>
      </p>
      <p class="small">
        Sign in with your account name (<code>{name}</code>) and your password, or an API token as the password. A read
        token gives a read-only drive. An account with a second factor must use a token.
      </p>
      {!secure && (
        <p class="small warning">
          This page came over plain HTTP: the password would cross the network readable. Serve Burrow over HTTPS before
          mounting it from another machine (Windows refuses Basic sign-in over plain HTTP unless told otherwise).
        </p>
      )}
      <dl class="mount-list">
        <dt>Windows</dt>
        <dd>
          File Explorer → This PC → <b>Map network drive</b> → Folder: <code>{windows}</code> → tick “Connect using
          different credentials”.
        </dd>
        <dt>macOS</dt>
        <dd>
          Finder → Go → <b>Connect to Server</b> (⌘K) → <code>{url}</code> → Registered User.
        </dd>
        <dt>Linux</dt>
        <dd>
          Files (GNOME) “Other Locations” or Dolphin’s address bar: <code>{linux}</code>
        </dd>
        <dt>rclone</dt>
        <dd>
          <code>{`rclone config create burrow webdav url=${url} vendor=other user=${name} pass=$(rclone obscure YOUR-TOKEN)`}</code>
        </dd>
      </dl>
    </div>
  );
}

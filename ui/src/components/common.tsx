// Small pieces used everywhere: icons, error notes, usage bars.
import type { ComponentChildren } from 'preact';
import { ApiError, confirmSignIn, describeError } from '../api/client.ts';
import type { IconName } from '../util.ts';

const PATHS: Record<string, string> = {
  folder: 'M3 6a2 2 0 0 1 2-2h4l2 2h8a2 2 0 0 1 2 2v9a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2z',
  file: 'M6 3h8l5 5v12a1 1 0 0 1-1 1H6a1 1 0 0 1-1-1V4a1 1 0 0 1 1-1zm8 0v5h5',
  text: 'M6 3h8l5 5v12a1 1 0 0 1-1 1H6a1 1 0 0 1-1-1V4a1 1 0 0 1 1-1zm2 9h8M8 15h8M8 18h5',
  image: 'M4 5h16v14H4zm0 11 5-5 4 4 3-3 4 4M15 9.5a1.5 1.5 0 1 0 0-.01',
  video: 'M4 6h12v12H4zm12 4 5-3v10l-5-3',
  audio: 'M9 18V6l10-2v12M9 18a3 3 0 1 1-3-3 3 3 0 0 1 3 3zm10-2a3 3 0 1 1-3-3 3 3 0 0 1 3 3z',
  archive: 'M4 4h16v4H4zm1 4h14v12H5zm5 4h4',
  tag: 'M3 12V4a1 1 0 0 1 1-1h8l9 9-9 9zM7.5 7.5h.01',
  star: 'm12 3 2.8 5.7 6.2.9-4.5 4.4 1 6.2L12 17.3 6.5 20.2l1-6.2L3 9.6l6.2-.9z',
  trash: 'M4 7h16M9 7V4h6v3m-8 0 1 13h8l1-13',
  gear: 'M12 15a3 3 0 1 0 0-6 3 3 0 0 0 0 6zm7.4-3a7.4 7.4 0 0 0-.1-1.3l2-1.6-2-3.4-2.4 1a7 7 0 0 0-2.2-1.3L14.3 3h-4l-.4 2.4a7 7 0 0 0-2.2 1.3l-2.4-1-2 3.4 2 1.6a7.4 7.4 0 0 0 0 2.6l-2 1.6 2 3.4 2.4-1a7 7 0 0 0 2.2 1.3l.4 2.4h4l.4-2.4a7 7 0 0 0 2.2-1.3l2.4 1 2-3.4-2-1.6c.1-.4.1-.9.1-1.3z',
  home: 'M3 11 12 4l9 7v9h-6v-6H9v6H3z',
  search: 'M10.5 17a6.5 6.5 0 1 0 0-13 6.5 6.5 0 0 0 0 13zm4.6-1.9L21 21',
  upload: 'M12 16V4m-5 5 5-5 5 5M4 20h16',
  menu: 'M4 6h16M4 12h16M4 18h16',
  list: 'M8 6h13M8 12h13M8 18h13M3 6h1M3 12h1M3 18h1',
  grid: 'M4 4h7v7H4zm9 0h7v7h-7zM4 13h7v7H4zm9 0h7v7h-7z',
  shield: 'M12 3 4 6v6c0 5 3.5 8 8 9 4.5-1 8-4 8-9V6z',
  close: 'M6 6l12 12M18 6 6 18',
  plus: 'M12 5v14M5 12h14',
  download: 'M12 4v12m-5-5 5 5 5-5M4 20h16',
  external: 'M14 4h6v6m0-6-9 9M18 14v5a1 1 0 0 1-1 1H5a1 1 0 0 1-1-1V7a1 1 0 0 1 1-1h5',
  info: 'M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zm0-10v6m0-9.5v.5',
  signout: 'M10 4H5v16h5m4-12 4 4-4 4m4-4H9',
};

export function Icon({
  name,
  size = 20,
  label,
}: {
  name: IconName | keyof typeof PATHS;
  size?: number;
  label?: string;
}) {
  return (
    <svg
      class={`icon icon-${name}`}
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      stroke-width="1.7"
      stroke-linecap="round"
      stroke-linejoin="round"
      aria-hidden={label ? undefined : 'true'}
      role={label ? 'img' : undefined}
      aria-label={label}
    >
      <path d={PATHS[name] ?? PATHS.file} />
    </svg>
  );
}

/** An error as the server said it, with its requestId. */
export function ErrorNote({ error, children }: { error: unknown; children?: ComponentChildren }) {
  if (!error) return null;
  const { message, requestId } = describeError(error);
  return (
    <div class="error-note" role="alert">
      <span class="error-message">{message}</span>
      {requestId && (
        <span class="request-id">
          Request ID: <code>{requestId}</code>
        </span>
      )}
      {error instanceof ApiError && error.code === 'AUTH_CONFIRM_REQUIRED' && (
        <button type="button" class="small" onClick={() => (confirmSignIn.value = true)}>
          Sign in again
        </button>
      )}
      {children}
    </div>
  );
}

export function UsageBar({ used, total, label = 'Space used' }: { used?: number; total?: number; label?: string }) {
  if (!total || used === undefined) return null;
  const pct = Math.min(100, Math.max(0, (used / total) * 100));
  return (
    <div
      class={`usage-bar${pct > 90 ? ' full' : ''}`}
      role="meter"
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={Math.round(pct)}
      aria-label={label}
    >
      <span style={{ width: `${pct}%` }} />
    </div>
  );
}

export function Spinner({ label = 'Loading' }: { label?: string }) {
  return <span class="spinner" role="status" aria-label={label} />;
}

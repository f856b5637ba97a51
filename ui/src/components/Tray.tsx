// The operations tray (uploads and long operations, with progress, pause/resume/cancel) and
// the toasts.
import { useState } from 'preact/hooks';
import { dismiss, toasts } from '../state/toasts.ts';
import { removeTask, tasks } from '../state/tasks.ts';
import { clearFinishedUploads, uploads, uploadSpeed, uploadTotals, type UploadEntry } from '../state/uploads.ts';
import { uploadControl } from '../upload/start.ts';
import { formatBytes, formatDuration } from '../util.ts';

function Progress({ value, label }: { value: number | null; label: string }) {
  return value === null ? <progress aria-label={label} /> : <progress aria-label={label} max={1} value={value} />;
}

function UploadRow({ u }: { u: UploadEntry }) {
  const pct = u.size ? u.sent / u.size : u.state === 'done' ? 1 : 0;
  return (
    <li class={`upload ${u.state}`}>
      <div class="line">
        <span class="name" dir="auto" title={`${u.target}/${u.relativePath}`}>
          {u.relativePath}
        </span>
        <span class="muted small">
          {u.state === 'done'
            ? u.storedAs
              ? `saved as ${u.storedAs}`
              : u.outcome === 'replaced'
                ? 'replaced (the old one is a version)'
                : 'done'
            : u.state === 'failed'
              ? 'failed'
              : u.state === 'cancelled'
                ? 'cancelled'
                : `${Math.round(pct * 100)} %`}
        </span>
        <div class="row-actions">
          {u.state === 'uploading' && (
            <button type="button" class="small" onClick={() => void uploadControl('pause', u.id)}>
              Pause
            </button>
          )}
          {(u.state === 'paused' || u.state === 'failed') && (
            <button type="button" class="small" onClick={() => void uploadControl('resume', u.id)}>
              {u.state === 'failed' ? 'Retry' : 'Resume'}
            </button>
          )}
          {(u.state === 'uploading' || u.state === 'paused' || u.state === 'queued' || u.state === 'failed') && (
            <button type="button" class="small" onClick={() => void uploadControl('cancel', u.id)}>
              {u.state === 'failed' ? 'Remove' : 'Cancel'}
            </button>
          )}
        </div>
      </div>
      {(u.state === 'uploading' || u.state === 'paused' || u.state === 'queued') && (
        <Progress value={pct} label={`Upload of ${u.name}`} />
      )}
      {u.error && (
        <div class="error-note small" role="alert">
          {u.error}
          {u.requestId && (
            <span class="request-id">
              {' '}
              Request ID: <code>{u.requestId}</code>
            </span>
          )}
        </div>
      )}
    </li>
  );
}

export function Tray() {
  const [open, setOpen] = useState(true);
  const list = uploads.value;
  const ops = tasks.value;
  if (!list.length && !ops.length) return null;
  const t = uploadTotals.value;
  const speed = uploadSpeed.value;
  const left = speed > 0 ? (t.size - t.sent) / speed : NaN;
  return (
    <aside class="tray" aria-label="Operations">
      <header>
        <button type="button" class="link" aria-expanded={open} onClick={() => setOpen(!open)}>
          {t.active ? `Uploading ${t.active} file${t.active === 1 ? '' : 's'}` : list.length ? 'Uploads' : 'Operations'}
        </button>
        {list.length > 0 && (
          <span class="muted small">
            {formatBytes(t.sent)} of {formatBytes(t.size)}
            {speed > 0 && t.active ? ` · ${formatBytes(speed)}/s · ${formatDuration(left)} left` : ''}
          </span>
        )}
        {list.length > 0 && !t.active && (
          <button type="button" class="small" onClick={clearFinishedUploads}>
            Clear
          </button>
        )}
      </header>
      {list.length > 0 && <Progress value={t.size ? t.sent / t.size : 1} label="Total upload progress" />}
      {open && (
        <ul class="tray-list">
          {ops.map((op) => (
            <li key={`t${op.id}`} class={`task ${op.state}`}>
              <div class="line">
                <span class="name">{op.title}</span>
                <span class="muted small">
                  {op.state === 'running'
                    ? op.progress !== null
                      ? `${Math.round(op.progress * 100)} %`
                      : 'working…'
                    : op.state}
                </span>
                <div class="row-actions">
                  {op.state === 'running' && op.cancel && (
                    <button type="button" class="small" onClick={op.cancel}>
                      Cancel
                    </button>
                  )}
                  {op.state !== 'running' && (
                    <button type="button" class="small" onClick={() => removeTask(op.id)}>
                      Dismiss
                    </button>
                  )}
                </div>
              </div>
              {op.state === 'running' && <Progress value={op.progress} label={op.title} />}
              {op.detail && (
                <div class="muted small">
                  {op.detail}
                  {op.requestId && (
                    <>
                      {' '}
                      · Request ID: <code>{op.requestId}</code>
                    </>
                  )}
                </div>
              )}
            </li>
          ))}
          {list.map((u) => (
            <UploadRow key={`u${u.id}`} u={u} />
          ))}
        </ul>
      )}
    </aside>
  );
}

export function Toasts() {
  return (
    <div class="toasts" role="status" aria-live="polite">
      {toasts.value.map((t) => (
        <div key={t.id} class={`toast ${t.kind}`} role={t.kind === 'error' ? 'alert' : undefined}>
          <span dir="auto">{t.text}</span>
          {t.requestId && (
            <span class="request-id">
              Request ID: <code>{t.requestId}</code>
            </span>
          )}
          {t.action && (
            <button
              type="button"
              class="small toast-action"
              onClick={() => {
                dismiss(t.id);
                void t.action!.run();
              }}
            >
              {t.action.label}
            </button>
          )}
          <button type="button" class="icon-button" aria-label="Dismiss" onClick={() => dismiss(t.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}

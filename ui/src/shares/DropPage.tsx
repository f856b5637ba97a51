// A file request's drop page: send files into someone's folder without seeing what is there
// (or what others sent). Drag and drop or pick; progress per file; a taken name is stored as
// `name (1)` by the server and shown as such.
import { useState } from 'preact/hooks';
import { Icon } from '../components/common.tsx';
import { uploads } from '../state/uploads.ts';
import { collectDropped, collectPicked, startUpload, uploadControl } from '../upload/start.ts';
import { formatBytes } from '../util.ts';
import type { LinkApi, LinkInfo } from './api.ts';

export function DropPage({ api, info }: { api: LinkApi; info: LinkInfo }) {
  const [over, setOver] = useState(false);
  const send = (files: Parameters<typeof startUpload>[0]) =>
    void startUpload(files, api.uploadTo(''), () => undefined, api.uploads);
  const pick = () => {
    const input = document.createElement('input');
    input.type = 'file';
    input.multiple = true;
    input.onchange = () => {
      if (input.files) send(collectPicked(input.files));
    };
    input.click();
  };
  const list = uploads.value;
  return (
    <section class="drop-page stack" aria-label="Send files">
      <h1 dir="auto">{info.label || `Send files to “${info.name}”`}</h1>
      <p class="muted">
        What you send goes to the owner of this link. You will not see other people's files, and nothing already there
        is replaced.
      </p>
      <div
        class={`drop-zone${over ? ' over' : ''}`}
        role="button"
        tabIndex={0}
        aria-label="Drop files here or choose files"
        onClick={pick}
        onKeyDown={(e) => {
          if (e.key === 'Enter' || e.key === ' ') {
            e.preventDefault();
            pick();
          }
        }}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          if (e.dataTransfer) void collectDropped(e.dataTransfer).then(send);
        }}
      >
        <Icon name="upload" size={40} />
        <strong>Drop files here</strong>
        <span class="muted">or</span>
        <span class="button primary">Choose files</span>
      </div>
      {list.length > 0 && (
        <ul class="drop-list" aria-label="Sent files">
          {list.map((u) => (
            <li key={u.id} class={`drop-item ${u.state}`} data-name={u.name}>
              <div class="line">
                <span class="name" dir="auto">
                  {u.relativePath}
                </span>
                <span class="muted small">
                  {u.state === 'done'
                    ? u.outcome === 'skipped'
                      ? 'not sent: the name is taken'
                      : u.storedAs
                        ? `sent as ${u.storedAs} — a file of that name was already there, both are kept`
                        : 'sent'
                    : u.state === 'failed'
                      ? 'failed'
                      : u.state === 'cancelled'
                        ? 'cancelled'
                        : `${formatBytes(u.sent)} of ${formatBytes(u.size)}`}
                </span>
              </div>
              {(u.state === 'uploading' || u.state === 'queued' || u.state === 'paused') && (
                <progress max={1} value={u.size ? u.sent / u.size : 0} aria-label={`Sending ${u.name}`} />
              )}
              {u.error && (
                <div class="error-note small" role="alert">
                  {u.error}
                </div>
              )}
              {(u.state === 'failed' || u.state === 'paused') && (
                <button type="button" class="small" onClick={() => void uploadControl('resume', u.id)}>
                  {u.state === 'failed' ? 'Retry' : 'Resume'}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

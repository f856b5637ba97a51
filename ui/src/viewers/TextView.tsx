// Text and code, read-only with syntax colours (the editor's CodeMirror chunk). The first
// MAX_BYTES are shown; a longer file says so and offers the download.
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorFrom } from '../api/client.ts';
import { ErrorNote, Spinner } from '../components/common.tsx';
import { rawUrl } from './urls.ts';

const MAX_BYTES = 2 * 1024 * 1024;

/** The start of a text file through /api/raw (415 for binary files), and whether it was cut. */
export async function fetchText(path: string, signal?: AbortSignal): Promise<{ text: string; cut: boolean }> {
  const res = await fetch(rawUrl(path), {
    headers: { range: `bytes=0-${MAX_BYTES - 1}` },
    signal,
    credentials: 'same-origin',
    // Never the browser's cache: holding the whole file from an earlier read, Chromium asked for
    // that many bytes of the saved file and handed back the old text as "0-9/78" (so the viewer
    // showed the text before the edit, and said it was cut).
    cache: 'no-store',
  });
  if (!res.ok) throw await errorFrom(res);
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { text: new TextDecoder().decode(bytes), cut: isCut(res, bytes.length) };
}

/** Whether an answer to `bytes=0-(MAX_BYTES-1)` holds less than the whole file. */
function isCut(res: Response, got: number): boolean {
  if (res.status !== 206) return false;
  const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(res.headers.get('content-range') ?? '');
  return m !== null && Number(m[2]) + 1 < Number(m[3]) && got >= MAX_BYTES;
}

export function TextView({ path, kind }: { path: string; kind: string }) {
  const host = useRef<HTMLDivElement>(null);
  const [state, setState] = useState<{ cut: boolean } | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    const controller = new AbortController();
    let view: { destroy(): void } | null = null;
    setState(null);
    setError(null);
    (async () => {
      try {
        const [{ text, cut }, cm] = await Promise.all([
          fetchText(path, controller.signal),
          import('../editor/codemirror.ts'),
        ]);
        if (controller.signal.aborted) return;
        host.current!.replaceChildren();
        view = await cm.createEditor({ parent: host.current!, doc: text, kind, readOnly: true });
        setState({ cut });
      } catch (err) {
        if (!controller.signal.aborted) setError(err);
      }
    })();
    return () => {
      controller.abort();
      view?.destroy();
    };
  }, [path]);
  return (
    <div class="text-stage">
      {error ? (
        <div class="viewer-message">
          <ErrorNote error={error} />
        </div>
      ) : null}
      {!state && !error && <Spinner label="Loading the text" />}
      {state?.cut && (
        <p class="notice">Only the first {MAX_BYTES / 1024 / 1024} MB are shown. Download the file for the rest.</p>
      )}
      <div class="code-host" ref={host} />
    </div>
  );
}

// Administration → Terminal: a shell on the server in xterm.js (loaded with this page only).
// POST /api/terminal/session gives a one-time ticket for this page; the WebSocket carries raw
// bytes both ways and JSON control messages (ready, resize, exit). The terminal fills the window
// below its top edge and follows the window's size. Copy: select (Ctrl+C with a selection, or
// Ctrl+Shift+C); paste: Ctrl+Shift+V, Ctrl+V, or the browser's paste.
import { useEffect, useRef, useState } from 'preact/hooks';
import { Terminal as XTerm } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import '@xterm/xterm/css/xterm.css';
import { api, describeError, queryString } from '../api/client.ts';
import { features } from '../state/session.ts';
import './terminal.css';

type Status =
  { kind: 'connecting' } | { kind: 'open' } | { kind: 'ended'; text: string } | { kind: 'failed'; text: string };

export default function TerminalPage() {
  const frame = useRef<HTMLDivElement>(null);
  const host = useRef<HTMLDivElement>(null);
  const [status, setStatus] = useState<Status>({ kind: 'connecting' });
  const [run, setRun] = useState(0);
  const t = features.value.terminal;

  useEffect(() => {
    if (t && !t.available) return;
    const term = new XTerm({
      cursorBlink: true,
      fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace',
      fontSize: 14,
      scrollback: 5000,
    });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(host.current!);
    let ws: WebSocket | null = null;
    let gone = false;
    const encoder = new TextEncoder();
    const copy = () => {
      const text = term.getSelection();
      if (text) void navigator.clipboard?.writeText(text);
    };
    const paste = () => {
      void navigator.clipboard?.readText?.().then(
        (text) => {
          if (text) term.paste(text);
        },
        () => {
          /* the browser's own paste event still works */
        },
      );
    };
    term.attachCustomKeyEventHandler((e) => {
      if (e.type !== 'keydown') return true;
      if (e.ctrlKey && e.shiftKey && e.code === 'KeyC') {
        copy();
        e.preventDefault();
        return false;
      }
      if (e.ctrlKey && e.shiftKey && e.code === 'KeyV') {
        paste();
        e.preventDefault();
        return false;
      }
      // Ctrl+C with a selection copies (as terminals on Windows do); without one it interrupts.
      if (e.ctrlKey && !e.shiftKey && e.code === 'KeyC' && term.hasSelection()) {
        copy();
        term.clearSelection();
        return false;
      }
      // Ctrl+V: leave it to the browser, whose paste event xterm turns into input.
      if (e.ctrlKey && !e.shiftKey && e.code === 'KeyV') return false;
      return true;
    });

    /** Fills the window below the terminal's top edge, then fits the character grid. */
    const layout = () => {
      const el = frame.current;
      if (!el) return;
      el.style.height = `${Math.max(160, window.innerHeight - el.getBoundingClientRect().top - 12)}px`;
      try {
        fit.fit();
      } catch {
        /* not visible yet */
      }
    };
    layout();
    const observer = new ResizeObserver(layout);
    observer.observe(document.body);
    window.addEventListener('resize', layout);

    term.onData((data) => {
      if (ws?.readyState === WebSocket.OPEN) ws.send(encoder.encode(data));
    });
    term.onResize(({ cols, rows }) => {
      if (ws?.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'resize', cols, rows }));
    });

    (async () => {
      try {
        const { ticket, socketPath } = await api('POST /api/terminal/session', {
          body: { cols: term.cols, rows: term.rows },
        });
        if (gone) return;
        const url = new URL(socketPath, location.href);
        url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
        url.search = queryString({ ticket, cols: String(term.cols), rows: String(term.rows) });
        ws = new WebSocket(url);
        ws.binaryType = 'arraybuffer';
        ws.onmessage = (ev) => {
          if (ev.data instanceof ArrayBuffer) return term.write(new Uint8Array(ev.data));
          const msg = JSON.parse(String(ev.data)) as {
            type: string;
            exitCode?: number | null;
            reason?: string;
            message?: string;
          };
          if (msg.type === 'ready') {
            setStatus({ kind: 'open' });
            term.focus();
          } else if (msg.type === 'exit')
            setStatus({
              kind: 'ended',
              text:
                msg.reason === 'idle'
                  ? 'Closed after a while without input.'
                  : msg.reason === 'shutdown'
                    ? 'The server is stopping.'
                    : msg.reason === 'signed-out'
                      ? 'Your session ended (signed out), so the shell was ended.'
                      : `The shell ended${msg.exitCode != null ? ` (exit code ${msg.exitCode})` : ''}.`,
            });
          else if (msg.type === 'error') term.write(`\r\n\x1b[31m${msg.message ?? 'error'}\x1b[0m\r\n`);
        };
        ws.onclose = (ev) => {
          if (gone) return;
          setStatus((s) =>
            s.kind === 'ended'
              ? s
              : ev.code === 1000
                ? { kind: 'ended', text: 'The terminal was closed.' }
                : { kind: 'failed', text: 'The connection to the server was lost.' },
          );
        };
      } catch (err) {
        if (!gone) setStatus({ kind: 'failed', text: describeError(err).message });
      }
    })();

    return () => {
      gone = true;
      observer.disconnect();
      window.removeEventListener('resize', layout);
      ws?.close(1000);
      term.dispose();
    };
  }, [run, t?.available]);

  if (t && !t.available) {
    return (
      <p class="note">
        {t.enabled
          ? (t.reason ?? 'The terminal cannot run on this server.')
          : 'The terminal is off. An administrator can switch it on in Administration → Installation.'}
      </p>
    );
  }
  return (
    <div class="terminal-page">
      <div class="terminal-bar" role="status">
        <span>
          {status.kind === 'connecting'
            ? 'Connecting…'
            : status.kind === 'open'
              ? 'Shell on the server, as the account Burrow runs under. Copy: select, Ctrl+Shift+C · Paste: Ctrl+Shift+V'
              : status.text}
        </span>
        {(status.kind === 'ended' || status.kind === 'failed') && (
          <button
            type="button"
            onClick={() => {
              setStatus({ kind: 'connecting' });
              setRun(run + 1);
            }}
          >
            New terminal
          </button>
        )}
      </div>
      <div class="terminal-frame" ref={frame}>
        <div class="terminal-host" ref={host} data-testid="terminal" />
      </div>
    </div>
  );
}

// The terminal's WebSocket (ws in noServer mode). The HTTP layer authenticates the upgrade
// request (an administrator's session cookie, never a token) and hands it here; this redeems
// the one-time ticket against that session and the request's Origin, then joins the socket
// to a new terminal session.
//
// Protocol: binary frames carry raw terminal bytes both ways (client: keystrokes, server:
// output). Text frames are JSON control messages —
//   client → server: {type:'input', data} | {type:'resize', cols, rows} | {type:'ping'}
//   server → client: {type:'ready', id, cols, rows} | {type:'exit', exitCode, signal, reason}
//                    | {type:'error', message} | {type:'pong'}
// The socket closes (1000) after `exit`; closing it ends the shell.
import type { IncomingMessage } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { createRequire } from 'node:module';
import type { RawData, WebSocket, WebSocketServer } from 'ws';
import { AppError, errorEnvelope } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import type { TerminalManager, TerminalPlace, TerminalSession } from './sessions.ts';
import type { TicketStore } from './tickets.ts';

/** Who the HTTP layer found behind the upgrade request (already an administrator's session). */
export interface UpgradeCaller {
  userId: string;
  username: string;
  sessionId: string | undefined;
  ip: string;
  requestId: string;
}

export interface TerminalSocketServer {
  /** Takes over an upgrade request for the terminal; answers an HTTP error on the socket when refused. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, caller: UpgradeCaller): void;
  /** Closes every terminal socket (shutdown). */
  close(): Promise<void>;
}

/** Largest client frame: keystrokes and pastes, not file transfers. */
const MAX_FRAME = 256 * 1024;
/**
 * How often a running shell asks whether its session is still signed in. Polled rather than
 * told: sessions end by sign-out, revocation, password change, demotion or expiry, in other
 * modules and (for expiry) without any event at all.
 */
const SESSION_CHECK_MS = 1000;

export function createTerminalSocketServer(deps: {
  manager: TerminalManager;
  tickets: TicketStore;
  log: Logger;
  /** Asked every SESSION_CHECK_MS while a shell runs: the shell ends with the session that opened it. */
  sessionActive: (sessionId: string) => boolean;
}): TerminalSocketServer {
  // ws is evaluated by the first terminal, not at start (an idle server never carries it).
  let wss: WebSocketServer | undefined;
  const sockets = () =>
    (wss ??= new (createRequire(import.meta.url)('ws') as typeof import('ws')).WebSocketServer({
      noServer: true,
      maxPayload: MAX_FRAME,
      perMessageDeflate: false,
      clientTracking: true,
    }));

  function refuse(socket: Duplex, err: AppError, requestId: string): void {
    const body = JSON.stringify(errorEnvelope(err.status, err.message, requestId, err.code));
    const headers = {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(body)),
      'X-Request-Id': requestId,
      Connection: 'close',
      ...err.headers,
    };
    socket.end(
      `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? ''}\r\n${Object.entries(headers)
        .map(([k, v]) => `${k}: ${v}`)
        .join('\r\n')}\r\n\r\n${body}`,
    );
  }

  function join(ws: WebSocket, session: TerminalSession, sessionId: string | undefined): void {
    const watch = setInterval(() => {
      if (!sessionId || !deps.sessionActive(sessionId)) void session.close('signed-out');
    }, SESSION_CHECK_MS);
    watch.unref();
    const control = (msg: Record<string, unknown>) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(msg));
    };
    session.attach({
      output(chunk, done) {
        if (ws.readyState !== ws.OPEN) return done();
        ws.send(chunk, { binary: true }, () => done());
      },
      exit(info) {
        control({ type: 'exit', exitCode: info.exitCode, signal: info.signal, reason: info.reason });
        if (ws.readyState === ws.OPEN) ws.close(1000, info.reason);
      },
    });
    ws.on('message', (data: RawData, isBinary: boolean) => {
      const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
      if (isBinary) return session.write(buf);
      let msg: { type?: unknown; data?: unknown; cols?: unknown; rows?: unknown };
      try {
        msg = JSON.parse(buf.toString('utf8'));
      } catch {
        return control({ type: 'error', message: 'A text frame must be a JSON control message.' });
      }
      switch (msg?.type) {
        case 'input':
          if (typeof msg.data === 'string') session.write(msg.data);
          else control({ type: 'error', message: 'input needs a string `data`.' });
          return;
        case 'resize':
          if (Number.isInteger(msg.cols) && Number.isInteger(msg.rows))
            session.resize(msg.cols as number, msg.rows as number);
          else control({ type: 'error', message: 'resize needs integer `cols` and `rows`.' });
          return;
        case 'ping':
          return control({ type: 'pong' });
        default:
          return control({ type: 'error', message: 'Unknown message type.' });
      }
    });
    ws.on('close', () => {
      clearInterval(watch);
      void session.close('closed');
    });
    ws.on('error', (err) => deps.log.warn('terminal socket error', { terminalId: session.id, err }));
  }

  return {
    handleUpgrade(req, socket, head, caller) {
      const url = new URL(req.url ?? '/', 'http://terminal.invalid');
      const ticket = url.searchParams.get('ticket') ?? '';
      const binding = deps.tickets.redeem(ticket, { sessionId: caller.sessionId, origin: req.headers.origin });
      if (!binding || binding.userId !== caller.userId) {
        return refuse(
          socket,
          new AppError(
            'TERMINAL_TICKET_INVALID',
            'The terminal ticket is missing, used, expired, or was issued to another session or page.',
          ),
          caller.requestId,
        );
      }
      // The place is taken (a row on every instance's count) before the handshake and the spawn:
      // a refusal is the upgrade's own 429, never a socket opened and closed at once.
      let place: TerminalPlace;
      try {
        place = deps.manager.reserve();
      } catch (err) {
        return refuse(socket, err as AppError, caller.requestId);
      }
      // A handshake that never completes (the client gone, a malformed upgrade) gives it back.
      const gone = () => place.release();
      socket.once('close', gone);
      const size = {
        cols: Number(url.searchParams.get('cols')) || undefined,
        rows: Number(url.searchParams.get('rows')) || undefined,
      };
      sockets().handleUpgrade(req, socket, head, (ws) => {
        socket.off('close', gone);
        let session: TerminalSession;
        try {
          session = deps.manager.start(
            { userId: caller.userId, username: caller.username, ip: caller.ip },
            size,
            place,
          );
        } catch (err) {
          // The terminal was switched off, or the shell could not be spawned (its place is given back).
          ws.send(JSON.stringify({ type: 'error', message: (err as Error).message }));
          ws.close(1013, 'try again later');
          return;
        }
        ws.send(JSON.stringify({ type: 'ready', id: session.id, cols: session.cols, rows: session.rows }));
        join(ws, session, caller.sessionId);
      });
    },
    async close() {
      const open = wss;
      if (!open) return;
      for (const ws of open.clients) ws.terminate();
      await new Promise<void>((resolve) => open.close(() => resolve()));
    },
  };
}

// The administrator's terminal as a capability: POST /api/terminal/session issues a one-time
// ticket bound to the session and the page's Origin; the WebSocket upgrade at
// /api/terminal/socket (an administrator's session cookie, never a token) redeems it and runs
// a shell on a pseudo-terminal. Off unless switched on (TERMINAL_ENABLED when set, else
// Administration → Installation, at run time: switched off, open terminals end and new ones are
// refused); where the pty add-on cannot load, features.terminal says why and the route answers 503.
import type { IncomingMessage } from 'node:http';
import type { ActivityEvent } from '../activity/service.ts';
import type { Capability } from '../http/capability.ts';
import { AppError } from '../core/errors.ts';
import { refuseUpgrade } from '../http/upgrade.ts';
import type { Caller } from '../core/caller.ts';
import type { Logger } from '../core/log.ts';
import type { Database } from '../db/database.ts';
import type { UpgradeMount } from '../http/server.ts';
import { route } from '../http/route.ts';
import type { PtyAddon } from '../native.ts';
import { createTerminalManager } from './sessions.ts';
import { createTerminalSocketServer } from './socket.ts';
import { createTerminalStore } from './store.ts';
import { createOpenShells, createTicketStore } from './tickets.ts';
import { terminalSessionRequest, terminalTicket, type TerminalTicket } from './wire.ts';

export const TERMINAL_SOCKET_PATH = '/api/terminal/socket';

export interface TerminalCapabilityDeps {
  config: { maxSessions: number; idleTimeoutMs: number; shell: string | null };
  /** Whether the terminal is on now, and its switches at run time. */
  enabled: { now(): boolean; subscribe(listener: () => void): () => void };
  /** The pty add-on (loaded on first use), null when it cannot load. */
  pty: () => PtyAddon | null;
  ptyProblem?: () => string | undefined;
  /** The session behind an upgrade request's cookie. */
  fromSession(req: IncomingMessage, ip: string): Caller | null;
  /** Whether that session still signs an administrator in (sign-out, revocation, demotion end the shell). */
  adminSessionActive(sessionId: string): boolean;
  activity: { record(event: ActivityEvent): void };
  log: Logger;
  /** Tickets and open shells are rows: any instance of a cluster redeems a ticket another issued. */
  db: Database;
  /** This instance, and whether another is alive (its open shells count only then). */
  leases: { readonly instance: string; alive(owner: string): boolean };
}

export interface TerminalCapability extends Capability {
  /** The WebSocket endpoint (while the terminal is off, it answers 404 TERMINAL_DISABLED). */
  readonly upgrade: UpgradeMount;
}

/** Output sent but not yet taken by the browser before the shell is paused. */
const OUTPUT_BUFFER_BYTES = 1024 * 1024;

export function createTerminalCapability(deps: TerminalCapabilityDeps): TerminalCapability {
  const store = createTerminalStore(deps.db);
  const manager = createTerminalManager({
    shells: createOpenShells({ store, leases: deps.leases }),
    enabled: () => deps.enabled.now(),
    pty: deps.pty,
    ...(deps.ptyProblem ? { ptyProblem: deps.ptyProblem } : {}),
    activity: deps.activity,
    log: deps.log,
    options: {
      maxSessions: deps.config.maxSessions,
      idleTimeoutMs: deps.config.idleTimeoutMs,
      outputBufferBytes: OUTPUT_BUFFER_BYTES,
      shell: deps.config.shell ?? undefined,
    },
  });
  const features = () => ({ terminal: manager.availability() });
  const tickets = createTicketStore({ store });
  const sockets = createTerminalSocketServer({
    manager,
    tickets,
    log: deps.log,
    sessionActive: deps.adminSessionActive,
  });

  /** A ticket for this administrator's session and page, when a terminal can start now. */
  function issueTicket(caller: Caller, origin: string | undefined): TerminalTicket {
    manager.assertCanStart();
    if (caller.via !== 'session' || !caller.sessionId)
      throw new AppError('FORBIDDEN', 'The terminal needs a signed-in administrator session.');
    if (!origin)
      throw new AppError('BAD_REQUEST', 'Open the terminal from the web page: the request carries no Origin.');
    return {
      ...tickets.issue({ sessionId: caller.sessionId, userId: caller.userId, username: caller.username, origin }),
      socketPath: TERMINAL_SOCKET_PATH,
    };
  }

  const routes = terminalRoutes(issueTicket);

  const upgrade: UpgradeMount = {
    path: TERMINAL_SOCKET_PATH,
    handle(req, socket, head, { requestId, ip }) {
      if (!deps.enabled.now()) return refuseUpgrade(socket, new AppError('TERMINAL_DISABLED'), requestId);
      if (req.headers.authorization) return refuseUpgrade(socket, new AppError('AUTH_TOKEN_NOT_ALLOWED'), requestId);
      const caller = deps.fromSession(req, ip);
      if (!caller) return refuseUpgrade(socket, new AppError('AUTH_REQUIRED'), requestId);
      if (!caller.isAdmin) return refuseUpgrade(socket, new AppError('ADMIN_ONLY'), requestId);
      sockets.handleUpgrade(req, socket, head, {
        userId: caller.userId,
        username: caller.username,
        sessionId: caller.sessionId,
        ip,
        requestId,
      });
    },
  };

  let unsubscribe = () => {};
  return {
    routes,
    upgrade,
    features,
    start() {
      // Switched off: every open shell ends now, not at its idle timeout.
      unsubscribe = deps.enabled.subscribe(() => {
        if (!deps.enabled.now())
          void manager.closeAll('switched-off').catch((err) => deps.log.warn('terminals did not close', { err }));
      });
    },
    async stop() {
      unsubscribe();
      await sockets.close();
      await manager.closeAll();
    },
  };
}

/** POST /api/terminal/session: a ticket for the WebSocket, from `issueTicket` (the capability's). */
export function terminalRoutes(issueTicket: (caller: Caller, origin: string | undefined) => TerminalTicket) {
  return [
    route({
      method: 'POST',
      path: '/api/terminal/session',
      access: 'admin',
      tags: ['Terminal'],
      summary: 'A one-time ticket for the terminal WebSocket',
      description: `The ticket is bound to this session and to the page's Origin, and lasts seconds. Open \`${TERMINAL_SOCKET_PATH}?ticket=…&cols=…&rows=…\` as a WebSocket from the same page: binary frames carry terminal bytes both ways; text frames are JSON control messages (client: input, resize, ping; server: ready, exit, error, pong). Closing the socket ends the shell.`,
      body: terminalSessionRequest,
      responses: {
        200: { description: 'The ticket', schema: terminalTicket },
        400: 'No Origin header (only a page can open the terminal)',
        403: 'Not an administrator session (API tokens are refused)',
        404: 'The terminal is off (Administration → Installation, or TERMINAL_ENABLED)',
        429: 'TERMINAL_MAX_SESSIONS terminals are already open',
        503: 'The terminal add-on cannot load on this host',
      },
      handler: ({ req, caller }) => issueTicket(caller, req.headers.origin),
    }),
  ];
}

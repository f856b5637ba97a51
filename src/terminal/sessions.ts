// Terminal sessions: a shell on a pseudo-terminal (@lydell/node-pty, loaded lazily through
// native.ts), one per WebSocket. Bounded: a cap on concurrent terminals, an idle timeout, and
// an output buffer with backpressure (the pty is paused while the client has not taken what
// was sent, so `yes` cannot fill the server's memory). Start and end go to the activity log.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import type { IPty } from '@lydell/node-pty';
import type { ActivityEvent } from '../activity/service.ts';
import { AppError } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import type { PtyAddon } from '../native.ts';
import { terminalEnvironment } from './environment.ts';
import type { OpenShells } from './tickets.ts';

export interface TerminalOptions {
  /** Most terminals open at once (all administrators together). */
  maxSessions: number;
  /** A terminal without input or resize for this long is ended. */
  idleTimeoutMs: number;
  /** Output sent but not yet taken by the client before the shell is paused. */
  outputBufferBytes: number;
  /** The shell; default $SHELL (unless it is a no-login shell), else /bin/sh; COMSPEC on Windows. */
  shell?: string | undefined;
  shellArgs?: readonly string[];
  /** Working directory of the shell; default the service account's home. */
  cwd?: string | undefined;
  /** The environment the child's is derived from (secrets are removed); default process.env. */
  env?: NodeJS.ProcessEnv;
}

export interface TerminalUser {
  userId: string;
  username: string;
  ip?: string | null;
}

export type EndReason = 'exited' | 'idle' | 'closed' | 'shutdown' | 'signed-out' | 'switched-off';
export interface TerminalExit {
  exitCode: number | null;
  signal: number | null;
  reason: EndReason;
}

/** Where a session's output goes (the WebSocket). `done` is called once the chunk has left. */
export interface TerminalSink {
  output(chunk: Buffer, done: () => void): void;
  exit(info: TerminalExit): void;
}

export interface TerminalAvailability {
  enabled: boolean;
  available: boolean;
  reason?: string;
}

export interface TerminalSession {
  readonly id: string;
  readonly user: TerminalUser;
  readonly startedAt: Date;
  readonly cols: number;
  readonly rows: number;
  /** Pid of the shell (tests, diagnostics). */
  readonly pid: number;
  attach(sink: TerminalSink): void;
  write(data: string | Buffer): void;
  resize(cols: number, rows: number): void;
  /** Ends the shell (hang-up, then kill if it lingers). Resolves when it has exited. */
  close(reason?: EndReason): Promise<TerminalExit>;
}

export interface TerminalManager {
  /** Whether a terminal can start on this host, and why not (`features.terminal`). */
  availability(): TerminalAvailability;
  /** Throws the answer for a request that cannot get a terminal now (503 unavailable, 429 cap). */
  assertCanStart(): void;
  /**
   * Takes a place under TERMINAL_MAX_SESSIONS before anything is spawned (counted and recorded at
   * once, on every instance together): throws like assertCanStart when there is none. The place
   * is held until `start` spawns its shell in it or it is released.
   */
  reserve(): TerminalPlace;
  /** Spawns a shell in `place` (one taken now when none is given); a spawn that fails releases it. */
  start(user: TerminalUser, size?: { cols?: number; rows?: number }, place?: TerminalPlace): TerminalSession;
  readonly active: number;
  /** Ends every terminal ('shutdown' by default: the server stops; 'switched-off': an administrator turned it off). */
  closeAll(reason?: EndReason): Promise<void>;
}

/** A place under TERMINAL_MAX_SESSIONS, taken before the shell is spawned. */
export interface TerminalPlace {
  readonly id: string;
  /** Gives the place back when no shell was spawned in it (once; nothing after `start` used it). */
  release(): void;
}

export interface TerminalDeps {
  /** Whether the terminal is on now: TERMINAL_ENABLED when set, else Administration → Installation. */
  enabled: () => boolean;
  /** The pty add-on, null when it cannot load (native.ts). */
  pty: () => PtyAddon | null;
  /** Why the add-on cannot load, when it cannot. */
  ptyProblem?: () => string | undefined;
  activity?: { record(event: ActivityEvent): void };
  log: Logger;
  options: TerminalOptions;
  platform?: NodeJS.Platform;
  /**
   * The shells open on every instance of a cluster (rows, tickets.ts): TERMINAL_MAX_SESSIONS
   * bounds them all together. Without it, this process's shells.
   */
  shells?: OpenShells;
}

const KILL_GRACE_MS = 2000;

export const clampSize = (n: unknown, fallback: number, max: number) =>
  typeof n === 'number' && Number.isInteger(n) && n >= 1 ? Math.min(n, max) : fallback;

function defaultShell(platform: NodeJS.Platform, env: NodeJS.ProcessEnv): string {
  if (platform === 'win32') return env.COMSPEC || 'cmd.exe';
  const shell = env.SHELL;
  // Service accounts often have nologin/false as their shell: that would end at once.
  if (shell && !/(nologin|false)$/.test(shell) && fs.existsSync(shell)) return shell;
  return '/bin/sh';
}

function defaultCwd(cwd: string | undefined): string {
  for (const candidate of [
    cwd,
    os.homedir(),
    process.platform === 'win32' ? (process.env.SystemDrive ?? 'C:\\') : '/',
  ]) {
    if (candidate && fs.statSync(candidate, { throwIfNoEntry: false })?.isDirectory()) return candidate;
  }
  return process.cwd();
}

export function createTerminalManager(deps: TerminalDeps): TerminalManager {
  const platform = deps.platform ?? process.platform;
  const opts = deps.options;
  const sessions = new Map<string, TerminalSession>();

  function availability(): TerminalAvailability {
    if (!deps.enabled())
      return {
        enabled: false,
        available: false,
        reason: 'The terminal is off: an administrator can switch it on in Administration → Installation.',
      };
    if (!deps.pty())
      return {
        enabled: true,
        available: false,
        reason: `The terminal add-on (@lydell/node-pty) cannot load on this host${deps.ptyProblem?.() ? `: ${deps.ptyProblem()}` : ''}.`,
      };
    return { enabled: true, available: true };
  }

  /** Places taken here whose shell is not spawned yet (the in-process count, without `shells`). */
  const pending = new Set<string>();

  const limitReached = () =>
    new AppError(
      'TERMINAL_LIMIT',
      `${opts.maxSessions} terminal(s) are already open (TERMINAL_MAX_SESSIONS); close one first.`,
      { headers: { 'Retry-After': '5' } },
    );

  function assertAvailable(): void {
    const a = availability();
    if (!a.enabled) throw new AppError('TERMINAL_DISABLED', 'The terminal is not enabled on this server.');
    if (!a.available) throw new AppError('TERMINAL_UNAVAILABLE', a.reason!);
  }

  function assertCanStart(): void {
    assertAvailable();
    if ((deps.shells ? deps.shells.count() : sessions.size + pending.size) >= opts.maxSessions) throw limitReached();
  }

  function reserve(): TerminalPlace {
    assertAvailable();
    const id = randomUUID();
    // The row goes in before the shell is spawned, under the lock that counts them: two instances
    // opening at once cannot both see a free place and both spawn.
    if (deps.shells) {
      if (!deps.shells.reserve(id, opts.maxSessions)) throw limitReached();
    } else if (sessions.size + pending.size >= opts.maxSessions) throw limitReached();
    pending.add(id);
    return {
      id,
      release() {
        if (!pending.delete(id)) return;
        try {
          deps.shells?.closed(id);
        } catch (err) {
          deps.log.warn('could not give back a terminal place', { terminalId: id, err });
        }
      },
    };
  }

  function start(
    user: TerminalUser,
    size: { cols?: number; rows?: number } = {},
    place: TerminalPlace = reserve(),
  ): TerminalSession {
    if (!pending.has(place.id)) throw new Error('terminal place already used or released');
    let proc: IPty;
    const env = opts.env ?? process.env;
    const shell = opts.shell || defaultShell(platform, env);
    const cols = clampSize(size.cols, 80, 1000);
    const rows = clampSize(size.rows, 24, 1000);
    try {
      assertAvailable();
      proc = deps.pty()!.spawn(shell, [...(opts.shellArgs ?? [])], {
        name: 'xterm-256color',
        cols,
        rows,
        cwd: defaultCwd(opts.cwd),
        env: terminalEnvironment(env, platform),
        // Raw bytes: counted exactly for backpressure, and passed on without re-encoding.
        encoding: null,
      });
    } catch (err) {
      place.release();
      throw err;
    }
    pending.delete(place.id);
    const session = createSession(place.id, proc, user, shell, cols, rows);
    sessions.set(session.id, session);
    return session;
  }

  function createSession(
    id: string,
    proc: IPty,
    user: TerminalUser,
    shell: string,
    initialCols: number,
    initialRows: number,
  ): TerminalSession {
    const startedAt = new Date();
    let cols = initialCols;
    let rows = initialRows;
    let sink: TerminalSink | null = null;
    const pending: Buffer[] = [];
    let unacknowledged = 0;
    let paused = false;
    let exited: TerminalExit | null = null;
    let endReason: EndReason = 'exited';
    let idleTimer: NodeJS.Timeout | null = null;
    let killTimer: NodeJS.Timeout | null = null;
    const waiters: ((e: TerminalExit) => void)[] = [];

    deps.activity?.record({
      action: 'terminal.start',
      outcome: 'success',
      userId: user.userId,
      username: user.username,
      ip: user.ip ?? null,
      detail: { terminalId: id, shell, pid: proc.pid },
    });
    deps.log.info('terminal started', { terminalId: id, user: user.username, pid: proc.pid });

    const touch = () => {
      if (idleTimer) clearTimeout(idleTimer);
      if (exited || opts.idleTimeoutMs <= 0) return;
      idleTimer = setTimeout(() => void session.close('idle'), opts.idleTimeoutMs);
      idleTimer.unref();
    };

    const acknowledge = (n: number) => {
      unacknowledged -= n;
      if (paused && unacknowledged <= opts.outputBufferBytes / 2 && !exited) {
        paused = false;
        proc.resume();
      }
    };

    const deliver = (chunk: Buffer) => {
      let done = false;
      sink!.output(chunk, () => {
        if (done) return;
        done = true;
        acknowledge(chunk.length);
      });
    };

    proc.onData((data: string | Buffer) => {
      const chunk = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      unacknowledged += chunk.length;
      if (sink) deliver(chunk);
      else pending.push(chunk);
      if (!paused && unacknowledged > opts.outputBufferBytes) {
        paused = true;
        proc.pause();
      }
    });

    proc.onExit(({ exitCode, signal }) => {
      if (idleTimer) clearTimeout(idleTimer);
      if (killTimer) clearTimeout(killTimer);
      exited = { exitCode: exitCode ?? null, signal: signal || null, reason: endReason };
      sessions.delete(id);
      try {
        deps.shells?.closed(id);
      } catch (err) {
        deps.log.warn('could not record a terminal that ended', { terminalId: id, err });
      }
      deps.activity?.record({
        action: 'terminal.end',
        outcome: 'success',
        userId: user.userId,
        username: user.username,
        ip: user.ip ?? null,
        detail: {
          terminalId: id,
          reason: endReason,
          exitCode: exited.exitCode,
          signal: exited.signal,
          durationMs: Date.now() - startedAt.getTime(),
        },
      });
      deps.log.info('terminal ended', { terminalId: id, user: user.username, reason: endReason, exitCode });
      sink?.exit(exited);
      for (const w of waiters.splice(0)) w(exited);
    });

    const session: TerminalSession = {
      id,
      user,
      startedAt,
      get cols() {
        return cols;
      },
      get rows() {
        return rows;
      },
      get pid() {
        return proc.pid;
      },
      attach(next) {
        sink = next;
        for (const chunk of pending.splice(0)) deliver(chunk);
        if (exited) next.exit(exited);
      },
      write(data) {
        if (exited) return;
        touch();
        // node-pty writes strings as UTF-8; a Buffer from a binary frame is decoded the same way.
        proc.write(typeof data === 'string' ? data : data.toString('utf8'));
      },
      resize(c, r) {
        if (exited) return;
        touch();
        cols = clampSize(c, cols, 1000);
        rows = clampSize(r, rows, 1000);
        proc.resize(cols, rows);
      },
      close(reason = 'closed') {
        if (exited) return Promise.resolve(exited);
        const done = new Promise<TerminalExit>((resolve) => waiters.push(resolve));
        if (endReason === 'exited') {
          endReason = reason;
          if (paused) proc.resume();
          try {
            proc.kill(platform === 'win32' ? undefined : 'SIGHUP');
          } catch {
            /* already gone: onExit follows */
          }
          killTimer = setTimeout(() => {
            try {
              proc.kill(platform === 'win32' ? undefined : 'SIGKILL');
            } catch {
              /* gone */
            }
          }, KILL_GRACE_MS);
          killTimer.unref();
        }
        return done;
      },
    };
    touch();
    return session;
  }

  return {
    availability,
    assertCanStart,
    reserve,
    start,
    get active() {
      return sessions.size;
    },
    async closeAll(reason: EndReason = 'shutdown') {
      await Promise.all([...sessions.values()].map((s) => s.close(reason)));
    },
  };
}

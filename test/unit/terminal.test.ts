// The terminal service on a real pseudo-terminal running `sh`, and its WebSocket through a real
// ws client against a small HTTP server that plays the part of the HTTP layer (it has already
// authenticated the administrator's session and hands the upgrade over).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import WebSocket from 'ws';
import type { ActivityEvent } from '../../src/activity/service.ts';
import { silentLogger } from '../../src/core/log.ts';
import type { PtyAddon } from '../../src/native.ts';
import { isSecretVariable, terminalEnvironment } from '../../src/terminal/environment.ts';
import { createTerminalManager, type TerminalOptions, type TerminalSession } from '../../src/terminal/sessions.ts';
import { createTerminalSocketServer } from '../../src/terminal/socket.ts';
import { createOpenShells, createTicketStore } from '../../src/terminal/tickets.ts';
import { createTerminalStore } from '../../src/terminal/store.ts';
import { Database } from '../../src/db/database.ts';
import { loadMigrations, runMigrations } from '../../src/db/migrations.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AppError } from '../../src/core/errors.ts';
import { waitFor } from '../support/wait.ts';

/** The terminal's rows in a real, migrated embedded database. */
const dbDir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-terminal-unit-'));
const db = new Database(path.join(dbDir, 'main.db'));
runMigrations(db, loadMigrations());
const rows = createTerminalStore(db);
test.after(() => {
  db.close();
  fs.rmSync(dbDir, { recursive: true, force: true });
});

const pty = createRequire(import.meta.url)('@lydell/node-pty') as PtyAddon;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const secretEnv = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  KEEP_ME: 'visible',
  SESSION_SECRET: 's3',
  OIDC_CLIENT_SECRET: 'o1',
  OFFICEEDITOR_SECRET: 'w1',
  BACKUP_TOKEN: 't1',
  DB_PASSWORD: 'p1',
  ONLYOFFICE_SECRET: 'x1',
};

function manager(over: Partial<TerminalOptions> = {}, events: ActivityEvent[] = []) {
  return createTerminalManager({
    enabled: () => true,
    pty: () => pty,
    log: silentLogger,
    activity: { record: (e) => events.push(e) },
    options: {
      maxSessions: 4,
      idleTimeoutMs: 60_000,
      outputBufferBytes: 256 * 1024,
      shell: '/bin/sh',
      env: secretEnv,
      ...over,
    },
  });
}

/** Collects a session's output as text. */
function collect(session: TerminalSession) {
  let text = '';
  let exit: unknown = null;
  session.attach({
    output: (chunk, done) => {
      text += chunk.toString('utf8');
      done();
    },
    exit: (e) => {
      exit = e;
    },
  });
  return {
    get text() {
      return text;
    },
    get exit() {
      return exit as { reason: string; exitCode: number | null } | null;
    },
  };
}

test('secret variables are recognised and left out of the shell environment', () => {
  for (const name of [
    'SESSION_SECRET',
    'OIDC_ISSUER',
    'OFFICEEDITOR_URL',
    'GITHUB_TOKEN',
    'SMTP_PASSWORD',
    'ONLYOFFICE_SECRET',
    'api_key',
  ])
    assert.ok(isSecretVariable(name), name);
  for (const name of ['PATH', 'HOME', 'LANG', 'TOKENIZER', 'PASSWORDLESS']) assert.not.ok(isSecretVariable(name), name);
  const env = terminalEnvironment(secretEnv, 'linux');
  assert.is(env.KEEP_ME, 'visible');
  assert.is(env.TERM, 'xterm-256color');
  for (const name of [
    'SESSION_SECRET',
    'OIDC_CLIENT_SECRET',
    'OFFICEEDITOR_SECRET',
    'BACKUP_TOKEN',
    'DB_PASSWORD',
    'ONLYOFFICE_SECRET',
  ])
    assert.not.ok(name in env, name);
});

test('a shell runs on a real pty: output read back, resize applied, environment without secrets, start and end logged', async () => {
  const events: ActivityEvent[] = [];
  const m = manager({}, events);
  const s = m.start({ userId: 'u1', username: 'admin', ip: '127.0.0.1' }, { cols: 80, rows: 24 });
  const out = collect(s);
  assert.is(m.active, 1);
  s.write('echo "sum=$((40+2))"\n');
  await waitFor(() => out.text.includes('sum=42'), { what: 'the echo', seen: () => out.text });
  s.resize(100, 30);
  s.write('stty size\n');
  await waitFor(() => out.text.includes('30 100'), { what: 'the new size', seen: () => out.text });
  s.write('env; echo env-done\n');
  await waitFor(() => /env-done\r?\n/.test(out.text.slice(out.text.lastIndexOf('env; echo env-done') + 20)), {
    what: 'the environment',
    seen: () => out.text,
  });
  assert.ok(out.text.includes('KEEP_ME=visible'));
  for (const value of ['s3', 'o1', 'w1', 't1', 'p1', 'x1'])
    assert.not.ok(new RegExp(`=${value}\\r?$`, 'm').test(out.text), `secret value ${value} leaked`);
  assert.not.ok(/^SESSION_SECRET=/m.test(out.text));
  s.write('exit 3\n');
  await waitFor(() => out.exit !== null, { what: 'the shell to exit', seen: () => out.text });
  assert.is(out.exit!.exitCode, 3);
  assert.is(out.exit!.reason, 'exited');
  assert.is(m.active, 0);
  assert.equal(
    events.map((e) => e.action),
    ['terminal.start', 'terminal.end'],
  );
  assert.is((events[1]!.detail as { reason: string }).reason, 'exited');
});

test('an idle terminal is ended, and its end is logged as idle', async () => {
  const events: ActivityEvent[] = [];
  const m = manager({ idleTimeoutMs: 300 }, events);
  const out = collect(m.start({ userId: 'u1', username: 'admin' }));
  await waitFor(() => out.exit !== null, { what: 'the idle timeout', seen: () => out.text });
  assert.is(out.exit!.reason, 'idle');
  assert.is(m.active, 0);
  assert.is((events.at(-1)!.detail as { reason: string }).reason, 'idle');
});

test('the cap on concurrent terminals refuses one more with 429, and frees its place when one ends', async () => {
  const m = manager({ maxSessions: 1 });
  const first = m.start({ userId: 'u1', username: 'admin' });
  try {
    m.start({ userId: 'u1', username: 'admin' });
    assert.unreachable('a second terminal started');
  } catch (err) {
    assert.instance(err, AppError);
    assert.is((err as AppError).status, 429);
    assert.is((err as AppError).code, 'TERMINAL_LIMIT');
  }
  await first.close();
  const again = m.start({ userId: 'u1', username: 'admin' });
  await again.close();
  assert.is(m.active, 0);
});

test('a place taken before the spawn counts until it is used or given back; a spawn that fails gives it back', async () => {
  const shells = createOpenShells({ store: rows, leases: { instance: 'here', alive: () => true } });
  const m = createTerminalManager({
    enabled: () => true,
    pty: () => pty,
    log: silentLogger,
    shells,
    options: { maxSessions: 1, idleTimeoutMs: 0, outputBufferBytes: 1024, shell: '/bin/sh', env: secretEnv },
  });
  const place = m.reserve();
  assert.is(shells.count(), 1, 'the row is in before anything is spawned');
  assert.throws(
    () => m.reserve(),
    (e: AppError) => e.status === 429 && e.code === 'TERMINAL_LIMIT',
  );
  place.release();
  place.release();
  assert.is(shells.count(), 0);
  // A spawn that throws (fork refused: EAGAIN when the process table is full) leaves no place taken.
  const broken = createTerminalManager({
    enabled: () => true,
    pty: () => ({
      ...pty,
      spawn: () => {
        throw Object.assign(new Error('fork failed'), { code: 'EAGAIN' });
      },
    }),
    log: silentLogger,
    shells,
    options: { maxSessions: 1, idleTimeoutMs: 0, outputBufferBytes: 1024, shell: '/bin/sh', env: secretEnv },
  });
  assert.throws(() => broken.start({ userId: 'u', username: 'a' }));
  assert.is(shells.count(), 0);
  const s = m.start({ userId: 'u', username: 'a' }, {}, m.reserve());
  assert.is(shells.count(), 1);
  await s.close();
  assert.is(shells.count(), 0);
});

test('without the add-on or when off, availability says why and a start answers 503 / 404', () => {
  const missing = createTerminalManager({
    enabled: () => true,
    pty: () => null,
    ptyProblem: () => 'no prebuilt binary',
    log: silentLogger,
    options: { maxSessions: 1, idleTimeoutMs: 0, outputBufferBytes: 1024 },
  });
  const a = missing.availability();
  assert.is(a.available, false);
  assert.match(a.reason!, /no prebuilt binary/);
  assert.throws(
    () => missing.start({ userId: 'u', username: 'a' }),
    (e: AppError) => e.status === 503 && e.code === 'TERMINAL_UNAVAILABLE',
  );
  const off = createTerminalManager({
    enabled: () => false,
    pty: () => pty,
    log: silentLogger,
    options: { maxSessions: 1, idleTimeoutMs: 0, outputBufferBytes: 1024 },
  });
  assert.is(off.availability().enabled, false);
  assert.throws(
    () => off.start({ userId: 'u', username: 'a' }),
    (e: AppError) => e.status === 404,
  );
});

test('output the client has not taken pauses the shell; taking it lets the shell go on', async () => {
  const limit = 64 * 1024;
  const m = manager({ outputBufferBytes: limit });
  const s = m.start({ userId: 'u1', username: 'admin' });
  let received = 0;
  const unacked: (() => void)[] = [];
  s.attach({
    output: (chunk, done) => {
      received += chunk.length;
      unacked.push(done);
    },
    exit: () => {},
  });
  s.write('yes 0123456789012345678901234567890123456789\n');
  // Paused: the count stops moving — unchanged over a 200 ms window once past the buffer (the
  // window is the check itself: stopped cannot be told from slow in less).
  const settled = await waitFor(
    async () => {
      const before = received;
      await sleep(200);
      return before > limit && received === before ? received : -1;
    },
    { what: 'the output to stop', until: (n) => n > 0, seen: () => received },
  );
  assert.ok(settled > 0, `the output never stopped (received ${received})`);
  assert.ok(settled < limit * 8, `far more than the buffer was sent before the pause: ${settled}`);
  for (const done of unacked.splice(0)) done();
  await waitFor(() => received > settled, { what: 'the shell to resume', seen: () => received });
  assert.ok(received > settled, 'the shell did not resume after the client took the output');
  await s.close();
});

// ---- the WebSocket ----

async function socketRig() {
  const events: ActivityEvent[] = [];
  const m = manager({}, events);
  const tickets = createTicketStore({ store: rows, ttlMs: 10_000 });
  const sockets = createTerminalSocketServer({ manager: m, tickets, log: silentLogger, sessionActive: () => true });
  const server = http.createServer((_req, res) => {
    res.statusCode = 404;
    res.end();
  });
  server.on('upgrade', (req, socket, head) => {
    // The HTTP layer's part: an administrator's session 'sess-1' was found behind the cookie.
    sockets.handleUpgrade(req, socket, head, {
      userId: 'u1',
      username: 'admin',
      sessionId: 'sess-1',
      ip: '127.0.0.1',
      requestId: 'req-1',
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/api/terminal/socket`;
  return {
    m,
    tickets,
    base,
    events,
    async close() {
      await sockets.close();
      await m.closeAll();
      await new Promise((r) => server.close(r));
    },
  };
}

type Opened = { ws: WebSocket; output: () => string; control: Record<string, unknown>[] };

function connect(url: string, origin: string): Promise<Opened | { status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { origin });
    // Listening from the start: the server's first frame can arrive with the handshake.
    let output = '';
    const control: Record<string, unknown>[] = [];
    ws.on('message', (data, isBinary) => {
      if (isBinary) output += data.toString();
      else control.push(JSON.parse(data.toString()));
    });
    ws.once('open', () => resolve({ ws, output: () => output, control }));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.once('error', reject);
  });
}

test('WebSocket: a ticket opens a shell once; output, resize and exit travel over the socket', async () => {
  const rig = await socketRig();
  try {
    const origin = 'https://files.example.org';
    const { ticket } = rig.tickets.issue({ sessionId: 'sess-1', userId: 'u1', username: 'admin', origin });
    const url = `${rig.base}?ticket=${encodeURIComponent(ticket)}&cols=90&rows=20`;
    const opened = await connect(url, origin);
    assert.ok('ws' in opened, `refused: ${JSON.stringify(opened)}`);
    const { ws, control } = opened as Opened;
    const read = (opened as Opened).output;
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    const seen = () => ({ output: read().slice(-300), control });
    await waitFor(() => control.some((c) => c.type === 'ready'), { what: 'ready', seen });
    assert.is(control.find((c) => c.type === 'ready')!.cols, 90);
    ws.send(JSON.stringify({ type: 'input', data: 'echo "ws=$((6*7))"\n' }));
    await waitFor(() => read().includes('ws=42'), { what: 'the echo', seen });
    ws.send(JSON.stringify({ type: 'resize', cols: 111, rows: 33 }));
    ws.send(Buffer.from('stty size\n'), { binary: true });
    await waitFor(() => read().includes('33 111'), { what: 'the resize', seen });
    ws.send('not json');
    await waitFor(() => control.some((c) => c.type === 'error'), { what: 'an error for a bad frame', seen });
    ws.send(Buffer.from('exit\n'), { binary: true });
    await waitFor(() => control.some((c) => c.type === 'exit'), { what: 'exit', seen });
    assert.is(await closed, 1000);
    assert.is(rig.m.active, 0);

    const again = await connect(url, origin);
    assert.ok('status' in again, 'a used ticket opened a second shell');
    assert.is((again as { status: number }).status, 403);
    assert.is(JSON.parse((again as { body: string }).body).error.code, 'TERMINAL_TICKET_INVALID');
    assert.is(rig.m.active, 0);
    assert.equal(
      rig.events.map((e) => e.action),
      ['terminal.start', 'terminal.end'],
    );
  } finally {
    await rig.close();
  }
});

test('WebSocket: another origin, another session, an expired or forged ticket are refused with 403', async () => {
  const rig = await socketRig();
  try {
    const origin = 'https://files.example.org';
    const fromElsewhere = rig.tickets.issue({ sessionId: 'sess-1', userId: 'u1', username: 'admin', origin });
    let r = await connect(`${rig.base}?ticket=${encodeURIComponent(fromElsewhere.ticket)}`, 'https://evil.example');
    assert.is((r as { status: number }).status, 403);
    // The refused attempt used the ticket up: the right page cannot use it after that either.
    r = await connect(`${rig.base}?ticket=${encodeURIComponent(fromElsewhere.ticket)}`, origin);
    assert.is((r as { status: number }).status, 403);

    const otherSession = rig.tickets.issue({ sessionId: 'sess-2', userId: 'u1', username: 'admin', origin });
    r = await connect(`${rig.base}?ticket=${encodeURIComponent(otherSession.ticket)}`, origin);
    assert.is((r as { status: number }).status, 403);

    const real = rig.tickets.issue({ sessionId: 'sess-1', userId: 'u1', username: 'admin', origin });
    const forged = real.ticket.slice(0, real.ticket.indexOf('.') + 1) + 'A'.repeat(43);
    r = await connect(`${rig.base}?ticket=${encodeURIComponent(forged)}`, origin);
    assert.is((r as { status: number }).status, 403);
    r = await connect(`${rig.base}`, origin);
    assert.is((r as { status: number }).status, 403);
    assert.is(rig.m.active, 0);
  } finally {
    await rig.close();
  }
});

test('tickets expire', () => {
  let now = 1_000_000;
  const store = createTicketStore({ store: rows, ttlMs: 10_000, now: () => now });
  const t = store.issue({ sessionId: 's', userId: 'u', username: 'a', origin: 'https://o' });
  now += 10_001;
  assert.is(store.redeem(t.ticket, { sessionId: 's', origin: 'https://o' }), null);
  const t2 = store.issue({ sessionId: 's', userId: 'u', username: 'a', origin: 'https://o' });
  now += 9_000;
  assert.is(store.redeem(t2.ticket, { sessionId: 's', origin: 'https://o' })?.userId, 'u');
});

test('tickets are rows holding a digest of the secret, and only the first redeemer gets one', () => {
  const store = createTicketStore({ store: rows, ttlMs: 10_000 });
  const { ticket } = store.issue({ sessionId: 's', userId: 'u', username: 'a', origin: 'https://o' });
  const [id, secret] = ticket.split('.');
  const row = db.get<{ digest: string }>('SELECT digest FROM terminal_tickets WHERE id = ?', [id!]);
  assert.ok(row, 'the ticket is a row');
  assert.not.ok(JSON.stringify(db.all('SELECT * FROM terminal_tickets')).includes(secret!), 'its secret is not stored');
  // A second store over the same rows (another instance) redeems it; the first cannot any more.
  const other = createTicketStore({ store: createTerminalStore(db), ttlMs: 10_000 });
  assert.is(other.redeem(ticket, { sessionId: 's', origin: 'https://o' })?.username, 'a');
  assert.is(store.redeem(ticket, { sessionId: 's', origin: 'https://o' }), null);
  // A wrong secret under a real id consumes the row too.
  const t2 = store.issue({ sessionId: 's', userId: 'u', username: 'a', origin: 'https://o' });
  assert.is(
    store.redeem(`${t2.ticket.split('.')[0]}.${'A'.repeat(43)}`, { sessionId: 's', origin: 'https://o' }),
    null,
  );
  assert.is(store.redeem(t2.ticket, { sessionId: 's', origin: 'https://o' }), null);
  // Presented from another session (a ticket seen in a log or a referrer) or another Origin: no
  // shell, and the ticket is spent, so the right session cannot use it after either.
  for (const wrong of [
    { sessionId: 'another session', origin: 'https://o' },
    { sessionId: 's', origin: 'https://evil.example' },
  ]) {
    const t = store.issue({ sessionId: 's', userId: 'u', username: 'a', origin: 'https://o' });
    assert.is(store.redeem(t.ticket, wrong), null);
    assert.is(store.redeem(t.ticket, { sessionId: 's', origin: 'https://o' }), null);
  }
  assert.is(store.size, 0);
});

test("open shells count across instances; a dead instance's do not", () => {
  let deadAlive = true;
  const leasesA = { instance: 'a', alive: (o: string) => o === 'a' || (o === 'b' && deadAlive) };
  const a = createOpenShells({ store: rows, leases: leasesA });
  const b = createOpenShells({ store: rows, leases: { instance: 'b', alive: () => true } });
  assert.ok(a.reserve('t1', 3));
  assert.ok(b.reserve('t2', 3));
  assert.ok(b.reserve('t3', 3));
  assert.is(a.count(), 3);
  // Full across the instances: another place is refused and nothing is recorded for it.
  assert.not.ok(a.reserve('t4', 3));
  assert.not.ok(b.reserve('t4', 3));
  assert.is(a.count(), 3);
  a.closed('t1');
  assert.is(a.count(), 2);
  deadAlive = false; // b's lease lapsed: its shells died with it
  assert.is(a.count(), 0);
  assert.equal(db.all('SELECT id FROM terminals_open'), []);
});

test.run();

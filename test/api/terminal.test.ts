// The administrator's terminal on the real server, over a real WebSocket (ws): the ticket from
// POST /api/terminal/session is bound to the session and the page's Origin and redeemed once;
// tokens, other accounts and other pages are refused; a command's output is read back; closing
// the socket ends the shell; every start and end is on the activity log; the cap holds; off by
// default. Runs against the source and the built executable (BURROW_TEST_SERVER=executable),
// whose pty add-on comes from its embedded add-on pack, and through a cluster
// (BURROW_TEST_SERVER=cluster), where the socket mostly reaches another instance than the one
// that issued its ticket and the cap counts the shells of every instance.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { ADMIN, createUser, issueToken, setupAdmin, signIn } from '../support/auth.ts';
import { envelope, type Client } from '../support/client.ts';
import { startServer, removeDirs, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

let s: TestServer;
let admin: Client;
let bob: Client;

async function ticket(client: Client, origin: string | null = s.url): Promise<string> {
  const a = await client.post('/api/terminal/session', { cols: 100, rows: 30 }, origin ? { origin } : {});
  assert.is(a.status, 200, a.text);
  assert.is(a.json.socketPath, '/api/terminal/socket');
  return a.json.ticket;
}

interface Opened {
  ws: WebSocket;
  text: () => string;
  control: any[];
  closed: Promise<{ code: number }>;
}

/** Opens the socket; resolves with the open socket, or rejects with the refusal's status and body. */
function open(
  t: string,
  opts: { cookie?: string; origin?: string; headers?: Record<string, string> } = {},
): Promise<Opened> {
  const ws = new WebSocket(
    `${s.url.replace(/^http/, 'ws')}/api/terminal/socket?ticket=${encodeURIComponent(t)}&cols=100&rows=30`,
    {
      headers: { ...(opts.cookie ? { cookie: opts.cookie } : {}), ...opts.headers },
      origin: opts.origin ?? s.url,
    },
  );
  let out = '';
  const control: any[] = [];
  const closed = new Promise<{ code: number }>((resolve) => ws.on('close', (code) => resolve({ code })));
  ws.on('message', (data, binary) => {
    if (binary) out += data.toString();
    else control.push(JSON.parse(data.toString()));
  });
  return new Promise((resolve, reject) => {
    ws.on('open', () => resolve({ ws, text: () => out, control, closed }));
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c) => {
        body += c;
      });
      res.on('end', () =>
        reject(
          Object.assign(new Error(`refused ${res.statusCode}`), {
            status: res.statusCode,
            body: JSON.parse(body || 'null'),
          }),
        ),
      );
    });
    ws.on('error', (err) => reject(err));
  });
}

async function refused(p: Promise<Opened>): Promise<{ status: number; body: any }> {
  try {
    const o = await p;
    o.ws.close();
  } catch (err) {
    return err as { status: number; body: any };
  }
  throw new Error('the upgrade was accepted');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

test.before(async () => {
  s = await startServer({
    env: { TERMINAL_ENABLED: 'true', TERMINAL_SHELL: '/bin/sh', TERMINAL_MAX_SESSIONS: '2', LOG_LEVEL: 'debug' },
  });
  admin = await setupAdmin(s);
  bob = await createUser(admin, s, { username: 'bob', password: 'bob-password-1' });
  assert.is(
    (await admin.patch('/api/settings', { activity: { enabled: true, retentionDays: 7 } }, { origin: s.url })).status,
    200,
  );
});

test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('features say the terminal is on and can run here', async () => {
  const f = (await admin.get('/api/features')).json;
  assert.equal(f.terminal, { enabled: true, available: true });
});

test('a command typed in the terminal is read back; the ticket works once; closing the socket ends the shell', async () => {
  const t = await ticket(admin);
  const term = await open(t, { cookie: admin.cookieHeader });
  await waitFor(() => term.control.some((m) => m.type === 'ready'), { what: 'ready', timeoutMs: 15_000 });
  assert.equal(term.control.find((m) => m.type === 'ready').cols, 100);
  term.ws.send(JSON.stringify({ type: 'input', data: 'echo "pid=$$ sum=$((40+2))"\r' }));
  await waitFor(() => /pid=\d+ sum=42/.test(term.text()), {
    what: 'the output of echo',
    timeoutMs: 15_000,
    seen: term.text,
  });
  const pid = Number(/pid=(\d+) sum=42/.exec(term.text())![1]);
  assert.ok(alive(pid));
  // Binary frames are keystrokes too, and resize is applied.
  term.ws.send(JSON.stringify({ type: 'resize', cols: 120, rows: 40 }));
  term.ws.send(Buffer.from('stty size\r'));
  await waitFor(() => /40 120/.test(term.text()), { what: 'the new size', timeoutMs: 15_000, seen: term.text });
  // Used once: the same ticket is refused from the same page and session.
  const again = await refused(open(t, { cookie: admin.cookieHeader }));
  assert.is(again.status, 403);
  assert.is(again.body.error.code, 'TERMINAL_TICKET_INVALID');
  term.ws.close();
  await term.closed;
  await waitFor(() => !alive(pid), { what: 'the shell to end', timeoutMs: 15_000 });
  // Start and end are on the activity log.
  const actions = await waitFor(
    async () => (await admin.get('/api/activity?q=terminal')).json.rows.map((r: any) => r.action) as string[],
    { what: 'terminal.end on the activity log', until: (a) => a.includes('terminal.end') },
  );
  assert.ok(actions.includes('terminal.start') && actions.includes('terminal.end'), JSON.stringify(actions));
});

test('the shell exiting closes the socket with an exit message', async () => {
  const term = await open(await ticket(admin), { cookie: admin.cookieHeader });
  term.ws.send(JSON.stringify({ type: 'input', data: 'exit 3\r' }));
  const { code } = await term.closed;
  assert.is(code, 1000);
  const exit = term.control.find((m) => m.type === 'exit');
  assert.is(exit.exitCode, 3);
  assert.is(exit.reason, 'exited');
});

test('signing out ends the shell that session opened (and only that one)', async () => {
  const other = await signIn(s, ADMIN.username, ADMIN.password);
  const stays = await open(await ticket(admin), { cookie: admin.cookieHeader });
  const goes = await open(await ticket(other), { cookie: other.cookieHeader });
  await waitFor(() => goes.control.some((m) => m.type === 'ready'), { what: 'ready', timeoutMs: 15_000 });
  goes.ws.send(JSON.stringify({ type: 'input', data: 'echo "pid=$$"\r' }));
  await waitFor(() => /pid=\d+/.test(goes.text()), { what: 'the pid', timeoutMs: 15_000, seen: goes.text });
  const pid = Number(/pid=(\d+)/.exec(goes.text())![1]);
  assert.is((await other.post('/api/auth/logout', {}, { origin: s.url })).status, 204);
  await waitFor(() => goes.control.some((m) => m.type === 'exit'), { what: 'the exit message', timeoutMs: 15_000 });
  assert.is(goes.control.find((m) => m.type === 'exit').reason, 'signed-out');
  assert.is((await goes.closed).code, 1000);
  await waitFor(() => !alive(pid), { what: 'the shell to end', timeoutMs: 15_000 });
  // The other session's terminal still answers.
  stays.ws.send(JSON.stringify({ type: 'input', data: 'echo still-$((6*7))\r' }));
  await waitFor(() => /still-42/.test(stays.text()), {
    what: 'the other terminal',
    timeoutMs: 15_000,
    seen: stays.text,
  });
  stays.ws.close();
  await stays.closed;
});

test('a ticket opened from another page is refused, and is gone afterwards', async () => {
  const t = await ticket(admin);
  const other = await refused(open(t, { cookie: admin.cookieHeader, origin: 'http://evil.example' }));
  assert.is(other.status, 403);
  assert.is(other.body.error.code, 'TERMINAL_TICKET_INVALID');
  assert.is((await refused(open(t, { cookie: admin.cookieHeader }))).status, 403);
  // Another page cannot even ask for a ticket (the cross-site check), nor can a request without a page.
  const cross = await admin.post('/api/terminal/session', {}, { origin: 'http://evil.example' });
  assert.is(cross.status, 403);
  assert.is(envelope(cross).code, 'CROSS_SITE_REFUSED');
  const bare = await admin.post('/api/terminal/session', {});
  assert.is(bare.status, 400);
  assert.match(envelope(bare).message, /Origin/);
});

test('a ticket of another session is refused (same account, other sign-in)', async () => {
  const t = await ticket(admin);
  const second = await signIn(s, ADMIN.username, ADMIN.password);
  const r = await refused(open(t, { cookie: second.cookieHeader }));
  assert.is(r.status, 403);
  assert.is(r.body.error.code, 'TERMINAL_TICKET_INVALID');
});

test("API tokens are refused on the ticket route and on the socket, even an administrator's write token", async () => {
  const token = await issueToken(admin, 'write');
  const a = await fetch(`${s.url}/api/terminal/session`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', origin: s.url },
    body: '{}',
  });
  assert.is(a.status, 403);
  assert.is((await a.json()).error.code, 'AUTH_TOKEN_NOT_ALLOWED');
  const t = await ticket(admin);
  const r = await refused(open(t, { cookie: admin.cookieHeader, headers: { authorization: `Bearer ${token}` } }));
  assert.is(r.status, 403);
  assert.is(r.body.error.code, 'AUTH_TOKEN_NOT_ALLOWED');
});

test('an account that is not an administrator is refused; no cookie is refused', async () => {
  const a = await bob.post('/api/terminal/session', {}, { origin: s.url });
  assert.is(a.status, 403);
  assert.is(envelope(a).code, 'ADMIN_ONLY');
  const t = await ticket(admin);
  const r = await refused(open(t, { cookie: bob.cookieHeader }));
  assert.is(r.status, 403);
  assert.is(r.body.error.code, 'ADMIN_ONLY');
  const none = await refused(open(t));
  assert.is(none.status, 401);
  // Other upgrade paths are not WebSocket endpoints.
  const ws = new WebSocket(`${s.url.replace(/^http/, 'ws')}/api/volumes`);
  const status = await new Promise<number>((resolve) => {
    ws.on('unexpected-response', (_q, res) => resolve(res.statusCode!));
    ws.on('error', () => resolve(-1));
  });
  assert.is(status, 404);
});

test('TERMINAL_MAX_SESSIONS bounds the open terminals', async () => {
  const one = await open(await ticket(admin), { cookie: admin.cookieHeader });
  const two = await open(await ticket(admin), { cookie: admin.cookieHeader });
  // Open once ready: its shell is counted by then, on whichever instance of a cluster runs it.
  for (const t of [one, two])
    await waitFor(() => t.control.some((m) => m.type === 'ready'), { what: 'ready', timeoutMs: 15_000 });
  const third = await admin.post('/api/terminal/session', {}, { origin: s.url });
  assert.is(third.status, 429);
  assert.is(envelope(third).code, 'TERMINAL_LIMIT');
  one.ws.close();
  two.ws.close();
  await Promise.all([one.closed, two.closed]);
  const status = await waitFor(async () => (await admin.post('/api/terminal/session', {}, { origin: s.url })).status, {
    what: 'a terminal session to be granted again',
    until: (st) => st === 200,
  });
  assert.is(status, 200);
});

/** Opens `t`: 'ready' once its shell runs, else the refusal's status and code. */
async function outcome(t: string): Promise<{ ready: Opened } | { status: number; code: string }> {
  try {
    const o = await open(t, { cookie: admin.cookieHeader });
    await waitFor(() => o.control.some((m) => m.type === 'ready' || m.type === 'error'), {
      what: 'ready or an error',
      timeoutMs: 15_000,
    });
    const first = o.control.find((m) => m.type === 'ready' || m.type === 'error');
    if (first.type === 'ready') return { ready: o };
    o.ws.close();
    return { status: (await o.closed).code, code: first.message };
  } catch (err) {
    const e = err as { status: number; body: any };
    return { status: e.status, code: e.body?.error?.code };
  }
}

test('terminals opened at once through every instance never pass TERMINAL_MAX_SESSIONS: two shells, the others 429 TERMINAL_LIMIT at the upgrade', async () => {
  // Eight tickets first (none is open yet), then eight sockets at once: on a cluster they reach
  // all three instances, each counting the shells of all of them.
  const tickets: string[] = [];
  for (let i = 0; i < 8; i++) tickets.push(await ticket(admin));
  const results = await Promise.all(tickets.map((t) => outcome(t)));
  const opened = results.flatMap((r) => ('ready' in r ? [r.ready] : []));
  const refusals = results.flatMap((r) => ('ready' in r ? [] : [`${r.status} ${r.code}`]));
  assert.is(opened.length, 2, JSON.stringify(refusals));
  assert.equal(refusals, Array(6).fill('429 TERMINAL_LIMIT'));
  // Each shell runs; once they end, the places are free again.
  for (const [i, o] of opened.entries()) {
    o.ws.send(JSON.stringify({ type: 'input', data: `echo "shell-$((${i}+100))"\r` }));
    await waitFor(() => o.text().includes(`shell-${i + 100}`), { what: 'the echo', timeoutMs: 15_000, seen: o.text });
    o.ws.close();
    await o.closed;
  }
  const status = await waitFor(async () => (await admin.post('/api/terminal/session', {}, { origin: s.url })).status, {
    what: 'a terminal session to be granted again',
    until: (st) => st === 200,
  });
  assert.is(status, 200);
});

test('one ticket presented on two connections at once opens exactly one shell', async () => {
  const t = await ticket(admin);
  const [a, b] = await Promise.all([outcome(t), outcome(t)]);
  const opened = [a, b].flatMap((r) => ('ready' in r ? [r.ready] : []));
  const refusals = [a, b].flatMap((r) => ('ready' in r ? [] : [`${r.status} ${r.code}`]));
  assert.is(opened.length, 1, JSON.stringify(refusals));
  assert.equal(refusals, ['403 TERMINAL_TICKET_INVALID']);
  opened[0]!.ws.close();
  await opened[0]!.closed;
});

test('off by default: features say so, the route answers 404 and the socket is not there', async () => {
  const off = await startServer();
  try {
    const a = await setupAdmin(off);
    assert.equal((await a.get('/api/features')).json.terminal.enabled, false);
    const r = await a.post('/api/terminal/session', {}, { origin: off.url });
    assert.is(r.status, 404);
    assert.is(envelope(r).code, 'TERMINAL_DISABLED');
    const ws = new WebSocket(`${off.url.replace(/^http/, 'ws')}/api/terminal/socket?ticket=x`, {
      headers: { cookie: a.cookieHeader },
      origin: off.url,
    });
    const status = await new Promise<number>((resolve) => {
      ws.on('unexpected-response', (_q, res) => resolve(res.statusCode!));
      ws.on('error', () => resolve(-1));
    });
    assert.is(status, 404);
  } finally {
    await off.close();
    removeDirs(off.dirs);
  }
});

test.run();

// Folder sizes and the terminal switched in Administration → Installation (PATCH /api/settings),
// through the real server: applied without a restart (sizes appear, the terminal's WebSocket
// opens; switched off, it is refused and open shells end), kept across a restart, fixed while
// FOLDER_SIZE_MODE / TERMINAL_ENABLED is set (the answer names the variable), the terminal
// switched on only with the administrator's password, never by another account, a token, or
// with AUTH_MODE=disabled; described in /api/openapi.json.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { ADMIN, createUser, issueToken, setupAdmin } from '../support/auth.ts';
import { Client, envelope } from '../support/client.ts';
import { instancesBehind, removeDirs, startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

let s: TestServer;
let admin: Client;

const HOLIDAY = 'Holiday 2025';
const NOTES = 'Tom & Jerry’s #1 + notes ½.txt';
const PHOTO = 'Été à Zürich 🌄.jpg';
const DEEP = ['Année 2024', 'Fotos + Videos'];
const folderPath = (...p: string[]) => ['Files', ...p].map(encodeURIComponent).join('/');

async function size(client: Client, ...p: string[]) {
  const a = await client.get(`/api/folder-size/${folderPath(...p)}`);
  assert.is(a.status, 200, a.text);
  return a.json as { indexed: boolean; sizeBytes: number | null; entryCount: number };
}

/**
 * The folder's size as each server answers it: one request to each in a row (a cluster's
 * instances each keep their own index, and each follows a switch set through any of them).
 */
async function sizes(client: Client, ...p: string[]) {
  const out = [];
  for (let i = 0; i < instancesBehind(s); i++) out.push(await size(client, ...p));
  return out;
}

const patchSettings = (client: Client, body: unknown, origin = s.url) =>
  client.patch('/api/settings', body, { origin });

test.before(async () => {
  // Nothing indexed at start (no folder sizes, no search catalogue): a switch on must start the walks.
  s = await startServer({ env: { SEARCH_INDEX_ENABLED: 'false', FOLDER_SIZE_FLUSH_MS: '20', LOG_LEVEL: 'debug' } });
  const holiday = path.join(s.dirs.volumes, 'Files', HOLIDAY);
  fs.mkdirSync(path.join(holiday, ...DEEP), { recursive: true });
  fs.writeFileSync(path.join(holiday, NOTES), 'x'.repeat(1000));
  fs.writeFileSync(path.join(holiday, ...DEEP, PHOTO), Buffer.alloc(24_000, 7));
  admin = await setupAdmin(s);
});

test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('folder sizes are off at first: the settings say so, nothing is indexed, no variable fixes them', async () => {
  const view = (await admin.get('/api/settings')).json;
  assert.equal(view.folderSizes, { mode: 'off', setBy: null });
  assert.equal(view.terminal, { enabled: false, setBy: null });
  assert.equal((await admin.get('/api/features')).json.folderSize, { enabled: false, mode: 'off' });
  assert.is((await size(admin, HOLIDAY)).indexed, false);
});

test('switched to full, the sizes appear without a restart; shallow counts direct entries; off hides them at once', async () => {
  const on = await patchSettings(admin, { folderSizes: { mode: 'full' } });
  assert.is(on.status, 200, on.text);
  assert.equal(on.json.folderSizes, { mode: 'full', setBy: null });
  assert.equal((await admin.get('/api/features')).json.folderSize, { enabled: true, mode: 'full' });
  const full = await waitFor(() => sizes(admin, HOLIDAY), {
    what: 'the recursive size of Holiday 2025',
    timeoutMs: 20_000,
    until: (rs) => rs.every((r) => r.indexed && r.sizeBytes === 25_000),
  });
  // Holiday 2025: the note, two folders and the photo.
  for (const r of full) assert.is(r.entryCount, 4);
  for (const r of await sizes(admin, HOLIDAY, ...DEEP)) assert.is(r.sizeBytes, 24_000);

  // A file written through the API after the switch is counted (the changes are followed).
  const up = new FormData();
  up.append('uploadTo', `Files/${HOLIDAY}`);
  up.append('filedata', new Blob([Buffer.alloc(500, 1)]), 'Notizen für Oma.txt');
  const put = await admin.post('/api/upload', up, { origin: s.url });
  assert.is(put.status, 201, put.text);
  await waitFor(() => sizes(admin, HOLIDAY), {
    what: 'the upload in the size',
    timeoutMs: 20_000,
    until: (rs) => rs.every((r) => r.sizeBytes === 25_500),
  });

  assert.is((await patchSettings(admin, { folderSizes: { mode: 'shallow' } })).status, 200);
  for (const shallow of await sizes(admin, HOLIDAY)) {
    assert.is(shallow.indexed, true);
    assert.is(shallow.sizeBytes, 1500, 'direct files only');
  }

  const off = await patchSettings(admin, { folderSizes: { mode: 'off' } });
  assert.equal(off.json.folderSizes, { mode: 'off', setBy: null });
  for (const r of await sizes(admin, HOLIDAY)) assert.is(r.indexed, false);
  for (let i = 0; i < instancesBehind(s); i++)
    assert.equal((await admin.get('/api/features')).json.folderSize, { enabled: false, mode: 'off' });
});

test('switched on again after changes made while off, the sizes are walked afresh (nothing stale)', async () => {
  // Written while nothing was kept: the index never heard of it.
  fs.writeFileSync(path.join(s.dirs.volumes, 'Files', HOLIDAY, 'Très long été.txt'), 'y'.repeat(2000));
  assert.is((await patchSettings(admin, { folderSizes: { mode: 'full' } })).status, 200);
  await waitFor(() => sizes(admin, HOLIDAY), {
    what: 'the fresh walk',
    timeoutMs: 20_000,
    until: (rs) => rs.every((r) => r.indexed && r.sizeBytes === 27_500),
  });
});

test('the mode is kept in the database: a restart comes back with it', async () => {
  await s.restart();
  assert.equal((await admin.get('/api/settings')).json.folderSizes, { mode: 'full', setBy: null });
  await waitFor(() => sizes(admin, HOLIDAY), {
    what: 'sizes after the restart',
    timeoutMs: 20_000,
    until: (rs) => rs.every((r) => r.sizeBytes === 27_500),
  });
});

/** Opens the terminal socket with a fresh ticket; resolves once the shell is ready. */
async function openTerminal(client: Client) {
  const t = await client.post('/api/terminal/session', { cols: 80, rows: 24 }, { origin: s.url });
  assert.is(t.status, 200, t.text);
  const ws = new WebSocket(`${s.url.replace(/^http/, 'ws')}${t.json.socketPath}?ticket=${t.json.ticket}`, {
    headers: { cookie: client.cookieHeader },
    origin: s.url,
  });
  let out = '';
  const control: any[] = [];
  // The close code once the socket closed (waited on with a bound: a shell left open fails the test, not hangs it).
  let code: number | null = null;
  ws.on('close', (c) => (code = c));
  const closed = () =>
    waitFor(() => code, { what: 'the terminal socket to close', timeoutMs: 20_000, until: (c) => c !== null });
  ws.on('message', (data, binary) => {
    if (binary) out += data.toString();
    else control.push(JSON.parse(data.toString()));
  });
  await new Promise<void>((resolve, reject) => {
    ws.on('open', () => resolve());
    ws.on('unexpected-response', (_q, res) => reject(new Error(`socket refused ${res.statusCode}`)));
    ws.on('error', reject);
  });
  await waitFor(() => control.some((m) => m.type === 'ready'), { what: 'the shell to be ready', timeoutMs: 20_000 });
  return { ws, output: () => out, control, closed };
}

/** The status of a WebSocket upgrade that is refused. */
function refusedUpgrade(client: Client): Promise<number> {
  const ws = new WebSocket(`${s.url.replace(/^http/, 'ws')}/api/terminal/socket?ticket=none`, {
    headers: { cookie: client.cookieHeader },
    origin: s.url,
  });
  return new Promise((resolve) => {
    ws.on('unexpected-response', (_q, res) => resolve(res.statusCode!));
    ws.on('open', () => {
      ws.close();
      resolve(101);
    });
    ws.on('error', () => resolve(-1));
  });
}

test('the terminal is switched on only with the administrator’s password', async () => {
  const none = await patchSettings(admin, { terminal: { enabled: true } });
  assert.is(none.status, 401, none.text);
  envelope(none);
  const wrong = await patchSettings(admin, { terminal: { enabled: true, password: 'not the password' } });
  assert.is(wrong.status, 401);
  // Refused: nothing changed, whatever else the body asked.
  const mixed = await patchSettings(admin, {
    branding: { appName: 'Should not stick' },
    terminal: { enabled: true, password: 'wrong again' },
  });
  assert.is(mixed.status, 401);
  const view = (await admin.get('/api/settings')).json;
  assert.is(view.branding.appName, 'Burrow');
  assert.equal(view.terminal, { enabled: false, setBy: null });
  assert.is((await admin.post('/api/terminal/session', {}, { origin: s.url })).status, 404);
});

test('switched on, the WebSocket opens without a restart; switched off, the open shell ends and new ones are refused', async () => {
  assert.is(await refusedUpgrade(admin), 404);
  const on = await patchSettings(admin, { terminal: { enabled: true, password: ADMIN.password } });
  assert.is(on.status, 200, on.text);
  assert.equal(on.json.terminal, { enabled: true, setBy: null });
  assert.equal((await admin.get('/api/features')).json.terminal, { enabled: true, available: true });

  const term = await openTerminal(admin);
  term.ws.send(JSON.stringify({ type: 'input', data: 'echo "sum=$((20+22))"\r' }));
  await waitFor(() => /sum=42/.test(term.output()), {
    what: 'the command output',
    timeoutMs: 20_000,
    seen: term.output,
  });

  const off = await patchSettings(admin, { terminal: { enabled: false } });
  assert.is(off.status, 200, off.text);
  // The shell was opened on one instance and switched off through another (on a cluster): it ends.
  assert.is(await term.closed(), 1000);
  assert.is(term.control.find((m) => m.type === 'exit')?.reason, 'switched-off');
  const ticket = await admin.post('/api/terminal/session', {}, { origin: s.url });
  assert.is(ticket.status, 404);
  assert.is(envelope(ticket).code, 'TERMINAL_DISABLED');
  assert.is(await refusedUpgrade(admin), 404);
  assert.is((await admin.get('/api/features')).json.terminal.enabled, false);
});

test('another account, an API token and another site cannot switch anything; others do not see the switches', async () => {
  const bob = await createUser(admin, s, { username: 'bob', password: 'bob-password-1' });
  const mine = (await bob.get('/api/settings')).json;
  assert.is(mine.folderSizes, undefined);
  assert.is(mine.terminal, undefined);
  const asBob = await patchSettings(bob, { terminal: { enabled: true, password: 'bob-password-1' } });
  assert.is(asBob.status, 403);
  assert.is(envelope(asBob).code, 'ADMIN_ONLY');
  assert.is((await patchSettings(bob, { folderSizes: { mode: 'off' } })).status, 403);

  const token = new Client(s.url, await issueToken(admin, 'write'));
  const viaToken = await token.patch('/api/settings', { folderSizes: { mode: 'off' } });
  assert.is(viaToken.status, 403);
  assert.is(envelope(viaToken).code, 'AUTH_TOKEN_NOT_ALLOWED');

  const crossSite = await patchSettings(
    admin,
    { terminal: { enabled: true, password: ADMIN.password } },
    'https://evil.example',
  );
  assert.is(crossSite.status, 403);
  assert.is(envelope(crossSite).code, 'CROSS_SITE_REFUSED');
  const view = (await admin.get('/api/settings')).json;
  assert.equal(view.folderSizes.mode, 'full');
  assert.equal(view.terminal.enabled, false);
});

test('each switch is on the activity log, with what it was set to', async () => {
  assert.is((await patchSettings(admin, { activity: { enabled: true } })).status, 200);
  assert.is((await patchSettings(admin, { terminal: { enabled: true, password: ADMIN.password } })).status, 200);
  assert.is((await patchSettings(admin, { terminal: { enabled: false } })).status, 200);
  const rows = (await admin.get('/api/activity?action=admin.settings-change&limit=5')).json.rows;
  assert.equal(rows[0].detail, { sections: ['terminal'], terminal: 'off' });
  assert.equal(rows[1].detail, { sections: ['terminal'], terminal: 'on' });
});

test('OpenAPI describes both switches in the body and the answer', async () => {
  const doc = (await admin.get('/api/openapi.json')).json;
  const op = doc.paths['/api/settings'].patch;
  const body = op.requestBody.content['application/json'].schema;
  const props = body.properties ?? doc.components.schemas[body.$ref?.split('/').pop()]?.properties;
  assert.ok(props.folderSizes, 'folderSizes in the PATCH body');
  assert.ok(props.terminal, 'terminal in the PATCH body');
  assert.equal(props.folderSizes.properties.mode.enum, ['off', 'full', 'shallow']);
  assert.ok(props.terminal.properties.password, 'the password that switches the terminal on');
  const answer = op.responses['200'].content['application/json'].schema;
  const view = answer.properties ?? doc.components.schemas[answer.$ref?.split('/').pop()]?.properties;
  assert.ok(view.folderSizes.properties.setBy, 'setBy in the answer');
  assert.ok(view.terminal.properties.setBy);
});

test('a variable that is set wins: the answer names it, and a change is refused with nothing written', async () => {
  const fixed = await startServer({ env: { FOLDER_SIZE_MODE: 'shallow', TERMINAL_ENABLED: 'false' } });
  try {
    const a = await setupAdmin(fixed);
    const view = (await a.get('/api/settings')).json;
    assert.equal(view.folderSizes, { mode: 'shallow', setBy: 'FOLDER_SIZE_MODE' });
    assert.equal(view.terminal, { enabled: false, setBy: 'TERMINAL_ENABLED' });
    const r = await a.patch(
      '/api/settings',
      { branding: { appName: 'Our files' }, folderSizes: { mode: 'full' } },
      { origin: fixed.url },
    );
    assert.is(r.status, 409);
    assert.is(envelope(r).code, 'SET_BY_ENVIRONMENT');
    assert.match(envelope(r).message, /FOLDER_SIZE_MODE/);
    const t = await a.patch(
      '/api/settings',
      { terminal: { enabled: true, password: ADMIN.password } },
      { origin: fixed.url },
    );
    assert.is(t.status, 409);
    assert.match(envelope(t).message, /TERMINAL_ENABLED/);
    // The value it already has is no change.
    assert.is(
      (await a.patch('/api/settings', { folderSizes: { mode: 'shallow' } }, { origin: fixed.url })).status,
      200,
    );
    assert.is((await a.get('/api/settings')).json.branding.appName, 'Burrow');
  } finally {
    await fixed.close();
    removeDirs(fixed.dirs);
  }
});

test('with AUTH_MODE=disabled the terminal is never switched on from the web', async () => {
  const open = await startServer({ env: { AUTH_MODE: 'disabled' } });
  try {
    const anyone = new Client(open.url);
    const r = await anyone.patch('/api/settings', { terminal: { enabled: true } }, { origin: open.url });
    assert.is(r.status, 403);
    assert.match(envelope(r).message, /TERMINAL_ENABLED=true/);
    assert.is((await anyone.get('/api/features')).json.terminal.enabled, false);
  } finally {
    await open.close();
    removeDirs(open.dirs);
  }
});

test.run();

// WOPI proof keys on the real server: the stub editing server's discovery publishes an RSA
// proof key (the current one and the one being rotated out), so every call back must be
// signed: X-WOPI-Proof over the access token, the upper-cased absolute URL (PUBLIC_URL form)
// and X-WOPI-TimeStamp. Signed calls work, including each combination of a key rotation;
// unsigned, wrongly signed, replayed-to-another-address and stale calls answer 500
// WOPI_PROOF_INVALID (what WOPI asks of hosts) and change nothing. The signing here is written
// from the protocol's description, not imported from the server.
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setupAdmin } from '../support/auth.ts';
import type { Client } from '../support/client.ts';
import { serveDiscovery } from '../support/office.ts';
import { startServer, removeDirs, type TestServer } from '../support/server.ts';

const PUBLIC = 'http://files.burrow.test';
let s: TestServer;
let admin: Client;
let editorBase = '';
const newKey = () => generateKeyPairSync('rsa', { modulusLength: 2048 });
const current = newKey();
const old = newKey();
const stranger = newKey();
const b64 = (key: KeyObject, part: 'n' | 'e') =>
  Buffer.from(key.export({ format: 'jwk' })[part]!, 'base64url').toString('base64');

const PROOF_KEY = `
<proof-key value="unused-csp-blob" modulus="${b64(current.publicKey, 'n')}" exponent="${b64(current.publicKey, 'e')}"
  oldvalue="unused" oldmodulus="${b64(old.publicKey, 'n')}" oldexponent="${b64(old.publicKey, 'e')}"/>
`;
const editor = http.createServer((req, res) => {
  if (serveDiscovery(req, res, editorBase, PROOF_KEY)) return;
  res.statusCode = 404;
  res.end();
});

/** .NET ticks (100 ns since 0001-01-01 UTC) of a moment. */
const ticks = (ms: number) => (BigInt(ms) * 10_000n + 621_355_968_000_000_000n).toString();

function signature(key: KeyObject, token: string, url: string, timestamp: string): string {
  const t = Buffer.from(token);
  const u = Buffer.from(url.toUpperCase());
  const stamp = Buffer.alloc(8);
  stamp.writeBigInt64BE(BigInt(timestamp));
  const length = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeInt32BE(n);
    return b;
  };
  const data = Buffer.concat([length(t.length), t, length(u.length), u, length(8), stamp]);
  return sign('RSA-SHA256', data, key).toString('base64');
}

interface Opened {
  token: string;
  /** The WOPISrc as the editing server sees it (PUBLIC_URL). */
  src: string;
}

async function open(name: string, content: string): Promise<Opened> {
  fs.writeFileSync(path.join(s.dirs.volumes, 'Files', name), content);
  const c = await admin.post('/api/officeeditor/config', { path: `Files/${name}`, mode: 'edit' }, { origin: s.url });
  assert.is(c.status, 200, c.text);
  return { token: c.json.access_token, src: decodeURIComponent(/WOPISrc=([^&]+)/.exec(c.json.urlSrc)![1]!) };
}

/** A call back as the editing server makes it, signed as told. */
async function call(
  o: Opened,
  suffix: string,
  init: {
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    proof?: KeyObject | null;
    proofOld?: KeyObject | null;
    signedUrl?: string;
    at?: number;
  } = {},
): Promise<Response> {
  const publicUrl = `${o.src}${suffix}?access_token=${encodeURIComponent(o.token)}`;
  const timestamp = ticks(init.at ?? Date.now());
  const signedUrl = init.signedUrl ?? publicUrl;
  const headers: Record<string, string> = { 'X-WOPI-TimeStamp': timestamp, ...init.headers };
  if (init.proof) headers['X-WOPI-Proof'] = signature(init.proof, o.token, signedUrl, timestamp);
  if (init.proofOld) headers['X-WOPI-ProofOld'] = signature(init.proofOld, o.token, signedUrl, timestamp);
  return fetch(publicUrl.replace(PUBLIC, s.url), {
    method: init.method ?? 'GET',
    headers,
    ...(init.body !== undefined ? { body: init.body } : {}),
  });
}

async function refusedAsUnproven(r: Response): Promise<void> {
  assert.is(r.status, 500);
  const body = await r.json();
  assert.is(body.error.code, 'WOPI_PROOF_INVALID');
  assert.ok(body.error.requestId);
}

test.before(async () => {
  await new Promise<void>((r) => editor.listen(0, '127.0.0.1', r));
  editorBase = `http://127.0.0.1:${(editor.address() as AddressInfo).port}`;
  s = await startServer({
    env: {
      PUBLIC_URL: PUBLIC,
      OFFICEEDITOR_URL: editorBase,
      OFFICEEDITOR_SECRET: 'proof-key-test-secret-0123456789abcdef',
    },
  });
  admin = await setupAdmin(s);
});

test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
  await new Promise((r) => editor.close(r));
});

test('calls signed with the current key work: CheckFileInfo, GetFile, PutFile', async () => {
  const o = await open('signed.docx', 'v1');
  const info = await call(o, '', { proof: current.privateKey });
  assert.is(info.status, 200, await info.clone().text());
  assert.is((await info.json()).BaseFileName, 'signed.docx');
  const got = await call(o, '/contents', { proof: current.privateKey });
  assert.is(await got.text(), 'v1');
  const put = await call(o, '/contents', {
    method: 'POST',
    headers: { 'X-WOPI-Override': 'PUT' },
    body: 'v2',
    proof: current.privateKey,
  });
  assert.is(put.status, 200, await put.clone().text());
  assert.is(fs.readFileSync(path.join(s.dirs.volumes, 'Files', 'signed.docx'), 'utf8'), 'v2');
});

test('a key rotation in flight: ProofOld under the current key, or Proof under the old key, also holds', async () => {
  const o = await open('rotating.docx', 'r1');
  assert.is((await call(o, '', { proof: stranger.privateKey, proofOld: current.privateKey })).status, 200);
  assert.is((await call(o, '', { proof: old.privateKey })).status, 200);
});

test('unsigned, wrongly signed, stale, and signed-for-another-address calls are 500 and change nothing', async () => {
  const o = await open('guarded.docx', 'keep me');
  const file = path.join(s.dirs.volumes, 'Files', 'guarded.docx');
  const put = (extra: Parameters<typeof call>[2]) =>
    call(o, '/contents', { method: 'POST', headers: { 'X-WOPI-Override': 'PUT' }, body: 'overwritten', ...extra });
  await refusedAsUnproven(await put({}));
  await refusedAsUnproven(await put({ proof: stranger.privateKey }));
  await refusedAsUnproven(await put({ proofOld: old.privateKey }));
  await refusedAsUnproven(await put({ proof: current.privateKey, at: Date.now() - 21 * 60 * 1000 }));
  await refusedAsUnproven(
    await put({ proof: current.privateKey, signedUrl: `${o.src}?access_token=${encodeURIComponent(o.token)}` }),
  );
  await refusedAsUnproven(await call(o, '', {}));
  await refusedAsUnproven(await call(o, '/contents', { proof: stranger.privateKey }));
  assert.is(fs.readFileSync(file, 'utf8'), 'keep me');
  const versions = await admin.get('/api/versions?path=Files%2Fguarded.docx');
  assert.is(versions.json.items.length, 0);
});

test.run();

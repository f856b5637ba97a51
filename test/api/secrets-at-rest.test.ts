// What a copy of the database opens: nothing. Link tokens are kept as their SHA-256 and sealed
// for their owner under a key in CONFIG_DIR/keys; second-factor seeds are sealed under another key
// there. Through the real server: the database file and CONFIG_DIR/backups copied to another
// Burrow hold no token or seed in any spelling, open no link and pass no second factor, while the
// original still does both. Links made before tokens were hashed keep working after the upgrade;
// the snapshot the upgrade took opens none, and once restored on this release opens them again.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateSync } from 'otplib';
import { createUser, setupAdmin } from '../support/auth.ts';
import { Client, envelope } from '../support/client.ts';
import { makeDirs, removeDirs, startServer, type TestServer } from '../support/server.ts';

const FOLDER = 'Documents & Fotos #2';
const FILE = 'Quartalsbericht Ü 50% + Q&A "final" 😀.pdf';
const NFD_FOLDER = 'Cafe\u0301 photos';
const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

/** Waits, when needed, until at least 15 s of the current 30-second step are left; returns the step's start. */
async function freshStep(): Promise<number> {
  const into = (Date.now() / 1000) % 30;
  // A wait on the clock itself, to the next step's start: the server's codes follow real time.
  if (into > 15) await new Promise((r) => setTimeout(r, (30 - into) * 1000 + 50));
  return Math.floor(Date.now() / 30_000) * 30;
}

/** Turns on the second factor, confirmed with the code of the step before (the server takes one either side); its seed and a recovery code. */
async function turnOnTwoStep(account: Client): Promise<{ step: number; secret: string; recovery: string }> {
  const step = await freshStep();
  const started = await account.post('/api/auth/totp/start');
  assert.is(started.status, 200, started.text);
  const secret: string = started.json.secret;
  const confirmed = await account.post('/api/auth/totp/confirm', { code: generateSync({ secret, epoch: step - 30 }) });
  assert.is(confirmed.status, 200, confirmed.text);
  return { step, secret, recovery: confirmed.json.recoveryCodes[0] };
}

/** The bytes of the seed a base32 secret spells. */
function base32(secret: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of secret.replace(/=+$/, '')) bits += alphabet.indexOf(c).toString(2).padStart(5, '0');
  return Buffer.from(bits.match(/.{8}/g)!.map((b) => parseInt(b, 2)));
}

/** Every file under `dir` (the database, its journal, the snapshots). */
function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

/** Fails when any file holds any of the secrets, in any of the spellings given. */
function holdsNone(files: string[], secrets: Record<string, Buffer>): void {
  assert.ok(files.length > 0);
  for (const f of files) {
    const bytes = fs.readFileSync(f);
    for (const [what, secret] of Object.entries(secrets))
      assert.is(bytes.indexOf(secret), -1, `${path.basename(f)} holds ${what}`);
  }
}

/** The spellings of a link token someone could use: as sent, its bytes, hex and base64. */
function spellings(token: string, label: string): Record<string, Buffer> {
  const raw = Buffer.from(token, 'base64url');
  return {
    [`${label} token`]: Buffer.from(token),
    [`${label} token bytes`]: raw,
    [`${label} token hex`]: Buffer.from(raw.toString('hex')),
    [`${label} token base64`]: Buffer.from(raw.toString('base64')),
  };
}

async function makeLinks(s: TestServer, owner: Client) {
  const files = path.join(s.dirs.volumes, 'Files');
  fs.mkdirSync(path.join(files, FOLDER), { recursive: true });
  fs.mkdirSync(path.join(files, NFD_FOLDER), { recursive: true });
  fs.writeFileSync(path.join(files, FOLDER, FILE), PDF);
  fs.writeFileSync(path.join(files, NFD_FOLDER, 'IMG 0001 (copy).txt'), 'holiday notes');
  const made = [];
  for (const body of [
    { sourcePath: `Files/${FOLDER}/${FILE}`, accessMode: 'readonly', sharingType: 'anyone', userIds: [] },
    { sourcePath: `Files/${NFD_FOLDER}`, accessMode: 'readonly', sharingType: 'anyone', userIds: [] },
  ]) {
    const r = await owner.post('/api/shares', body);
    assert.is(r.status, 201, r.text);
    made.push({ id: r.json.id as string, token: r.json.shareToken as string, url: r.json.shareUrl as string });
  }
  return made;
}

/** Each link opens: its info, and the shared file's bytes. */
async function linksOpen(s: TestServer, links: { token: string }[]): Promise<void> {
  const anon = new Client(s.url);
  for (const l of links) {
    const info = await anon.get(`/api/share/${l.token}/info`);
    assert.is(info.status, 200, info.text);
  }
  const file = await fetch(`${s.url}/api/share/${links[0]!.token}/file`);
  assert.is(file.status, 200);
  assert.equal(Buffer.from(await file.arrayBuffer()), PDF);
}

/** The owner's own list still gives each link's address (sealed for them, not hashed away). */
async function ownerSees(owner: Client, links: { id: string; url: string; token: string }[]): Promise<void> {
  const mine = await owner.get('/api/shares');
  assert.is(mine.status, 200, mine.text);
  const rows: { id: string; shareUrl: string; shareToken: string }[] = mine.json.shares;
  for (const l of links) {
    const row = rows.find((r) => r.id === l.id);
    assert.ok(row, `the owner lists ${l.id}`);
    assert.is(row!.shareUrl, l.url);
    assert.is(row!.shareToken, l.token);
  }
}

test('a copy of the database and of CONFIG_DIR/backups opens no link and passes no second factor', async () => {
  const s = await startServer();
  const copy = makeDirs();
  let thief: TestServer | undefined;
  try {
    const admin = await setupAdmin(s);
    const alice = await createUser(admin, s, { username: 'alice', password: 'alice-password-1' });
    const links = await makeLinks(s, alice);
    const { step, secret, recovery } = await turnOnTwoStep(alice);
    await linksOpen(s, links);
    await s.close();

    // The keys are not beside the database: a copy of the database's folder less keys/ is what
    // a backup of the database is.
    assert.not.ok(fs.existsSync(path.join(s.dirs.config, 'totp-key')), 'no key beside burrow.db');
    assert.ok(fs.existsSync(path.join(s.dirs.config, 'keys', 'totp-key')));
    assert.ok(fs.existsSync(path.join(s.dirs.config, 'keys', 'link-key')));
    fs.mkdirSync(copy.config, { recursive: true });
    for (const f of fs.readdirSync(s.dirs.config))
      if (f !== 'keys') fs.cpSync(path.join(s.dirs.config, f), path.join(copy.config, f), { recursive: true });
    holdsNone(filesUnder(copy.config), {
      ...spellings(links[0]!.token, 'file link'),
      ...spellings(links[1]!.token, 'folder link'),
      'TOTP secret': Buffer.from(secret),
      'TOTP seed': base32(secret),
      'recovery code': Buffer.from(recovery),
    });

    // Another Burrow on the copy, over the same files: every value the shares rows hold, tried
    // as a link, opens nothing; the password and the next code do not sign alice in.
    thief = await startServer({ dirs: copy, env: { VOLUME_ROOT: s.dirs.volumes } });
    const values = await thief.withDatabase((db) =>
      db
        .all<Record<string, unknown>>('SELECT * FROM shares')
        .flatMap((r) => Object.values(r).filter((v): v is string => typeof v === 'string')),
    );
    assert.ok(values.length >= 2 * 5);
    const anon = new Client(thief.url);
    for (const v of values) {
      const r = await anon.get(`/api/share/${encodeURIComponent(v)}/info`);
      assert.ok(r.status >= 400 && r.status < 500, `${v}: ${r.status} ${r.text.slice(0, 200)}`);
    }
    for (const second of [generateSync({ secret, epoch: step }), recovery]) {
      const held = new Client(thief.url);
      assert.equal((await held.post('/api/auth/login', { identifier: 'alice', password: 'alice-password-1' })).json, {
        totpRequired: true,
      });
      const r = await held.post('/api/auth/login/totp', { code: second });
      assert.is(r.status, 401, r.text);
      assert.is(envelope(r).code, 'AUTH_INVALID_TOTP_CODE');
    }

    // The original, with its keys: the links open, their owner sees their addresses, the code
    // the copy refused signs her in.
    await s.restart();
    await linksOpen(s, links);
    await ownerSees(alice, links);
    const held = new Client(s.url);
    await held.post('/api/auth/login', { identifier: 'alice', password: 'alice-password-1' });
    const ok = await held.post('/api/auth/login/totp', { code: generateSync({ secret, epoch: step }) });
    assert.is(ok.status, 200, ok.text);
  } finally {
    await thief?.close();
    await s.close();
    removeDirs(copy);
    removeDirs(s.dirs);
  }
});

test('links made before tokens were hashed keep working; the snapshot taken then opens none until restored', async () => {
  const s = await startServer();
  try {
    const admin = await setupAdmin(s);
    const alice = await createUser(admin, s, { username: 'alice', password: 'alice-password-1' });
    const links = await makeLinks(s, alice);
    const { step, secret } = await turnOnTwoStep(alice);
    const keys = path.join(s.dirs.config, 'keys');
    // The database as the release before this one left it: tokens in clear, no link key, the
    // second factor's key beside the database. The next start migrates it.
    await s.withDatabase((db) => {
      for (const l of links) db.run('UPDATE shares SET token_hash = ? WHERE id = ?', [l.token, l.id]);
      db.exec('ALTER TABLE shares DROP COLUMN token_sealed; ALTER TABLE shares RENAME COLUMN token_hash TO token');
      db.run("DELETE FROM schema_migrations WHERE id = 'shares/002_link_token_hash'");
      db.run("DELETE FROM burrow_meta WHERE key = 'backup_link_tokens_sealed'");
      fs.rmSync(path.join(keys, 'link-key'));
      fs.renameSync(path.join(keys, 'totp-key'), path.join(s.dirs.config, 'totp-key'));
      // Keys of later capabilities (the HTTPS authority's) stay: that release had none of them.
      if (fs.readdirSync(keys).length === 0) fs.rmdirSync(keys);
    });
    // Started again: migrated, the key moved, the old links open and their owner sees them.
    await linksOpen(s, links);
    await ownerSees(alice, links);
    assert.not.ok(fs.existsSync(path.join(s.dirs.config, 'totp-key')));
    const held = new Client(s.url);
    await held.post('/api/auth/login', { identifier: 'alice', password: 'alice-password-1' });
    const ok = await held.post('/api/auth/login/totp', { code: generateSync({ secret, epoch: step }) });
    assert.is(ok.status, 200, ok.text);

    const backups = path.join(s.dirs.config, 'backups');
    const snapshots = fs.readdirSync(backups);
    assert.is(snapshots.length, 1, snapshots.join(','));
    await s.close();
    const secrets = { ...spellings(links[0]!.token, 'file link'), ...spellings(links[1]!.token, 'folder link') };
    holdsNone(
      filesUnder(s.dirs.config).filter((f) => !f.startsWith(keys + path.sep)),
      secrets,
    );
    // The live rows: the SHA-256 of each token, nothing else of it.
    await s.restart();
    const rows = await s.withDatabase((db) =>
      db.all<{ id: string; token_hash: string }>('SELECT id, token_hash FROM shares'),
    );
    for (const l of links)
      assert.is(rows.find((r) => r.id === l.id)?.token_hash, createHash('sha256').update(l.token).digest('hex'));

    // The snapshot put back in place of the database: this release opens its links again.
    await s.close();
    fs.copyFileSync(path.join(backups, snapshots[0]!), path.join(s.dirs.config, 'burrow.db'));
    await s.restart();
    await linksOpen(s, links);
    await ownerSees(alice, links);
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test.run();

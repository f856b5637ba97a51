// The migration to the one access model keeps what every account could do: a database as the
// release before the model left it — its installation-wide rules in the settings, a host folder
// served read-only, a host folder assigned to two accounts (one read-write, one read-only) — is
// opened by this release, and for every account × folder the explainer's answer (what they can
// do) and what their own requests do are the previous release's. The previous release's answers
// are written out below from its rules (files/access.ts of that release): a hidden folder hid
// everything below it, `ro` let a person see, download and share, `rw` or no rule everything,
// a read-only volume took writing away, and an account given assigned volumes saw only those.
//
// The installation-wide rules became rules (003_access_model.sql). A volume's read-only mode
// and the assignments stay the volume's (docs/design.md, "The access model and what a volume
// says"): the explainer names them as `limit`. One thing did change, and is pinned here: the
// model has no level that shares without writing, so where an `ro` rule stood (now `read`),
// sharing needs a manage rule; a read-only volume, which is not a rule, still lets a manager share.
//
// PostgreSQL: no release before the model ran on it (DATABASE_URL came after), so there is no
// previous database of that kind to migrate; this file runs on SQLite, from source and against
// the executable.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';
import { createUser, me, setupAdmin } from '../support/auth.ts';
import { type Can, outcomes } from '../support/access.ts';

const ARCHIVE = 'Archiv 1970 & Fotos #1'; // a host folder served read-only
const DESK = 'Désk + Notes 🗂'; // a host folder assigned to otto (read-write) and ria (read-only)
const FILE = "note 'q1' #1 é.txt";
type Who = 'admin' | 'bo' | 'otto' | 'ria';

const ALL: Can = { see: true, download: true, write: true, delete: true, share: true };
const NOTHING: Can = { see: false, download: false, write: false, delete: false, share: false };
/** What an `ro` rule or a read-only volume left: look, take away, share. */
const RO: Can = { see: true, download: true, write: false, delete: false, share: true };

/** The folders asked about: their real place (below the test's root) and the previous release's answer for each account. */
const FOLDERS: { path: string; real: string[]; before: Record<Who, Can>; roRule?: boolean }[] = [
  { path: 'Files/Open space', real: ['volumes', 'Files', 'Open space'], before: every(ALL, NOTHING) },
  {
    path: 'Files/Private/Inner',
    real: ['volumes', 'Files', 'Private', 'Inner'],
    before: every(NOTHING, NOTHING),
  },
  {
    path: 'Files/Docs & Co/Old',
    real: ['volumes', 'Files', 'Docs & Co', 'Old'],
    before: every(RO, NOTHING),
    roRule: true,
  },
  { path: 'Files/Flat', real: ['volumes', 'Files', 'Flat'], before: every(RO, NOTHING), roRule: true },
  { path: 'Files/Flat/Sub', real: ['volumes', 'Files', 'Flat', 'Sub'], before: every(ALL, NOTHING) },
  // An `rw` rule inside the read-only volume gave nothing more.
  { path: `${ARCHIVE}/Oma`, real: ['host', 'archive', 'Oma'], before: every(RO, NOTHING) },
  {
    path: `${DESK}/Plans`,
    real: ['host', 'desk', 'Plans'],
    before: { admin: NOTHING, bo: NOTHING, otto: ALL, ria: RO },
  },
  // An `ro` rule inside the assigned folder (rules name virtual paths: its label).
  {
    path: `${DESK}/Signed`,
    real: ['host', 'desk', 'Signed'],
    before: { admin: NOTHING, bo: NOTHING, otto: RO, ria: RO },
    roRule: true,
  },
];

/** The answer for the accounts that see the volumes (admin, bo) and for those given the desk (otto, ria). */
function every(volumes: Can, assigned: Can): Record<Who, Can> {
  return { admin: volumes, bo: volumes, otto: assigned, ria: assigned };
}

let s: TestServer;
let root: string;
const clients = {} as Record<Who, Client>;
const ids = {} as Record<Who, string>;

const q = (p: string) => encodeURIComponent(p);

test.before(async () => {
  s = await startServer({ volumes: ['Files'], env: { USER_VOLUMES: 'true' } });
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-access-migration-'));
  const admin = await setupAdmin(s);
  for (const f of FOLDERS) {
    const real = f.real[0] === 'host' ? path.join(root, ...f.real) : path.join(s.dirs.volumes, ...f.real.slice(1));
    fs.mkdirSync(real, { recursive: true });
    fs.writeFileSync(path.join(real, FILE), `the bytes of ${f.path}`);
  }
  const added = await admin.post('/api/admin/volumes', {
    label: ARCHIVE,
    path: path.join(root, 'host', 'archive'),
    accessMode: 'readonly',
  });
  assert.is(added.status, 201, added.text);
  clients.admin = admin;
  for (const name of ['bo', 'otto', 'ria'] as const)
    clients[name] = await createUser(admin, s, { username: name, password: `${name}-password-1` });
  for (const name of Object.keys(clients) as Who[]) ids[name] = (await me(clients[name])).id;
  for (const [who, accessMode] of [
    ['otto', 'readwrite'],
    ['ria', 'readonly'],
  ] as const) {
    const given = await admin.post(`/api/users/${ids[who]}/volumes`, {
      label: DESK,
      path: path.join(root, 'host', 'desk'),
      accessMode,
    });
    assert.is(given.status, 201, given.text);
  }

  // The database as the release before the model left it: no access tables, its rules in the settings.
  const rules = [
    { id: 'r1', path: 'Files/Private', recursive: true, permissions: 'hidden' },
    { id: 'r2', path: 'Files/Private/Inner', recursive: true, permissions: 'rw' },
    { id: 'r3', path: '/Files/Docs & Co/', recursive: true, permissions: 'ro' },
    { id: 'r4', path: 'Files/Flat', recursive: false, permissions: 'ro' },
    { id: 'r5', path: `${ARCHIVE}/Oma`, recursive: true, permissions: 'rw' },
    { id: 'r6', path: `${DESK}/Signed`, recursive: true, permissions: 'ro' },
  ];
  await s.withDatabase((db) => {
    db.exec(
      "DROP TRIGGER access_rules_account_deleted; DROP TABLE access_rules; DROP TABLE access_group_members; DROP TABLE access_groups; DELETE FROM schema_migrations WHERE id LIKE 'access/%';",
    );
    db.run("INSERT INTO settings (key, value, updated_at) VALUES ('access', ?, '2026-01-01T00:00:00Z')", [
      JSON.stringify({ rules }),
    ]);
  });
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
  fs.rmSync(root, { recursive: true, force: true });
});

test("every account × folder: the explainer and the account's own requests say what the previous release did", async () => {
  const rows: string[] = [];
  for (const f of FOLDERS) {
    const real = f.real[0] === 'host' ? path.join(root, ...f.real) : path.join(s.dirs.volumes, ...f.real.slice(1));
    for (const who of Object.keys(clients) as Who[]) {
      // Sharing needs manage now where an `ro` rule stood (read): the one change, pinned.
      const expected = f.roRule ? { ...f.before[who], share: false } : f.before[who];
      const e = await clients.admin.get(`/api/access/explain?path=${q(f.path)}&userId=${ids[who]}`);
      assert.is(e.status, 200, `${f.path} for ${who}: ${e.text}`);
      const did = await outcomes(clients[who], f.path, real, { file: FILE, shared: f.path });
      rows.push(`${f.path} / ${who}: explainer ${JSON.stringify(e.json.can)}, requests ${JSON.stringify(did)}`);
      assert.equal(e.json.can, expected, `${f.path} for ${who}: the explainer (${e.text})`);
      assert.equal(did, expected, `${f.path} for ${who}: the requests`);
    }
  }
  assert.is(rows.length, FOLDERS.length * 4);
});

test('what decides: the rules that were installation-wide are everyone’s, the volume says its own', async () => {
  const why = async (p: string, who: Who) =>
    (await clients.admin.get(`/api/access/explain?path=${q(p)}&userId=${ids[who]}`)).json;
  const docs = await why('Files/Docs & Co/Old', 'bo');
  assert.equal(
    [docs.level, docs.decidedBy, docs.rule?.path, docs.rule?.subject.kind],
    ['read', 'rule', 'Files/Docs & Co', 'everyone'],
  );
  const archive = await why(`${ARCHIVE}/Oma`, 'bo');
  assert.equal([archive.level, archive.ruleLevel, archive.limit], ['read', 'manage', 'volume-read-only']);
  const notHers = await why(`${DESK}/Plans`, 'bo');
  assert.equal([notHers.level, notHers.limit], ['hidden', 'not-their-volume']);
  const ria = await why(`${DESK}/Plans`, 'ria');
  assert.equal([ria.level, ria.limit], ['read', 'volume-read-only']);
  // The settings' list still reads the installation-wide rules (hidden first, as before).
  const settings = (await clients.admin.get('/api/settings')).json.access.rules;
  assert.equal(
    settings.map((r: any) => [r.path, r.permissions, r.recursive]),
    [
      ['Files/Private', 'hidden', true],
      ['Files/Docs & Co', 'ro', true],
      ['Files/Flat', 'ro', false],
      [`${ARCHIVE}/Oma`, 'rw', true],
      [`${DESK}/Signed`, 'ro', true],
    ],
  );
});

test.run();

// A directory person's first sign-in through several instances at once (issue 31): three Burrow
// processes on one PostgreSQL, LDAP sign-in against a real OpenLDAP (slapd, started here), and
// the same new person signing in eight times at the same moment, spread over the three. Every
// sign-in is a 200 into a session that works on another instance, the person has one account
// (one row in /api/users, one directory subject in the database), joins each mapped Burrow group
// once, and the directory's groups make one Burrow group each — also when a known person's
// sign-ins at once are the first to name a mapped group.
//
// "At the same moment" is made so, not hoped for: each instance has one database connection,
// so its sign-ins reach the database one after another, and the race is between instances. The
// test holds every write to the table the sign-ins make their row in (LOCK … IN SHARE MODE, in
// a transaction of its own) until one statement of each instance waits on a lock — each
// instance's first sign-in inside its transaction, past its look for the account or group —
// and then lets them all go at once. Without the cross-instance lock of a new account (2133a68)
// all three are then at the insert of the same account (a 500 for two of them); with it, one is
// and the others wait to look again. Three inserts of one group are let go the same way — a
// directory's at sign-in, and the administrator's own create and rename, one through each instance.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { ADMIN } from '../support/auth.ts';
import { Client } from '../support/client.ts';
import { kill, startChild } from '../support/child.ts';
import { testPostgres } from '../support/postgres.ts';
import { makeDirs, removeDirs, serverEnv, type TestDirs } from '../support/server.ts';
import {
  GROUPS,
  groupLdif,
  PEOPLE,
  personDn,
  personLdif,
  SERVICE_DN,
  SERVICE_PASSWORD,
  startDirectory,
  type TestDirectory,
} from '../support/slapd.ts';
import { waitFor } from '../support/wait.ts';

const INSTANCES = 3;
/** Sign-ins of one person at once, spread over the instances in turn. */
const AT_ONCE = 8;

interface Person {
  uid: string;
  password: string;
  cn: string;
  mail: string;
  /** The account's username: the uid with its spaces as dashes. */
  username: string;
}
const ZOE: Person = {
  uid: 'zoë.ångström',
  password: 'Sommar & Sol 2024! +#% 🌞',
  cn: 'Zoë Ångström',
  mail: 'zoe@example.org',
  username: 'zoë.ångström',
};
const RENEE: Person = {
  uid: 'Renée Dubois & Fils',
  password: '"quoted" & spaced: 50%',
  cn: 'Renée Dubois',
  mail: 'renee@example.org',
  username: 'Renée-Dubois-&-Fils',
};
const JOERG: Person = {
  uid: 'jörg.müller',
  password: 'Grüße aus Köln 🐻',
  cn: 'Jörg Müller',
  mail: 'joerg@example.org',
  username: 'jörg.müller',
};
/** The Burrow groups the directory's groups map to: Staff directly, Büro through Staff (nested). */
const TEAM = 'Équipe & Co #1';
const OFFICE = 'Büro Köln 🏠';
/** The Burrow group of the directory's Band, which has nobody in it at first: made when someone is. */
const BAND = 'Band 🎸 & Friends';

const dnOf = personDn;
const entry = personLdif;
const group = groupLdif;

let directory: TestDirectory;
/** Each instance's address, process and folders (the volume folder is the one they share). */
const instances: { url: string; child: Awaited<ReturnType<typeof startChild>>['child']; dirs: TestDirs }[] = [];
let shared: TestDirs | undefined;
/** The test's own connection to the instances' database: holds a table, reads rows. */
let sql: pg.Client | undefined;
/** Asks PostgreSQL who waits (a connection of its own: a transaction reads pg_stat_activity once). */
let watch: pg.Client | undefined;
let admin: Client;

test.before(async () => {
  directory = await startDirectory(
    [
      `dn: ${PEOPLE}\nobjectClass: organizationalUnit\nou: people\n`,
      `dn: ${GROUPS}\nobjectClass: organizationalUnit\nou: groups\n`,
      entry(ZOE),
      entry(RENEE),
      entry(JOERG),
      group('Staff', [dnOf(ZOE), dnOf(RENEE), dnOf(JOERG)]),
      group('Büro', [`cn=Staff,${GROUPS}`]),
    ].join('\n'),
  );
  const secretFile = path.join(directory.dir, 'bind password');
  fs.writeFileSync(secretFile, SERVICE_PASSWORD + '\n', { mode: 0o600 });
  const database = await (await testPostgres()).database();
  shared = makeDirs('burrow-cluster-ldap-');
  fs.mkdirSync(path.join(shared.volumes, 'Files'));
  const env = {
    DATABASE_URL: database,
    CLUSTER_KEY: crypto.randomBytes(32).toString('base64url'),
    HTTPS_PORT: 'off',
    LDAP_URL: directory.url,
    LDAP_STARTTLS: 'true',
    LDAP_CA_FILE: directory.caFile,
    LDAP_BIND_DN: SERVICE_DN,
    LDAP_BIND_PASSWORD_FILE: secretFile,
    LDAP_USER_BASE: PEOPLE,
    LDAP_USER_FILTER: '(&(objectClass=inetOrgPerson)(uid={username}))',
    LDAP_GROUP_BASE: GROUPS,
    LDAP_GROUP_NESTED: 'true',
    LDAP_GROUP_MAP: `Staff=${TEAM}; Büro=${OFFICE}; Band=${BAND}`,
    LDAP_TIMEOUT_MS: '20000',
    // Each round signs in from its own address: its 8 attempts are not the next round's budget.
    TRUST_PROXY: 'loopback',
  };
  const boot = async () => {
    const dirs = makeDirs('burrow-cluster-ldap-node-');
    dirs.volumes = shared!.volumes;
    const { child, url } = await startChild({ ...serverEnv(dirs), ...env });
    instances.push({ url, child, dirs });
  };
  // The first migrates the database; the others find it done.
  await boot();
  await Promise.all(Array.from({ length: INSTANCES - 1 }, boot));
  sql = new pg.Client({ connectionString: database });
  await sql.connect();
  watch = new pg.Client({ connectionString: database });
  await watch.connect();
  admin = new Client(instances[0]!.url);
  assert.is((await admin.post('/api/auth/setup', { ...ADMIN })).status, 201);
  assert.is((await admin.patch('/api/settings', { activity: { enabled: true, retentionDays: 7 } })).status, 200);
});

test.after(async () => {
  await watch?.end();
  await sql?.end();
  for (const i of instances) {
    await kill(i.child);
    removeDirs(i.dirs);
  }
  if (shared) removeDirs(shared);
  await directory?.close();
});

/** The round's address (a documentation range), through the trusted loopback proxy. */
let round = 0;
test.before.each(() => {
  round += 1;
});

/** The instances' statements waiting on a lock now (the test's own connections are not among them). */
async function waiting(): Promise<string[]> {
  const r = await watch!.query<{ query: string }>(
    `SELECT query FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'`,
  );
  return r.rows.map((row) => row.query);
}

/**
 * `signIns()` with every write to `table` held until one statement of each instance waits on a
 * lock (the held write, or the lock taken before it), then let go at once; answers what they did.
 */
async function together<T>(table: string, signIns: () => Promise<T>): Promise<T> {
  await sql!.query('BEGIN');
  let answers: Promise<T> | undefined;
  try {
    await sql!.query(`LOCK TABLE ${table} IN SHARE MODE`);
    answers = signIns();
    // Seen by the catch below if the wait fails first; awaited again after the lock is let go.
    answers.catch(() => {});
    await waitFor(waiting, {
      what: `a statement of each of the ${INSTANCES} instances waiting on a lock (${table} held)`,
      until: (queries) => queries.length >= INSTANCES,
      timeoutMs: 30_000,
    });
  } finally {
    await sql!.query('COMMIT');
  }
  return answers;
}

/** `AT_ONCE` sign-ins of `p` at once, the k-th on instance k mod 3; each a 200 (else its answer). */
async function signInsAtOnce(p: Person, table: string): Promise<Client[]> {
  const address = `198.51.100.${round}`;
  const browsers = Array.from({ length: AT_ONCE }, (_, k) => new Client(instances[k % INSTANCES]!.url));
  const answers = await together(table, () =>
    Promise.all(
      browsers.map((b) =>
        b.post('/api/auth/login', { identifier: p.uid, password: p.password }, { 'x-forwarded-for': address }),
      ),
    ),
  );
  assert.equal(
    answers.map((a) => a.status),
    answers.map(() => 200),
    `${p.uid}'s sign-ins (the k-th on instance k mod ${INSTANCES}): ${answers.find((a) => a.status !== 200)?.text}`,
  );
  return browsers;
}

/** Each browser's session, asked on the next instance: all one account, `p`'s. Answers its id. */
async function oneAccountSignedIn(p: Person, browsers: Client[]): Promise<string> {
  const ids = new Set<string>();
  for (const [k, b] of browsers.entries()) {
    const elsewhere = new Client(instances[(k + 1) % INSTANCES]!.url);
    elsewhere.cookies = new Map(b.cookies);
    const me = await elsewhere.get('/api/auth/me');
    assert.is(me.status, 200, me.text);
    assert.ok(me.json.user, `${p.uid}, sign-in ${k}: no session on instance ${(k + 1) % INSTANCES}`);
    assert.is(me.json.user.username, p.username);
    assert.is(me.json.user.displayName, p.cn);
    ids.add(me.json.user.id);
    assert.is((await elsewhere.get('/api/volumes')).status, 200);
  }
  assert.is(ids.size, 1, `${p.uid}'s sign-ins landed in ${ids.size} accounts`);
  return [...ids][0]!;
}

/** One account for `p`: in the administrator's list, and one directory subject in the database. */
async function oneAccount(p: Person, id: string): Promise<void> {
  const users = (await admin.get('/api/users')).json.users as { id: string; username: string; email: string }[];
  const theirs = users.filter((u) => u.email === p.mail || u.username.startsWith(p.username));
  assert.equal(
    theirs.map((u) => [u.id, u.username]),
    [[id, p.username]],
  );
  const subjects = await sql!.query(
    "SELECT user_id FROM auth_methods WHERE type = 'ldap' AND provider = 'ldap' AND subject = $1",
    [p.uid.normalize('NFC').toLowerCase()],
  );
  assert.equal(
    subjects.rows.map((r) => r.user_id),
    [id],
  );
}

/** The Burrow groups `id` is in, each with its source and how many times it is listed there. */
async function groupsOf(id: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const groups = (await admin.get('/api/access/groups')).json.groups as {
    name: string;
    members: { id: string; source: string | null }[];
  }[];
  for (const g of groups)
    for (const m of g.members) if (m.id === id) out[g.name] = (out[g.name] ? out[g.name] + ' and ' : '') + m.source;
  return out;
}

/** How many activity rows of `action` name `id` (as the account or as the member). */
async function logged(action: string, id?: string): Promise<number> {
  const rows = (await admin.get(`/api/activity?action=${encodeURIComponent(action)}&limit=500`)).json.rows as {
    userId: string | null;
    detail: Record<string, unknown> | null;
  }[];
  return rows.filter((r) => id === undefined || r.userId === id || r.detail?.member === id).length;
}

for (const p of [ZOE, RENEE, JOERG]) {
  test(`${p.uid}: ${AT_ONCE} first sign-ins at once through ${INSTANCES} instances make one account, every sign-in in it, its groups joined once`, async () => {
    const browsers = await signInsAtOnce(p, 'users');
    const id = await oneAccountSignedIn(p, browsers);
    await oneAccount(p, id);
    assert.equal(await groupsOf(id), { [TEAM]: 'ldap', [OFFICE]: 'ldap' });
    assert.is(await logged('auth.ldap-create', id), 1);
    assert.is(await logged('access.member-add', id), 2);
    // The first person's first sign-in made the two groups, once.
    const names = ((await admin.get('/api/access/groups')).json.groups as { name: string }[]).map((g) => g.name);
    assert.equal(names.filter((n) => n === TEAM || n === OFFICE).sort(), [OFFICE, TEAM].sort());
    assert.is(await logged('access.group-create'), 2);
  });
}

test(`a known person put in a newly mapped group: ${AT_ONCE} sign-ins at once through ${INSTANCES} instances make the group once and join it once`, async () => {
  directory.modify(group('Band', [dnOf(ZOE)]).replace(/\n(objectClass)/, '\nchangetype: add\n$1'));
  const browsers = await signInsAtOnce(ZOE, 'access_groups');
  const id = await oneAccountSignedIn(ZOE, browsers);
  await oneAccount(ZOE, id);
  assert.equal(await groupsOf(id), { [TEAM]: 'ldap', [OFFICE]: 'ldap', [BAND]: 'ldap' });
  const names = ((await admin.get('/api/access/groups')).json.groups as { name: string }[]).map((g) => g.name);
  assert.equal(
    names.filter((n) => n === BAND),
    [BAND],
  );
  assert.is(await logged('access.group-create'), 3);
  assert.is(await logged('access.member-add', id), 3);
});

test(`one group name asked for through ${INSTANCES} instances at the same moment: one group made or renamed, the others told the name is taken (never a 500)`, async () => {
  const name = 'Familie Öztürk & Co';
  const spellings = [name, name.toUpperCase(), name.toLowerCase()];
  // The administrator's session on each instance (sessions are the database's).
  const on = instances.map((i) => {
    const c = new Client(i.url);
    c.cookies = new Map(admin.cookies);
    return c;
  });
  const made = await together('access_groups', () =>
    Promise.all(on.map((c, k) => c.post('/api/access/groups', { name: spellings[k] }))),
  );
  assert.equal(made.map((a) => a.status).sort(), [201, 409, 409], made.map((a) => a.text).join('\n'));
  for (const a of made.filter((x) => x.status === 409)) assert.is(JSON.parse(a.text).error.code, 'GROUP_NAME_TAKEN');
  const named = async (n: string) =>
    ((await admin.get('/api/access/groups')).json.groups as { id: string; name: string }[]).filter(
      (g) => g.name.toLowerCase() === n.toLowerCase(),
    );
  assert.is((await named(name)).length, 1);
  // Three groups renamed to one new name at once, one through each instance.
  const ids: string[] = [];
  for (const n of ['Nachbarn #1', 'Nachbarn #2', 'Nachbarn #3'])
    ids.push((await admin.post('/api/access/groups', { name: n })).json.group.id);
  const renamed = await together('access_groups', () =>
    Promise.all(on.map((c, k) => c.patch(`/api/access/groups/${ids[k]}`, { name: 'Nachbarn' }))),
  );
  assert.equal(renamed.map((a) => a.status).sort(), [200, 409, 409], renamed.map((a) => a.text).join('\n'));
  assert.is((await named('Nachbarn')).length, 1);
});

test.run();

// The identity provider's groups at every sign-in, through a real provider (oidc-provider) and
// the real routes: OIDC_GROUPS_CLAIM names the claim, OIDC_GROUP_MAP maps its names to Burrow
// groups (made when missing), OIDC_ADMIN_GROUPS gives and takes the admin role. Between two
// sign-ins the account joins and leaves only the memberships the provider made; one an
// administrator added by hand stays; a sign-in without the claim changes nothing; every change
// is on the activity log. The groups then decide access like any other membership.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { me, setupAdmin } from '../support/auth.ts';
import { Client } from '../support/client.ts';
import { startIdp, type TestIdp } from '../support/oidc-idp.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let idp: TestIdp;
let admin: Client;
const WHO = 'zoë-müller';

test.before(async () => {
  server = await startServer({ volumes: ['Family Photos & Films'] });
  idp = await startIdp([`${server.url}/callback`]);
  admin = await setupAdmin(server);
  await server.restart({
    OIDC_ENABLED: 'true',
    OIDC_ISSUER: idp.issuer,
    OIDC_CLIENT_ID: idp.clientId,
    OIDC_CLIENT_SECRET: idp.clientSecret,
    OIDC_SCOPES: 'openid profile email groups',
    OIDC_TOKEN_URL: idp.tokenProxyUrl,
    OIDC_USERINFO_URL: idp.userinfoProxyUrl,
    // The provider's groups travel in `roles` here (as Keycloak's client roles would).
    OIDC_GROUPS_CLAIM: 'roles',
    OIDC_GROUP_MAP:
      'office-staff=Staff; Eltern & Kinder=Family + Friends\nburrow-admins=Administrators; Chor-Probe=Chor & Band 🎶',
    OIDC_ADMIN_GROUPS: 'Burrow-Admins',
  });
  admin = new Client(server.url);
  const signed = await admin.post('/api/auth/login', { identifier: 'admin', password: 'admin-password-1' });
  assert.is(signed.status, 200, signed.text);
  const log = await admin.patch('/api/settings', { activity: { enabled: true, retentionDays: 7 } });
  assert.is(log.status, 200, log.text);
});
test.after(async () => {
  await server.close();
  await idp.close();
  removeDirs(server.dirs);
});

async function signInThroughProvider(roles: string[] | undefined): Promise<Client> {
  const account: Record<string, unknown> = {
    email: 'zoe@example.org',
    email_verified: true,
    name: 'Zoë Müller',
    preferred_username: WHO,
  };
  if (roles) account.roles = roles;
  idp.accounts.set('zoe', account);
  idp.nextAccount = 'zoe';
  const browser = new Client(server.url);
  const landed = await browser.get(await toProviderAndBack(browser));
  assert.is(landed.status, 302, landed.text);
  return browser;
}

/** A browser's trip to the provider (signing in its `nextAccount`): the address it comes back to. */
async function toProviderAndBack(browser: Client): Promise<string> {
  const out = await browser.get('/api/auth/oidc/login');
  assert.is(out.status, 302, out.text);
  const back = await idp.browse(out.headers.get('location')!, server.url);
  return back.pathname + back.search;
}

/** The account's groups as Administration lists them: name → where the membership came from. */
async function groupsOf(userId: string): Promise<Record<string, string | null>> {
  const answer = await admin.get('/api/access/groups');
  assert.is(answer.status, 200, answer.text);
  const out: Record<string, string | null> = {};
  for (const g of answer.json.groups) for (const m of g.members) if (m.id === userId) out[g.name] = m.source;
  return out;
}

async function groupId(name: string): Promise<string> {
  const g = (await admin.get('/api/access/groups')).json.groups.find((x: { name: string }) => x.name === name);
  assert.ok(g, `group ${name}`);
  return g.id;
}

async function membershipLog(userId: string): Promise<{ action: string; group: string; source: string }[]> {
  const rows = (await admin.get('/api/activity?limit=500')).json.rows as any[];
  return rows
    .filter((r) => r.action.startsWith('access.member-') && r.detail?.member === userId)
    .map((r) => ({ action: r.action, group: r.detail.group, source: r.detail.source ?? null }))
    .reverse();
}

test('groups follow the claim between two sign-ins; hand-made memberships stay; the admin role is given and taken away', async () => {
  // An administrator's own group, made before the account exists.
  const crew = await admin.post('/api/access/groups', { name: 'Photo crew' });
  assert.is(crew.status, 201, crew.text);

  // First sign-in: the account is made and joins the mapped groups (the unmapped one is ignored).
  const first = await signInThroughProvider(['office-staff', 'eltern & kinder', 'Chess club']);
  const zoe = await me(first);
  assert.is(zoe.username, WHO);
  assert.equal(zoe.roles, ['user']);
  assert.equal(await groupsOf(zoe.id), { Staff: 'oidc', 'Family + Friends': 'oidc' });

  // An administrator adds her by hand to the crew, and by hand to a group she has from the provider.
  assert.is((await admin.post(`/api/access/groups/${crew.json.group.id}/members`, { userId: zoe.id })).status, 204);
  const family = await groupId('Family + Friends');
  assert.is((await admin.post(`/api/access/groups/${family}/members`, { userId: zoe.id })).status, 204);
  assert.equal(await groupsOf(zoe.id), { Staff: 'oidc', 'Family + Friends': null, 'Photo crew': null });

  // Second sign-in: she left office-staff and became an administrator at the provider.
  const second = await signInThroughProvider(['Eltern & Kinder', 'burrow-admins']);
  assert.equal((await me(second)).roles, ['admin']);
  assert.equal(await groupsOf(zoe.id), { Administrators: 'oidc', 'Family + Friends': null, 'Photo crew': null });

  // A sign-in without the claim (the provider said nothing about groups): nothing changes.
  const third = await signInThroughProvider(undefined);
  assert.equal((await me(third)).roles, ['admin']);
  assert.equal(await groupsOf(zoe.id), { Administrators: 'oidc', 'Family + Friends': null, 'Photo crew': null });

  // An empty list is an answer: every provider-made membership ends, the admin role is taken away,
  // and what the administrator added by hand stays.
  const fourth = await signInThroughProvider([]);
  assert.equal((await me(fourth)).roles, ['user']);
  assert.equal(await groupsOf(zoe.id), { 'Family + Friends': null, 'Photo crew': null });
  // The session opened as an administrator is no administrator any more.
  assert.is((await second.get('/api/users')).status, 403);

  // Every change is on the activity log, naming the provider.
  assert.equal(await membershipLog(zoe.id), [
    { action: 'access.member-add', group: 'Staff', source: 'oidc' },
    { action: 'access.member-add', group: 'Family + Friends', source: 'oidc' },
    { action: 'access.member-add', group: 'Photo crew', source: null },
    { action: 'access.member-add', group: 'Administrators', source: 'oidc' },
    { action: 'access.member-remove', group: 'Staff', source: 'oidc' },
    { action: 'access.member-remove', group: 'Administrators', source: 'oidc' },
  ]);
  const roles = (await admin.get('/api/activity?action=auth.oidc-role-change')).json.rows as any[];
  assert.equal(
    roles.map((r) => [r.detail.from, r.detail.to]),
    [
      ['admin', 'user'],
      ['user', 'admin'],
    ],
  );
});

test('a provider-made membership decides access like any other: a group rule hides a folder until the provider drops the group', async () => {
  const dir = path.join(server.dirs.volumes, 'Family Photos & Films', 'Urlaub 2024 – Côte d’Azur');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'Strand #1.jpg'), 'jpeg bytes');
  const staff = await groupId('Staff');
  const rule = await admin.put('/api/access/rules', {
    path: 'Family Photos & Films/Urlaub 2024 – Côte d’Azur',
    subject: { kind: 'group', id: staff },
    level: 'hidden',
  });
  assert.is(rule.status, 200, rule.text);
  const listing = (c: Client) =>
    c.get(`/api/browse/${encodeURIComponent('Family Photos & Films')}`).then((a) => {
      assert.is(a.status, 200, a.text);
      return (a.json.items as { name: string }[]).map((i) => i.name);
    });
  const inStaff = await signInThroughProvider(['office-staff']);
  assert.equal(await listing(inStaff), []);
  const left = await signInThroughProvider(['eltern & kinder']);
  assert.equal(await listing(left), ['Urlaub 2024 – Côte d’Azur']);
});

test('a group new to Burrow named at once by the sign-ins of six known people (through a cluster, on every instance): made once, each joins it once, never a 500', async () => {
  const CHOIR = 'Chor & Band 🎶';
  const people = ['Renée', 'Jörg', 'Åsa', 'Zoë', 'François', 'Małgorzata'].map((name, i) => ({
    key: `choir-${i}`,
    account: {
      email: `${name.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase()}@chor.example`,
      email_verified: true,
      name: `${name} Sänger`,
      preferred_username: `${name.toLowerCase()} (chor #${i})`,
    } as Record<string, unknown>,
  }));
  // Known people first: each signed in once, in no mapped group (a first sign-in makes its account
  // under the cross-instance lock of new accounts, which would put the group's creation in line too).
  const ids: string[] = [];
  for (const p of people) {
    idp.accounts.set(p.key, { ...p.account, roles: [] });
    idp.nextAccount = p.key;
    const browser = new Client(server.url);
    assert.is((await browser.get(await toProviderAndBack(browser))).status, 302);
    ids.push((await me(browser)).id);
  }
  assert.ok(
    !(await admin.get('/api/access/groups')).json.groups.some((g: { name: string }) => g.name === CHOIR),
    'no such group yet',
  );
  // Now the provider puts all six in the choir. Each browser's trip to the provider one after
  // another; the returns all at once — their userinfo answers held until all six have asked — so
  // each instance behind the balancer looks for the group and makes it at the same moment.
  const browsers = people.map(() => new Client(server.url));
  const backs: string[] = [];
  for (const [i, p] of people.entries()) {
    idp.accounts.set(p.key, { ...p.account, roles: ['chor-probe'] });
    idp.nextAccount = p.key;
    backs.push(await toProviderAndBack(browsers[i]!));
  }
  idp.userinfoTogether = browsers.length;
  const landed = await Promise.all(browsers.map((b, i) => b.get(backs[i]!)));
  idp.userinfoTogether = 0;
  assert.equal(
    landed.map((l) => l.status),
    landed.map(() => 302),
    landed.find((l) => l.status !== 302)?.text.slice(0, 300),
  );
  const choirs = ((await admin.get('/api/access/groups')).json.groups as { id: string; name: string }[]).filter(
    (g) => g.name === CHOIR,
  );
  assert.is(choirs.length, 1, 'one group');
  for (const id of ids) assert.equal(await groupsOf(id), { [CHOIR]: 'oidc' });
  const made = (await admin.get('/api/activity?action=access.group-create&limit=500')).json.rows as any[];
  assert.is(made.filter((r) => r.detail?.name === CHOIR).length, 1, 'its creation logged once');
});

test.run();

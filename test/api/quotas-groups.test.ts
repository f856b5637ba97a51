// A group's default quota: an account without a quota of its own takes the largest default of
// the groups it is in (an allowance — one more group never takes room away), its own quota
// overrides it, and leaving the group or the group's deletion takes it away. Held like any quota:
// a resumable upload over it is refused at creation with 507 QUOTA_EXCEEDED naming the limit;
// the sidebar's figures (GET /api/quota) and Administration's overview say where it comes from.
// Only an administrator's session sets it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createUser, issueToken, me, setupAdmin } from '../support/auth.ts';
import { Client, envelope } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';

const TUS = { 'Tus-Resumable': '1.0.0' };
const b64 = (v: string) => Buffer.from(v).toString('base64');
const FOLDER = 'Schule & Hobbys #2 – Zoë’s Projekte';
const KIDS = 'Kinder 🧒 & Teens';
const FAMILY = 'Familie Müller';

let s: TestServer;
let admin: Client;
const people: Record<string, { client: Client; id: string }> = {};
const groups: Record<string, string> = {};

async function person(username: string) {
  const client = await createUser(admin, s, { username, password: `${username}-password-1` });
  const id = (await me(client)).id;
  assert.is((await client.post('/api/files/folder', { path: 'personal', name: FOLDER })).status, 201);
  people[username] = { client, id };
}
/** A resumable upload of `length` bytes into their folder: created (then cancelled) or refused. */
async function tryUpload(username: string, length: number) {
  const c = people[username]!.client;
  const a = await c.request('POST', '/api/upload/tus', undefined, {
    ...TUS,
    'Upload-Length': String(length),
    'Upload-Metadata': `filename ${b64('Referat „Vulkane“ + Bilder.pptx')},uploadTo ${b64(`personal/${FOLDER}`)}`,
  });
  if (a.status === 201) assert.is((await c.request('DELETE', a.headers.get('location')!, undefined, TUS)).status, 204);
  return a;
}
function refused(a: { status: number; json: any; text: string }, limit: number) {
  assert.is(a.status, 507, a.text);
  assert.is(envelope(a as never).code, 'QUOTA_EXCEEDED');
  assert.is(a.json.error.details.scope, 'account');
  assert.is(a.json.error.details.limitBytes, limit);
}
const quotaOf = async (username: string) => (await people[username]!.client.get('/api/quota')).json.account;
const setDefault = (group: string, limitBytes: number | null, client = admin) =>
  client.put(`/api/admin/quotas/groups/${encodeURIComponent(groups[group]!)}`, { limitBytes });

test.before(async () => {
  s = await startServer({
    env: {
      FOLDER_SIZE_MODE: 'full',
      FOLDER_SIZE_FLUSH_MS: '20',
      USER_DIR_ENABLED: 'true',
      UPLOAD_CHUNKED_ENABLED: 'true',
    },
  });
  admin = await setupAdmin(s);
  for (const u of ['ben', 'anna', 'carla']) await person(u);
  for (const name of [KIDS, FAMILY]) {
    const g = await admin.post('/api/access/groups', { name });
    assert.is(g.status, 201, g.text);
    groups[name] = g.json.group.id;
  }
  const join = async (group: string, username: string) => {
    const a = await admin.post(`/api/access/groups/${groups[group]}/members`, { userId: people[username]!.id });
    assert.is(a.status, 204, a.text);
  };
  await join(KIDS, 'ben');
  await join(KIDS, 'anna');
  await join(FAMILY, 'anna');
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

test('only an administrator session sets a group default; an unknown group is 404', async () => {
  const other = await setDefault(KIDS, 1, people.anna!.client);
  assert.is(other.status, 403);
  assert.is(envelope(other).code, 'ADMIN_ONLY');
  for (const scope of ['read', 'write'] as const) {
    const token = new Client(s.url, await issueToken(admin, scope));
    assert.is((await setDefault(KIDS, 1, token)).status, 403, `${scope} token`);
  }
  const cross = await admin.put(
    `/api/admin/quotas/groups/${groups[KIDS]}`,
    { limitBytes: 1 },
    {
      Origin: 'https://evil.example',
    },
  );
  assert.is(envelope(cross).code, 'CROSS_SITE_REFUSED');
  const unknown = await admin.put('/api/admin/quotas/groups/no-such-group', { limitBytes: 5 });
  assert.is(unknown.status, 404);
  assert.is(envelope(unknown).code, 'GROUP_NOT_FOUND');
  assert.is((await setDefault(KIDS, -1)).status, 400);
  assert.is(await quotaOf('ben'), null, 'nothing was set');
  const overview = (await admin.get('/api/admin/quotas')).json;
  assert.equal(overview.groups.map((g: any) => [g.name, g.defaultLimitBytes]).sort(), [
    [FAMILY, null],
    [KIDS, null],
  ]);
});

test("a member without a quota of their own takes the largest of their groups' defaults; their own overrides it", async () => {
  const set = await setDefault(KIDS, 200_000);
  assert.is(set.status, 200, set.text);
  assert.equal(set.json, { groupId: groups[KIDS], name: KIDS, defaultLimitBytes: 200_000 });
  assert.is((await setDefault(FAMILY, 1_000_000)).status, 200);

  // Ben is in Kinder only: 200 000 bytes, said to come from the group.
  const ben = await quotaOf('ben');
  assert.is(ben.limitBytes, 200_000);
  assert.is(ben.limitFrom, 'group');
  assert.is(ben.limitGroup, KIDS);
  refused(await tryUpload('ben', 300_000), 200_000);
  assert.is((await tryUpload('ben', 150_000)).status, 201);
  // Anna is in both: the larger default is hers.
  const anna = await quotaOf('anna');
  assert.is(anna.limitBytes, 1_000_000);
  assert.is(anna.limitGroup, FAMILY);
  assert.is((await tryUpload('anna', 300_000)).status, 201);
  refused(await tryUpload('anna', 1_200_000), 1_000_000);
  // Carla is in no group: no quota.
  assert.is(await quotaOf('carla'), null);
  assert.is((await tryUpload('carla', 5_000_000)).status, 201);

  // Ben's own quota overrides the group's, larger or smaller; removed, the default is back.
  assert.is((await admin.put(`/api/admin/quotas/accounts/${people.ben!.id}`, { limitBytes: 500_000 })).status, 200);
  assert.equal(
    (({ limitBytes, limitFrom, limitGroup }) => ({ limitBytes, limitFrom, limitGroup }))(await quotaOf('ben')),
    { limitBytes: 500_000, limitFrom: 'account', limitGroup: null },
  );
  assert.is((await tryUpload('ben', 300_000)).status, 201);
  assert.is((await admin.put(`/api/admin/quotas/accounts/${people.ben!.id}`, { limitBytes: 50_000 })).status, 200);
  refused(await tryUpload('ben', 100_000), 50_000);
  assert.is((await admin.put(`/api/admin/quotas/accounts/${people.ben!.id}`, { limitBytes: null })).status, 200);
  refused(await tryUpload('ben', 300_000), 200_000);

  // Administration's overview says the same.
  const overview = (await admin.get('/api/admin/quotas')).json;
  const row = overview.accounts.find((a: any) => a.username === 'ben');
  assert.is(row.limitBytes, 200_000);
  assert.is(row.limitFrom, 'group');
  assert.is(overview.groups.find((g: any) => g.name === KIDS).defaultLimitBytes, 200_000);
});

test('leaving the group, or its deletion, takes its default away', async () => {
  assert.is((await setDefault(KIDS, 200_000)).status, 200);
  assert.is((await setDefault(FAMILY, 1_000_000)).status, 200);
  const left = await admin.delete(`/api/access/groups/${groups[FAMILY]}/members/${people.anna!.id}`);
  assert.ok(left.status < 300, left.text);
  assert.is((await quotaOf('anna')).limitBytes, 200_000, 'only Kinder is left');
  refused(await tryUpload('anna', 300_000), 200_000);
  const removed = await admin.delete(`/api/access/groups/${groups[KIDS]}`);
  assert.ok(removed.status < 300, removed.text);
  assert.is(await quotaOf('anna'), null);
  assert.is(await quotaOf('ben'), null);
  assert.is((await tryUpload('ben', 300_000)).status, 201);
  // Removing a default: the group stays, its members have none.
  assert.is((await setDefault(FAMILY, null)).json.defaultLimitBytes, null);
});

test.run();

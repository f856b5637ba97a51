// Host folders as volumes (Administration → Volumes): added by an administrator, named,
// read-only or read-write, kept across restarts, listed beside VOLUME_ROOT's folders to every
// account, confined like them; bad paths, taken labels and Burrow's own folders are refused.
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, envelope } from '../support/client.ts';
import { createUser, setupAdmin } from '../support/auth.ts';
import { removeDirs, startServer } from '../support/server.ts';

test('add, use, keep, rename, make read-only and remove a host folder volume', async () => {
  const s = await startServer({ volumes: ['Files'] });
  const host = path.join(s.dirs.root, 'host-photos');
  fs.mkdirSync(path.join(host, 'trip'), { recursive: true });
  fs.writeFileSync(path.join(host, 'trip', 'a.txt'), 'hello');
  fs.writeFileSync(path.join(s.dirs.volumes, 'stray.pdf'), 'x');
  fs.symlinkSync('/etc', path.join(host, 'etc-link'));
  try {
    const admin = await setupAdmin(s);
    const bob = await createUser(admin, s, { username: 'bob', password: 'bob-password-1' });
    const listed = await admin.request('GET', '/api/admin/volumes');
    assert.is(listed.status, 200, listed.text);
    assert.equal(listed.json.volumes, []);
    assert.equal(listed.json.looseFiles, ['stray.pdf'], 'the loose file at the top of VOLUME_ROOT is named');

    const added = await admin.request('POST', '/api/admin/volumes', {
      label: 'Photos',
      path: host,
      accessMode: 'readwrite',
    });
    assert.is(added.status, 201, added.text);
    assert.is(added.json.volume.path, fs.realpathSync(host));
    assert.is(added.json.volume.available, true);
    const id = added.json.volume.id as string;

    // Every account sees it beside VOLUME_ROOT's folders and can work in it.
    const vols = await bob.request('GET', '/api/volumes');
    assert.ok(JSON.stringify(vols.json).includes('"Photos"'), vols.text);
    assert.ok(JSON.stringify(vols.json).includes('"Files"'), vols.text);
    const listing = await bob.request('GET', '/api/browse/Photos/trip');
    assert.is(listing.status, 200, listing.text);
    assert.ok(listing.text.includes('a.txt'));
    const outside = await bob.request('GET', '/api/browse/Photos/etc-link');
    assert.is(outside.status, 403, `a link out of the folder is refused: ${outside.status}`);
    assert.is(listing.json.access.canWrite, true, 'read-write');

    // Kept across a restart.
    await s.restart();
    await admin.request('GET', '/api/admin/volumes').then((r) => assert.is(r.json.volumes[0]?.label, 'Photos', r.text));

    // What Bob bound to it: a link, a favourite, a tag (world names).
    fs.mkdirSync(path.join(host, 'Été 2025 & #1'));
    fs.writeFileSync(path.join(host, 'Été 2025 & #1', 'Plage + 100% 🏖.txt'), 'sable');
    const link = await bob.request('POST', '/api/shares', {
      sourcePath: 'Photos/Été 2025 & #1/Plage + 100% 🏖.txt',
      accessMode: 'readonly',
      sharingType: 'anyone',
      userIds: [],
    });
    assert.is(link.status, 201, link.text);
    assert.is((await bob.request('POST', '/api/favorites', { path: 'Photos/Été 2025 & #1' })).status, 201);
    const tagged = await bob.request('POST', '/api/tags/apply', {
      paths: ['Photos/Été 2025 & #1/Plage + 100% 🏖.txt'],
      add: ['Urlaub & Co'],
    });
    assert.is(tagged.status, 200, tagged.text);

    const ro = await admin.request('PATCH', `/api/admin/volumes/${id}`, { accessMode: 'readonly', label: 'Pictures' });
    assert.is(ro.status, 200, ro.text);
    assert.is(ro.json.volume.label, 'Pictures');
    const top = await bob.request('GET', '/api/browse/Pictures/trip');
    assert.is(top.status, 200, top.text);
    assert.is(top.json.access.canWrite, false, `read-only: ${top.text.slice(0, 400)}`);
    // Renamed, the volume keeps what was bound to it: the link opens, the favourite and the tag
    // are at the new label (as for a folder renamed).
    const taken = await new Client(s.url).get(`/api/share/${link.json.shareToken}/file`);
    assert.is(taken.status, 200, taken.text);
    assert.is(taken.text, 'sable');
    assert.equal(
      (await bob.request('GET', '/api/favorites')).json.map((f: { path: string }) => f.path),
      ['Pictures/Été 2025 & #1'],
    );
    const tags = await bob.request(
      'GET',
      `/api/tags/item?${new URLSearchParams({ path: 'Pictures/Été 2025 & #1/Plage + 100% 🏖.txt' })}`,
    );
    assert.equal(tags.json.tags, ['Urlaub & Co'], tags.text);
    assert.is(
      (await bob.request('GET', '/api/shares')).json.shares[0]?.sourcePath,
      'Pictures/Été 2025 & #1/Plage + 100% 🏖.txt',
    );

    assert.is((await admin.request('DELETE', `/api/admin/volumes/${id}`)).status, 204);
    assert.is((await bob.request('GET', '/api/browse/Pictures')).status, 404);
    assert.ok(fs.existsSync(path.join(host, 'trip', 'a.txt')), 'the folder itself is untouched');
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test("refusals: not a folder, relative, Burrow's own folders, a taken or reserved label, not an administrator", async () => {
  const s = await startServer({ volumes: ['Files'] });
  const host = path.join(s.dirs.root, 'host');
  fs.mkdirSync(host);
  fs.writeFileSync(path.join(host, 'file.txt'), 'x');
  try {
    const admin = await setupAdmin(s);
    const bob = await createUser(admin, s, { username: 'bob', password: 'bob-password-1' });
    const post = (body: unknown) => admin.request('POST', '/api/admin/volumes', body);
    const cases: [unknown, number, string][] = [
      [{ label: 'X', path: path.join(host, 'file.txt') }, 400, 'NOT_A_FOLDER'],
      [{ label: 'X', path: path.join(host, 'missing') }, 400, 'NOT_A_FOLDER'],
      [{ label: 'X', path: 'relative/folder' }, 400, 'BAD_PATH'],
      [{ label: 'X', path: s.dirs.config }, 400, 'BAD_PATH'],
      [{ label: 'Files', path: host }, 409, 'EXISTS'],
      [{ label: 'files', path: host }, 409, 'EXISTS'],
      [{ label: 'share', path: host }, 400, 'BAD_NAME'],
      [{ label: 'a/b', path: host }, 400, 'BAD_NAME'],
      [{ label: '.hidden', path: host }, 400, 'BAD_NAME'],
    ];
    for (const [body, status, code] of cases) {
      const r = await post(body);
      assert.is(r.status, status, `${JSON.stringify(body)}: ${r.text}`);
      assert.is(envelope(r).code, code, JSON.stringify(body));
    }
    assert.is((await post({ label: 'Host', path: host, accessMode: 'readonly' })).status, 201);
    const again = await post({ label: 'host', path: host });
    assert.is(again.status, 409);
    assert.is((await bob.request('POST', '/api/admin/volumes', { label: 'Mine', path: host })).status, 403);
    assert.is(
      (await admin.request('GET', '/api/admin/volumes')).json.volumes.length,
      1,
      'refused requests left nothing',
    );
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test.run();

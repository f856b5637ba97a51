// Path confinement: a table of hostile paths against a real tree with real symlinks.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseVirtualPath, type PathResolver } from '../../src/files/paths.ts';
import { createPathResolver } from '../../src/files/resolver.ts';
import type { PersonalFolders } from '../../src/files/personal.ts';
import type { Caller } from '../../src/core/caller.ts';
import { decide, snapshotOf } from '../../src/access/decide.ts';

const alice: Caller = { userId: 'u-alice', username: 'alice', roles: ['user'], isAdmin: false, via: 'session' };
const reader: Caller = { ...alice, via: 'token', tokenScope: 'read' };

let root: string;
let resolver: PathResolver;

const everyone = { subjectKind: 'everyone', subjectId: '', inherit: true } as const;
const everyoneRules = snapshotOf(
  [
    { id: '1', path: 'Files/secret-rule', level: 'hidden', ...everyone },
    { id: '2', path: 'Other', level: 'read', ...everyone },
  ],
  [],
);

function setup() {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-paths-')));
  const vol = path.join(root, 'volumes');
  const files = path.join(vol, 'Files');
  fs.mkdirSync(path.join(files, 'docs'), { recursive: true });
  fs.writeFileSync(path.join(files, 'docs', 'a.txt'), 'a');
  fs.mkdirSync(path.join(files, '.burrow', 'trash'), { recursive: true });
  fs.mkdirSync(path.join(vol, 'Other'));
  fs.writeFileSync(path.join(vol, 'Other', 'x.txt'), 'x');
  fs.writeFileSync(path.join(root, 'secret.txt'), 'secret');
  fs.mkdirSync(path.join(root, 'config'));
  fs.writeFileSync(path.join(root, 'config', 'burrow.db'), '');
  fs.mkdirSync(path.join(root, 'outside'));
  // USER_ROOT inside the volume root: the folder is also a volume named `users`.
  const users = path.join(vol, 'users');
  fs.mkdirSync(path.join(users, 'alice'), { recursive: true });
  fs.mkdirSync(path.join(users, 'bob'), { recursive: true });
  fs.writeFileSync(path.join(users, 'bob', 'diary.txt'), 'bob');
  fs.symlinkSync('/etc', path.join(files, 'link-out'));
  fs.symlinkSync('docs', path.join(files, 'link-in'));
  fs.symlinkSync('..', path.join(files, 'link-up'));
  fs.symlinkSync('/nonexistent-burrow/x', path.join(files, 'dangling-out'));
  fs.symlinkSync(path.join(root, 'outside', 'new.txt'), path.join(files, 'dangling-outside-dir'));
  fs.symlinkSync('../../secret.txt', path.join(files, 'link-file-out'));
  fs.symlinkSync('../Other', path.join(files, 'link-other'));
  fs.symlinkSync(path.join(root, 'config'), path.join(files, 'link-config'));
  fs.symlinkSync(path.join(users, 'bob'), path.join(files, 'link-bob'));
  fs.symlinkSync('docs/missing.txt', path.join(files, 'dangling-in'));
  fs.symlinkSync(path.join(root, 'config'), path.join(vol, 'LinkedConfig'));
  const personal: PersonalFolders = {
    folderFor: async (userId) => path.join(users, userId === 'u-alice' ? 'alice' : 'bob'),
    all: () => [path.join(users, 'alice'), path.join(users, 'bob')],
  };
  resolver = createPathResolver({
    volumeRoot: vol,
    userDirEnabled: true,
    userVolumesEnabled: false,
    personal,
    privateDirs: [path.join(root, 'config')],
    levelAt: (userId, virtualPath) => decide(everyoneRules, userId, virtualPath).level,
  });
  fs.mkdirSync(path.join(files, 'secret-rule', 'inner'), { recursive: true });
}

setup();

/** Every spelling that could escape: refused as a bad path (400). */
const MALFORMED: string[] = [
  '..',
  '../secret.txt',
  'Files/..',
  'Files/../..',
  'Files/../../secret.txt',
  'Files/./docs',
  '.',
  './Files',
  '/etc/passwd',
  '/Files',
  '//Files',
  '\\Files',
  'Files\\..\\..',
  'Files/docs\\..\\..\\secret.txt',
  'Files/%2e%2e/secret.txt',
  'Files/%2E%2E',
  'Files/docs%2f..%2f..',
  'Files/%2fetc',
  'Files/%5c..',
  'Files/%00',
  'Files/a\0b',
  'C:/Windows',
  'c:\\',
  '~/x',
  '~root',
  'Files//docs',
  'Files/docs//a.txt',
  'Files/' + 'x'.repeat(256),
  'Files/docs/../../..',
  'personal/../users/bob',
];

/** Links out of the space (elsewhere, another volume, the config, another's folder): refused as outside (403). */
const OUTSIDE: string[] = [
  'Files/link-out',
  'Files/link-out/passwd',
  'Files/link-up',
  'Files/link-up/secret.txt',
  'Files/dangling-out',
  'Files/dangling-outside-dir',
  'Files/link-file-out',
  'Files/link-other',
  'Files/link-other/x.txt',
  'Files/link-config',
  'Files/link-config/burrow.db',
  'Files/link-bob',
  'Files/link-bob/diary.txt',
];

/** Burrow's own folders, hidden by a rule, another account's, unknown: as if not there (404). */
const ABSENT: string[] = [
  'Files/.burrow',
  'Files/.burrow/trash',
  'Files/.burrow-tmp-abc',
  'Files/docs/.burrow-tmp-abc',
  'NoSuchVolume',
  'NoSuchVolume/x',
  'share/unknown',
  'users/bob',
  'users/bob/diary.txt',
  'users/alice',
  'LinkedConfig',
  'LinkedConfig/burrow.db',
  'Files/secret-rule',
  'Files/secret-rule/inner',
  'personal/.burrow',
  'Files/docs/.burrow',
  'Files/docs/.burrow/uploads/part',
];

const HOSTILE = [...MALFORMED, ...OUTSIDE, ...ABSENT];

test(`${HOSTILE.length} hostile paths never resolve`, async () => {
  assert.ok(HOSTILE.length >= 40);
  for (const p of HOSTILE) {
    let status = 0;
    try {
      await resolver.resolve(alice, p);
    } catch (err: any) {
      status = err.status;
    }
    const expected = MALFORMED.includes(p) ? 400 : OUTSIDE.includes(p) ? 403 : 404;
    assert.is(status, expected, `${JSON.stringify(p)} resolved (status ${status})`);
  }
});

test('ordinary paths resolve, symlinks inside the space included', async () => {
  const a = await resolver.resolve(alice, 'Files/docs/a.txt', { mustExist: true });
  assert.is(a.realPath, path.join(root, 'volumes', 'Files', 'docs', 'a.txt'));
  assert.is(a.relative, 'docs/a.txt');
  assert.is(a.exists, true);
  assert.is(a.isDirectory, false);
  const viaLink = await resolver.resolve(alice, 'Files/link-in/a.txt', { mustExist: true });
  assert.is(viaLink.exists, true);
  const dir = await resolver.resolve(alice, 'Files/docs/');
  assert.is(dir.virtualPath, 'Files/docs');
  assert.is(dir.isDirectory, true);
  assert.is(dir.access.canWrite, true);
  const fresh = await resolver.resolve(alice, 'Files/docs/new.txt');
  assert.is(fresh.exists, false);
  const danglingInside = await resolver.resolve(alice, 'Files/dangling-in');
  assert.is(danglingInside.exists, false);
  const top = await resolver.resolve(alice, '');
  assert.is(top.space, null);
  assert.is(top.access.canWrite, false);
  const own = await resolver.resolve(alice, 'personal');
  assert.is(own.realPath, path.join(root, 'volumes', 'users', 'alice'));
  assert.is(own.access.canDelete, false, 'a space root cannot be deleted');
});

test('missing items answer 404 only when they must exist', async () => {
  await resolver.resolve(alice, 'Files/nope');
  try {
    await resolver.resolve(alice, 'Files/nope', { mustExist: true });
    assert.unreachable();
  } catch (err: any) {
    assert.is(err.status, 404);
  }
});

test('access: rules make folders read-only, read tokens never write', async () => {
  const other = await resolver.resolve(alice, 'Other');
  assert.is(other.access.readOnly, 'access');
  assert.is(other.access.canUpload, false);
  const asReader = await resolver.resolve(reader, 'Files/docs');
  assert.is(asReader.access.canWrite, false);
  assert.is(asReader.access.readOnly, 'access');
  assert.is(resolver.isHiddenByRule(alice, 'Files/secret-rule/inner'), true);
});

test('spaces and toVirtual keep to what the caller may see', async () => {
  const spaces = await resolver.spaces(alice);
  assert.equal(
    spaces.map((s) => s.path),
    ['Files', 'Other', 'users', 'personal'],
  );
  assert.is(await resolver.toVirtual(alice, path.join(root, 'volumes', 'Files', 'docs', 'a.txt')), 'Files/docs/a.txt');
  assert.is(await resolver.toVirtual(alice, path.join(root, 'volumes', 'users', 'alice', 'x')), 'personal/x');
  assert.is(await resolver.toVirtual(alice, path.join(root, 'volumes', 'users', 'bob', 'diary.txt')), null);
  assert.is(await resolver.toVirtual(alice, path.join(root, 'secret.txt')), null);
  assert.is(await resolver.toVirtual(alice, path.join(root, 'volumes', 'Files', '.burrow', 'trash')), null);
  assert.is(await resolver.toVirtual(alice, path.join(root, 'volumes', 'Files', 'docs', '.burrow', 'uploads')), null);
  assert.is(await resolver.toVirtual(alice, path.join(root, 'volumes', 'Files', 'secret-rule', 'inner')), null);
});

test('parseVirtualPath keeps names with odd but harmless characters', () => {
  assert.equal(parseVirtualPath('Files/a b/c+d#e?.txt'), ['Files', 'a b', 'c+d#e?.txt']);
  assert.equal(parseVirtualPath('Files/..a/b..'), ['Files', '..a', 'b..']);
  assert.equal(parseVirtualPath(''), []);
});

test.after(() => fs.rmSync(root, { recursive: true, force: true }));

test.run();

// The admin activity table's wording: file operations and shares read as sentences (never
// JSON), a batch names its first paths and how many more, link and token writes say so, and
// actions without a sentence keep their "name: value" pairs.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { actionName, codeWords, describeActivity } from '../../ui/src/admin/activity-words.ts';

const CASES: [string, Record<string, unknown>, string][] = [
  [
    'files.upload',
    { paths: ['Files/a.txt', 'Files/b.txt'], count: 3, bytes: 2048, method: 'multipart' },
    'Uploaded 3 files (2.0 KB): Files/a.txt, Files/b.txt and 1 more',
  ],
  [
    'files.upload',
    { paths: ['Files/big.iso'], count: 1, bytes: 10, method: 'tus' },
    'Uploaded 1 file (10 B) resumably: Files/big.iso',
  ],
  ['files.create-folder', { path: 'Files/Plans' }, 'Created the folder Files/Plans'],
  ['files.create-file', { path: 'Files/a.txt', size: 0 }, 'Created the file Files/a.txt'],
  ['files.rename', { path: 'Files/a.txt', to: 'Files/b.txt' }, 'Renamed Files/a.txt to Files/b.txt'],
  ['files.move', { destination: 'Files/Old', paths: ['Files/a'], count: 1 }, 'Moved 1 item into Files/Old: Files/a'],
  [
    'files.copy',
    { destination: 'Files/New', paths: ['Files/a', 'Files/b'], count: 2 },
    'Copied 2 items into Files/New: Files/a, Files/b',
  ],
  [
    'files.delete',
    { paths: ['Files/a'], count: 12, notDeleted: 1 },
    'Moved 12 items to the trash: Files/a and 11 more (1 item not deleted)',
  ],
  ['trash.restore', { path: 'Files/a.txt', from: 'Files/a.txt' }, 'Restored Files/a.txt from the trash'],
  [
    'trash.restore',
    { path: 'Files/a (1).txt', from: 'Files/a.txt' },
    'Restored Files/a.txt from the trash as Files/a (1).txt',
  ],
  ['trash.purge', { path: 'Files/a.txt' }, 'Deleted Files/a.txt from the trash for good'],
  ['trash.empty', { count: 4 }, 'Emptied the trash (4 items deleted for good)'],
  ['editor.save', { path: 'Files/a.txt', created: false }, 'Saved Files/a.txt in the editor'],
  [
    'archive.extract',
    { path: 'Files/set.zip', destination: 'Files/set', files: 2, bytes: 7 },
    'Extracted Files/set.zip into Files/set (2 files, 7 B)',
  ],
  [
    'archive.compress',
    { path: 'Files/p.zip', paths: ['Files/a'], count: 1 },
    'Compressed 1 item into Files/p.zip: Files/a',
  ],
  [
    'share.create',
    { id: 'x', path: 'Files/Drop', sharingType: 'anyone', fileRequest: false, writable: true, password: true },
    'Shared Files/Drop with anyone with the link, may change files, password',
  ],
  [
    'share.update',
    { id: 'x', path: 'Files/Drop', changed: ['label', 'expiresAt'] },
    'Changed the share of Files/Drop: label, expires at',
  ],
  ['share.delete', { id: 'x', path: 'Files/Drop' }, 'Stopped sharing Files/Drop'],
];

test('file operations and shares read as sentences', () => {
  for (const [action, detail, words] of CASES) assert.is(describeActivity(action, detail), words, action);
});

test('writes through a link or with a token say so', () => {
  assert.is(
    describeActivity('files.create-folder', { path: 'Files/Drop/x', shareId: '0123456789abcdef' }),
    'Created the folder Files/Drop/x (through share link 01234567)',
  );
  assert.is(
    describeActivity('files.create-folder', { path: 'Files/x', tokenId: 'tok' }),
    'Created the folder Files/x (with an API token)',
  );
});

test('sign-ins read as sentences, their codes in words', () => {
  assert.is(describeActivity('auth.login', { reason: 'wrong-password' }, 'failure'), 'Sign-in refused: wrong password');
  assert.is(describeActivity('auth.login', { method: 'password' }), 'Signed in with a password');
  assert.is(
    describeActivity('auth.login', { method: 'password', held: true }),
    'Signed in with a password, waiting for the second factor',
  );
  assert.is(
    describeActivity('auth.login', { method: 'passkey', secondFactor: 'recovery-code' }),
    'Signed in with a passkey and recovery code',
  );
  assert.is(describeActivity('auth.login', { method: 'oidc' }), 'Signed in with single sign-on');
  assert.is(
    describeActivity('auth.login', { reason: 'second-factor-needs-token', method: 'basic' }, 'failure'),
    'Sign-in refused (password (WebDAV or a script)): the account has a second factor: use an API token',
  );
});

test('every action has a name in words; an unknown one reads as its words', () => {
  assert.is(actionName('files.rename'), 'Rename');
  assert.is(actionName('auth.login'), 'Sign-in');
  assert.is(actionName('admin.settings-change'), 'Settings changed');
  assert.is(actionName('office.lock-refresh'), 'Office lock refresh');
  assert.is(codeWords('local_password'), 'password');
  assert.is(
    describeActivity('admin.settings-change', {
      sections: ['folderSizes', 'terminal'],
      folderSizes: 'full',
      terminal: 'on',
    }),
    'Changed the settings: folder sizes (full), terminal (on)',
  );
  assert.is(
    describeActivity('terminal.end', { reason: 'switched-off', durationMs: 125_000 }),
    'Closed a terminal: switched off after 2 min',
  );
  assert.is(describeActivity('token.refused', { reason: 'expired' }), 'Refused an API token: expired');
});

test('other actions keep their fields as words; nothing is JSON', () => {
  assert.is(describeActivity('dav.put', { path: '/dav/a', status: 201 }), 'path: /dav/a · status: 201');
  assert.is(describeActivity('some.thing', { method: 'local_password' }), 'method: password');
  assert.is(describeActivity('files.upload', null), '');
  // Times in words, as the screens show them: never the ISO form (one 24-character word that wraps inside).
  const expires = '2026-12-24T12:26:31.497Z';
  for (const words of [
    describeActivity('token.create', { name: 'nightly', expiresAt: expires }),
    describeActivity('share.create', { path: 'Files/x', sharingType: 'link', expiresAt: expires }),
  ]) {
    assert.not.ok(words.includes(expires), words);
    assert.ok(words.includes('2026'), words);
  }
  for (const [action, detail] of CASES) assert.not.match(describeActivity(action, detail), /[{}"]/, action);
});

test.run();

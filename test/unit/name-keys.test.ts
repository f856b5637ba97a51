// Accounts and groups are found by their folded keys (auth/004_name_keys.sql,
// access/005_group_name_key.sql): the key written with every name, the keys of rows from before
// them written when the store opens the database, and a row still without keys (written by a
// release before them) found and refused by its name as before. A real database, migrated as a
// start migrates it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/db/database.ts';
import { loadMigrations, runMigrations } from '../../src/db/migrations.ts';
import { UsersStore } from '../../src/accounts/users-store.ts';
import { createAccessStore } from '../../src/access/store.ts';
import { AppError } from '../../src/core/errors.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-name-keys-'));
const db = new Database(path.join(dir, 'burrow.db'));
runMigrations(db, loadMigrations());
test.after(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const NAME = 'Jörg.Müller';
const EMAIL = 'Jörg.Müller@Example.org';
const keysOf = (id: string) =>
  db.get<{ name_key: string | null; email_key: string | null }>('SELECT name_key, email_key FROM users WHERE id = ?', [
    id,
  ]);
const refusal = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err.code;
    throw err;
  }
  return undefined;
};

test('an account is found by any case and Unicode form of its name or email, through keys written with it', () => {
  const users = new UsersStore(db);
  const jorg = users.insert({ username: NAME, email: EMAIL, passwordHash: null, roles: ['user'] });
  const bare = users.insert({ username: 'Ana Lúcia', email: null, passwordHash: null, roles: ['user'] });
  assert.equal(keysOf(jorg.id), { name_key: 'jörg.müller', email_key: 'jörg.müller@example.org' });
  assert.equal(keysOf(bare.id), { name_key: 'ana lúcia', email_key: null });
  for (const typed of ['JÖRG.MÜLLER', 'jörg.müller'.normalize('NFD'), ' jÖrg.mÜller@EXAMPLE.ORG '])
    assert.equal(
      users.findByIdentifier(typed).map((u) => u.id),
      [jorg.id],
      typed,
    );
  assert.is(users.findByEmail('JÖRG.MÜLLER@example.org')?.id, jorg.id);
  assert.is(
    refusal(() => users.insert({ username: 'JÖRG.MÜLLER', email: null, passwordHash: null, roles: ['user'] })),
    'USERNAME_TAKEN',
  );
  assert.is(
    refusal(() => users.update(bare.id, { email: 'jörg.müller@example.ORG'.normalize('NFD') })),
    'EMAIL_TAKEN',
  );
  // A rename moves the key: the old name finds nobody, the new one the account.
  users.update(bare.id, { username: 'ANA LÚCIA SOUZA', email: 'ana@example.org' });
  assert.equal(keysOf(bare.id), { name_key: 'ana lúcia souza', email_key: 'ana@example.org' });
  assert.equal(users.findByIdentifier('ana lúcia'), []);
  assert.is(users.findByIdentifier('Ana Lúcia Souza')[0]?.id, bare.id);
});

test('rows without keys are still found and refused by their names, and get their keys when a store next opens', () => {
  const users = new UsersStore(db);
  const jorg = users.findByIdentifier(NAME)[0]!;
  // As a release before the keys wrote it.
  db.run('UPDATE users SET name_key = NULL, email_key = NULL WHERE id = ?', [jorg.id]);
  db.run(
    "INSERT INTO users (id, username, email, roles, created_at, updated_at) VALUES ('u-old', 'ÉMILE', 'Émile@Example.org', '[\"user\"]', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')",
  );
  assert.is(users.findByIdentifier('jörg.müller@example.org')[0]?.id, jorg.id);
  assert.is(users.findByIdentifier('émile')[0]?.id, 'u-old');
  assert.is(
    refusal(() => users.insert({ username: 'émile', email: null, passwordHash: null, roles: ['user'] })),
    'USERNAME_TAKEN',
  );
  assert.is(
    refusal(() =>
      users.insert({ username: 'emile2', email: 'ÉMILE@example.org', passwordHash: null, roles: ['user'] }),
    ),
    'EMAIL_TAKEN',
  );
  const reopened = new UsersStore(db);
  assert.equal(keysOf(jorg.id), { name_key: 'jörg.müller', email_key: 'jörg.müller@example.org' });
  assert.equal(keysOf('u-old'), { name_key: 'émile', email_key: 'émile@example.org' });
  assert.is(reopened.findByEmail('émile@EXAMPLE.org')?.id, 'u-old');
});

test('a group is found by its key, and one from before the keys by its name until a store writes its key', () => {
  const access = createAccessStore(db);
  const made = access.addGroup('Onkel Jürgen & Tanten Ève')!;
  assert.is(access.groupNamed('ONKEL JÜRGEN & TANTEN ÈVE')?.id, made.id);
  assert.is(access.groupNamed('onkel jürgen & tanten ève'.normalize('NFD'))?.id, made.id);
  assert.is(access.renameGroup(made.id, 'Familie Groß'), 'renamed');
  assert.is(access.groupNamed('onkel jürgen & tanten ève'), undefined);
  assert.is(access.groupNamed('FAMILIE GROẞ'.normalize('NFD'))?.id, made.id);
  db.run(
    "INSERT INTO access_groups (id, name, created_at, updated_at) VALUES ('g-old', 'Ärzte', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')",
  );
  assert.is(access.groupNamed('ÄRZTE')?.id, 'g-old');
  createAccessStore(db);
  assert.is(db.get<{ k: string }>("SELECT name_key AS k FROM access_groups WHERE id = 'g-old'")?.k, 'ärzte');
});

test.run();

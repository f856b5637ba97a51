// Each passkey belongs to the name it was made at (its WebAuthn relying party): the name is kept
// with it and shown (rpId); one of another name is refused at sign-in even with a good signature
// for it; a numeric address gets a clear refusal instead of a relying party browsers reject;
// passkeys made before names were kept get the one they had (localhost, or PUBLIC_URL's host).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createUser, setupAdmin } from '../support/auth.ts';
import { Client, envelope } from '../support/client.ts';
import { removeDirs, startServer } from '../support/server.ts';
import { SoftAuthenticator } from '../support/soft-authenticator.ts';

test('the name is kept with each passkey, another name is refused, old passkeys get localhost or PUBLIC_URL’s host', async () => {
  const server = await startServer();
  try {
    const base = server.url.replace('127.0.0.1', 'localhost');
    const admin = await setupAdmin(server);
    const renée = await createUser(admin, server, {
      username: 'renée',
      email: 'renee@example.org',
      password: 'Grüße & “Schlüssel” #1',
    });
    const client = new Client(base);
    client.cookies = renée.cookies;
    const auth = new SoftAuthenticator(base);
    const start = await client.post('/api/auth/passkeys/register/start');
    assert.is(start.json.options.rp.id, 'localhost');
    const made = await client.post('/api/auth/passkeys/register/finish', {
      response: auth.create(start.json.options),
      name: 'Küchen-Tablet 🍳',
    });
    assert.is(made.status, 201, made.text);
    assert.is(made.json.passkey.rpId, 'localhost');

    // At a numeric address: said plainly, nothing drawn.
    const numeric = new Client(server.url);
    numeric.cookies = renée.cookies;
    const refused = await numeric.post('/api/auth/passkeys/register/start');
    assert.is(refused.status, 400, refused.text);
    assert.is(envelope(refused).code, 'PASSKEY_NAME_REQUIRED');
    assert.is((await new Client(server.url).post('/api/auth/login/passkey/start')).status, 400);

    const signIn = async () => {
      const browser = new Client(base);
      const s = await browser.post('/api/auth/login/passkey/start');
      return browser.post('/api/auth/login/passkey/finish', { response: auth.get(s.json.options) });
    };
    assert.is((await signIn()).status, 200);

    // Kept as made at burrow.local: a signature for localhost does not sign in at localhost.
    await server.withDatabase((db) => db.run("UPDATE passkeys SET rp_id = 'burrow.local'"));
    const other = await signIn();
    assert.is(other.status, 401, other.text);
    assert.is(envelope(other).code, 'AUTH_PASSKEY_REJECTED');
    // Made before names were kept (NULL): the next start gives them localhost, and they sign in.
    await server.withDatabase((db) => db.run('UPDATE passkeys SET rp_id = NULL'));
    assert.is((await client.get('/api/auth/passkeys')).json.passkeys[0].rpId, 'localhost');
    assert.is((await signIn()).status, 200);
    // …or PUBLIC_URL's host when one was set (the only name they could have been made at).
    await server.restart({ PUBLIC_URL: 'https://files.example.org' });
    await server.withDatabase((db) => db.run('UPDATE passkeys SET rp_id = NULL'));
    assert.is((await client.get('/api/auth/passkeys')).json.passkeys[0].rpId, 'files.example.org');
  } finally {
    await server.close();
    removeDirs(server.dirs);
  }
});

test.run();

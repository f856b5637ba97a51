// Securing the account and using the administrator's tools: two-step sign-in set up from its QR
// screen with a code from oathtool (an authenticator other than ours), then a sign-in that asks
// for the next code; a passkey added with Chromium's virtual authenticator (DevTools protocol
// WebAuthn) and used to sign in; the administrator's terminal running a command in the home
// folder. The server's side: what it says of the account's second factor and passkeys, who is
// signed in after each sign-in, and the file the terminal's command wrote on disk.
import { execFileSync } from 'node:child_process';
import * as assert from 'uvu/assert';
import { ADMIN, journey, type Step } from './harness.ts';
import { addVirtualAuthenticator } from '../browser.ts';

const j = journey(import.meta.url, { env: { TERMINAL_ENABLED: 'true', TERMINAL_SHELL: '/bin/sh' } });
let secret = '';
let setUpAt = 0;

/** The six digits an authenticator app shows at `when` (oathtool, Debian's). */
const code = (when: Date) =>
  execFileSync(
    'oathtool',
    ['--totp', '--base32', `--now=${when.toISOString().replace('T', ' ').slice(0, 19)} UTC`, secret],
    {
      encoding: 'utf8',
    },
  ).trim();

const who = async (s: Step) => (await s.api('GET', '/api/auth/me')).json?.user?.email ?? null;

async function signOut(s: Step): Promise<void> {
  await s.tap(s.page.getByRole('button', { name: 'Sign out' }));
  await s.page.getByRole('heading', { name: 'Sign in' }).waitFor();
  assert.is(await who(s), null, 'signed out at the server');
}

j.step('two-step sign-in is set up with a code from another authenticator', async (s) => {
  await s.goto('/settings/security');
  await s.tap(s.page.getByRole('button', { name: 'Set up two-step sign-in' }));
  await s.page.getByRole('img', { name: /QR code/ }).waitFor();
  secret = (await s.page.getByTestId('totp-secret').textContent())!.replace(/\s+/g, '');
  // The code of this half-minute; the next sign-in uses the next half-minute's (a code is accepted
  // once, and the server takes one step either side). The half-minute before would be refused if
  // a step boundary passed before the server read it.
  setUpAt = Date.now();
  await s.page.getByLabel('Six-digit code from the app').fill(code(new Date(setUpAt)));
  await s.tap(s.page.getByRole('button', { name: 'Turn on' }));
  await s.page.getByRole('button', { name: 'Download recovery codes' }).waitFor();
  const status = await s.api('GET', '/api/auth/totp');
  assert.is(status.json.enabled, true, status.text);
});

j.step(
  'signing in again asks for the code',
  async (s) => {
    await signOut(s);
    await s.page.getByLabel('Email or username').fill(ADMIN.email);
    await s.page.getByLabel('Password').fill(ADMIN.password);
    await s.tap(s.page.getByRole('button', { name: 'Sign in', exact: true }));
    const field = s.page.getByLabel(/Code from your authenticator app/);
    await field.waitFor();
    assert.is(await who(s), null, 'a password alone does not sign in');
    await field.fill(code(new Date(setUpAt + 30_000)));
    await s.tap(s.page.getByRole('button', { name: 'Verify' }));
    await s.page.getByRole('heading', { name: 'Sign in' }).waitFor({ state: 'detached' });
    assert.is(await who(s), ADMIN.email);
  },
  { needs: ['two-step sign-in is set up with a code from another authenticator'] },
);

j.step('a passkey is added and signs in', async (s) => {
  await addVirtualAuthenticator(s.context, s.page);
  await s.goto('/settings/security');
  await s.page.getByRole('heading', { name: 'Passkeys' }).waitFor();
  await s.page.getByLabel('Name for the new passkey').fill('Ada’s laptop');
  await s.tap(s.page.getByRole('button', { name: 'Add a passkey' }));
  await s.page.getByText('Ada’s laptop', { exact: true }).waitFor();
  const kept = await s.api('GET', '/api/auth/passkeys');
  assert.ok(kept.text.includes('Ada’s laptop'), `the server keeps it: ${kept.text}`);

  await signOut(s);
  await s.tap(s.page.getByRole('button', { name: 'Sign in with a passkey' }));
  await s.page.getByRole('heading', { name: 'Sign in' }).waitFor({ state: 'detached' });
  assert.is(await who(s), ADMIN.email, 'signed in by the passkey');
});

j.step('the administrator’s terminal runs a command in the home folder', async (s) => {
  await s.goto('/admin');
  await s.tap(s.page.getByRole('link', { name: 'Terminal' }));
  await s.page.getByText('Shell on the server').waitFor();
  await s.tap(s.page.locator('.xterm'));
  const made = 'Inbox/made in the terminal.txt';
  await s.page.keyboard.type(`cd '${s.home}' && ls Photos && echo "hello from the shell" > '${made}'`);
  await s.page.keyboard.press('Enter');
  // The shell's `>` makes the file before echo writes into it: wait for the line, not the name.
  await s.eventually('the command to write its line', () => s.exists(made) && s.read(made).length > 0);
  assert.is(s.read(made), 'hello from the shell\n');
  await s.eventually('its output on the screen', async () =>
    /Holiday 2025/.test(await s.page.locator('.xterm-rows').innerText()),
  );
});

j.run();

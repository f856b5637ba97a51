// Sign-in lockout, password change and the administration screens in Chromium against the real
// server: the lockout countdown (AUTH_MAX_FAILED=3), change password, accounts (create, role,
// reset password, unlock, delete), assigned volumes with the server-files picker
// (USER_VOLUMES=true), and the activity log (switched on in installation settings; filter,
// page, address diagnosis, clear).
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { removeDirs, type TestServer } from '../support/server.ts';
import { DESKTOP, PHONE, launch, newPage, setupAdmin, shot, startWithUi } from './browser.ts';
import { waitFor } from '../support/wait.ts';

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: string[];
const ADMIN = 'admin@example.org';
let adminPassword = 'correct horse battery';
const PW = 'a perfectly fine password';

const api = async (method: string, url: string, data?: unknown) => {
  const res = await context.request.fetch(`${server.url}${url}`, { method, data });
  if (!res.ok()) throw new Error(`${method} ${url} answered ${res.status()}: ${await res.text()}`);
  return res.status() === 204 ? undefined : res.json();
};
/** A sign-in outside the browser's session (its own cookie jar). */
const signIn = async (identifier: string, password: string) =>
  (
    await fetch(`${server.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ identifier, password }),
    })
  ).status;
const userRow = (name: string) =>
  page
    .getByRole('table', { name: 'Accounts' })
    .getByRole('row')
    .filter({ has: page.getByText(name, { exact: true }) });
type ApiUser = { id: string; username: string; roles: string[]; locked: boolean };
const usersByName = async () =>
  new Map(((await api('GET', '/api/users')) as { users: ApiUser[] }).users.map((u) => [u.username, u]));

test.before(async () => {
  server = await startWithUi({ AUTH_MAX_FAILED: '3', USER_VOLUMES: 'true' }, ['Files', 'Shared']);
  ({ browser } = await launch());
  const p = await newPage(browser, DESKTOP);
  context = p.context;
  page = p.page;
  problems = p.problems;
  await setupAdmin(context, server.url, ADMIN, adminPassword);
  await api('POST', '/api/users', { email: 'bob@example.org', password: PW, roles: [] });
});

test.after(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
  if (server) removeDirs(server.dirs);
});

test('repeated wrong passwords: the lockout says when to retry and counts down', async () => {
  const p = await newPage(browser, DESKTOP);
  try {
    await p.page.goto(server.url);
    await p.page.getByLabel('Email or username').fill('bob');
    const button = p.page.getByRole('button', { name: 'Sign in', exact: true });
    const timer = p.page.getByRole('timer');
    for (let i = 0; i < 6 && !(await timer.count()); i++) {
      await p.page.getByLabel('Password').fill(`wrong guess ${i}`);
      await button.click();
      await p.page.locator('.error-note').waitFor();
      await p.page.waitForFunction(
        () => !document.querySelector('button.primary[disabled]') || document.querySelector('[role=timer]'),
      );
    }
    const first = await timer.innerText();
    assert.match(first, /You can try again in \d+ min \d+ s\./);
    assert.match(await p.page.locator('.error-note').innerText(), /locked[\s\S]*Request ID/);
    assert.ok(await button.isDisabled(), 'no sign-in while locked');
    await shot(p.page, 'lockout-desktop');
    await waitFor(async () => (await timer.innerText()) !== first, { what: 'the countdown moves', timeoutMs: 4000 });
    assert.is(await signIn('bob', PW), 429, 'the server holds the lock too');
  } finally {
    await p.context.close();
  }
});

test('administration: a locked account shows it and is unlocked', async () => {
  await page.goto(`${server.url}/admin/users`);
  const bob = userRow('bob');
  await bob.getByText('Locked after failed sign-ins').waitFor();
  await shot(page, 'admin-users-desktop');
  await bob.getByRole('button', { name: 'Unlock' }).click();
  await page.getByText('Account unlocked').waitFor();
  await waitFor(async () => (await bob.getByText('Locked after failed sign-ins').count()) === 0, {
    what: 'badge gone',
  });
  assert.is((await usersByName()).get('bob')!.locked, false);
  assert.is(await signIn('bob', PW), 200);
});

test('administration: create an account, change its role, reset its password', async () => {
  const form = page.getByRole('form', { name: 'Create an account' });
  await form.getByLabel('Email').fill('carol@example.org');
  await form.getByLabel('Password').fill(PW);
  await form.getByRole('button', { name: 'Create account' }).click();
  const carol = userRow('carol');
  await carol.waitFor();
  assert.equal((await usersByName()).get('carol')!.roles, ['user']);
  await carol.getByRole('combobox', { name: 'Role of carol' }).selectOption('admin');
  await waitFor(async () => (await usersByName()).get('carol')!.roles.includes('admin'), {
    what: 'carol is an administrator',
  });
  await carol.getByRole('combobox', { name: 'Role of carol' }).selectOption('user');
  await waitFor(async () => !(await usersByName()).get('carol')!.roles.includes('admin'), {
    what: 'carol is a user again',
  });
  await carol.getByRole('button', { name: 'Reset password' }).click();
  const dialog = page.locator('dialog[open]');
  const field = dialog.getByLabel(/New password/);
  assert.is(await field.getAttribute('type'), 'password', 'the new password is not shown on screen');
  await field.fill('the new password of carol');
  await dialog.getByRole('button', { name: 'Reset password' }).click();
  await page.getByText('Password reset').waitFor();
  assert.is(await signIn('carol', 'the new password of carol'), 200);
  assert.is(await signIn('carol', PW), 401);
});

test('administration: assigned volumes picked with the server-files browser', async () => {
  await userRow('carol').getByRole('button', { name: 'Volumes' }).click();
  const dialog = page.getByRole('dialog', { name: 'Volumes of carol' });
  await dialog.getByText('None: the account sees the shared volumes.').waitFor();
  await dialog.getByRole('button', { name: 'Browse server folders…' }).click();
  const folders = dialog.getByRole('list', { name: 'Server folders' });
  await folders.getByRole('button', { name: 'Shared' }).click();
  await dialog.getByText(/Server folder: .*Shared/).waitFor();
  await shot(page, 'assigned-volumes-picker-desktop');
  await dialog.getByRole('button', { name: 'Use this folder' }).click();
  assert.is(await dialog.getByLabel('Server folder').inputValue(), path.join(server.dirs.volumes, 'Shared'));
  await dialog.getByLabel('Label').fill('Team');
  await dialog.getByRole('button', { name: 'Assign' }).click();
  await dialog.getByText('Team', { exact: true }).waitFor();
  const carolId = (await usersByName()).get('carol')!.id;
  type Vol = { label: string; path: string; accessMode: string };
  let vols = ((await api('GET', `/api/users/${carolId}/volumes`)) as { volumes: Vol[] }).volumes;
  assert.equal(
    vols.map((v) => [v.label, v.path, v.accessMode]),
    [['Team', path.join(server.dirs.volumes, 'Shared'), 'readwrite']],
  );
  await dialog.getByRole('combobox', { name: 'Access to Team' }).selectOption('readonly');
  await waitFor(
    async () => {
      vols = ((await api('GET', `/api/users/${carolId}/volumes`)) as { volumes: Vol[] }).volumes;
      return vols[0]?.accessMode === 'readonly';
    },
    { what: 'read-only on the server' },
  );
  await shot(page, 'assigned-volumes-desktop');
  await dialog.getByRole('button', { name: 'Close' }).click();
});

test('administration: delete an account', async () => {
  await userRow('carol').getByRole('button', { name: 'Delete' }).click();
  await page.locator('dialog[open]').getByRole('button', { name: 'Delete account' }).click();
  await page.getByText('Account deleted').waitFor();
  await waitFor(async () => (await userRow('carol').count()) === 0, { what: 'carol gone' });
  assert.not.ok((await usersByName()).has('carol'));
});

test('activity log: switched on in installation settings; filter, pages, address, clear', async () => {
  await page.getByRole('link', { name: 'Installation' }).click();
  await page.getByRole('checkbox', { name: /Record sign-ins/ }).check();
  await page
    .getByRole('checkbox', { name: /Record sign-ins/ })
    .locator('xpath=ancestor::form')
    .getByRole('button', { name: 'Save' })
    .click();
  await page.getByText('Settings saved').waitFor();
  assert.is(((await api('GET', '/api/settings')) as { activity: { enabled: boolean } }).activity.enabled, true);
  await shot(page, 'installation-desktop');
  // 60 recorded events of one kind: more than a page of 50.
  const { token } = (await api('POST', '/api/auth/tokens', {
    name: 'log filler',
    scope: 'read',
    expiresInDays: 1,
    password: adminPassword,
  })) as { token: { id: string } };
  for (let i = 0; i < 60; i++) await api('PATCH', `/api/auth/tokens/${token.id}`, { name: `log filler ${i}` });
  assert.is(await signIn('bob', 'not his password'), 401);

  await page.getByRole('link', { name: 'Activity log' }).click();
  const table = page.getByRole('table', { name: 'Activity' });
  const rows = table.locator('tbody tr');
  await waitFor(async () => (await rows.count()) === 50, { what: 'rows listed' });
  await page.getByRole('combobox', { name: 'Action' }).selectOption('token.rename');
  await page.getByRole('button', { name: 'Filter' }).click();
  await waitFor(
    async () => {
      const actions = await table.locator('tbody tr td:nth-child(2)').allInnerTexts();
      return actions.length === 50 && actions.every((a) => a === 'API token renamed');
    },
    { what: 'only renames' },
  );
  const firstPage = await table.locator('tbody tr td:nth-child(6)').allInnerTexts();
  await page.getByRole('button', { name: 'Older' }).click();
  await page.getByText('Page 2').waitFor();
  await waitFor(async () => (await rows.count()) === 10, { what: 'the rest on page 2' });
  assert.ok(await page.getByRole('button', { name: 'Older' }).isDisabled(), 'no page 3');
  const second = await table.locator('tbody tr td:nth-child(6)').allInnerTexts();
  assert.ok(
    second.every((d) => !firstPage.includes(d)),
    'page 2 holds other rows',
  );
  await page.getByRole('button', { name: 'Newer' }).click();
  await page.getByText('Page 1').waitFor();
  await waitFor(async () => (await rows.count()) === 50, { what: 'page 1 again' });
  // Failures of bob, by outcome and user.
  await page.getByRole('combobox', { name: 'Action' }).selectOption('');
  await page.getByRole('combobox', { name: 'Outcome' }).selectOption('failure');
  await page.getByRole('textbox', { name: 'User' }).fill('bob');
  await page.getByRole('button', { name: 'Filter' }).click();
  await waitFor(
    async () => {
      const cells = await rows.evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
      );
      return (
        cells.length > 0 && cells.every((c) => c[2] === 'Refused or failed' && c[3] === 'bob' && c[4] === '127.0.0.1')
      );
    },
    { what: "bob's failed sign-ins" },
  );
  await shot(page, 'activity-desktop');
  await page.getByText('Which address is recorded for my requests?').click();
  const facts = page.getByRole('definition').filter({ hasText: '127.0.0.1' });
  await facts.first().waitFor();
  await page.getByText('forwarding headers are ignored').waitFor();
  await shot(page, 'activity-address-desktop');

  await page.getByRole('button', { name: 'Clear log' }).click();
  await page.locator('dialog[open]').getByRole('button', { name: 'Clear log' }).click();
  await page.getByText(/Removed \d+ rows/).waitFor();
  const left = ((await api('GET', '/api/activity')) as { rows: { action: string }[] }).rows.map((r) => r.action);
  assert.equal(left, ['admin.activity-clear']);
  await page.getByRole('combobox', { name: 'Outcome' }).selectOption('');
  await page.getByRole('textbox', { name: 'User' }).fill('');
  await page.getByRole('button', { name: 'Filter' }).click();
  await waitFor(
    async () => (await table.locator('tbody tr td:nth-child(2)').allInnerTexts()).join() === 'Log cleared',
    { what: 'only the clear row shows' },
  );
});

test('change password: a wrong current password is explained; the right one changes it', async () => {
  await page.goto(`${server.url}/settings/password`);
  await page.getByLabel('Current password').fill('not my password');
  await page.getByLabel('New password', { exact: true }).fill('a brand new admin password');
  await page.getByLabel('New password again').fill('a brand new admin password');
  await page.getByRole('button', { name: 'Change password' }).click();
  await page.locator('.error-note', { hasText: 'Request ID' }).waitFor();
  assert.is(
    await page.getByRole('dialog', { name: 'Sign in again' }).count(),
    0,
    'a wrong password is not an expired session',
  );
  await page.getByLabel('Current password').fill(adminPassword);
  await page.getByRole('button', { name: 'Change password' }).click();
  await page.getByText(/Password changed/).waitFor();
  adminPassword = 'a brand new admin password';
  // This session carries on (it moved to the new cookie); the old password no longer works.
  await page.getByRole('navigation', { name: 'Places' }).getByRole('link', { name: 'Administration' }).click();
  await userRow('bob').waitFor();
  assert.is(await signIn('admin', 'correct horse battery'), 401);
  assert.is(await signIn('admin', adminPassword), 200);
  assert.equal(problems, []);
});

test('phone width: administration screens fit 360 px', async () => {
  const p = await newPage(browser, PHONE);
  try {
    await p.context.addCookies(await context.cookies());
    for (const [url, name, ready] of [
      ['/admin/users', 'admin-users-phone', 'table'],
      ['/admin/activity', 'activity-phone', 'table'],
      ['/admin/installation', 'installation-phone', 'input[type=checkbox]'],
    ] as const) {
      await p.page.goto(`${server.url}${url}`);
      await p.page.locator(ready).first().waitFor();
      const overflow = await p.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${url}: no sideways scrolling (${overflow}px)`);
      await shot(p.page, name);
    }
    await p.page.goto(server.url);
    await p.page.context().clearCookies();
    await p.page.goto(server.url);
    await p.page.getByLabel('Email or username').fill('bob');
    for (let i = 0; i < 4; i++) {
      await p.page.getByLabel('Password').fill('wrong again');
      if (await p.page.getByRole('timer').count()) break;
      // The attempt is over once its answer is shown (the note of the last one is gone meanwhile).
      const answered = p.page.waitForResponse((r) => r.url().endsWith('/api/auth/login'));
      await p.page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await answered;
      await p.page.locator('.error-note').waitFor();
    }
    await p.page.getByRole('timer').waitFor();
    await shot(p.page, 'lockout-phone');
    assert.equal(p.problems, []);
  } finally {
    await p.context.close();
  }
});

test.run();

// Administration → Terminal in Chromium against the real server (TERMINAL_ENABLED=true): the
// tab is offered, xterm.js connects through the ticket and the WebSocket, `echo hi` typed on the
// keyboard is read back from the screen, the terminal fills the window below its top edge and
// follows a window resize, copy with Ctrl+Shift+C puts the selection on the clipboard, and
// leaving the page ends the shell (the activity log says so).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { removeDirs, type TestServer } from '../support/server.ts';
import { DESKTOP, launch, newPage, setupAdmin, shot, startWithUi } from './browser.ts';
import { waitFor } from '../support/wait.ts';

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: string[];

const screenText = () => page.locator('.xterm-rows').innerText();

test.before(async () => {
  try {
    await prepare();
  } catch (err) {
    console.error(err);
    throw err;
  }
});

async function prepare(): Promise<void> {
  server = await startWithUi({ TERMINAL_ENABLED: 'true', TERMINAL_SHELL: '/bin/sh' });
  ({ browser } = await launch());
  const p = await newPage(browser, DESKTOP);
  context = p.context;
  page = p.page;
  problems = p.problems;
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  await setupAdmin(context, server.url);
  await context.request.patch(`${server.url}/api/settings`, {
    data: { activity: { enabled: true, retentionDays: 7 } },
    headers: { origin: server.url },
  });
}

test.after(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
  if (server) removeDirs(server.dirs);
});

test('type echo hi in the terminal and read it back; it fills the window and follows its size', async () => {
  await page.goto(`${server.url}/admin`);
  await page.getByRole('link', { name: 'Terminal' }).click();
  await page.getByText('Shell on the server').waitFor();
  await page.locator('.xterm').click();
  await page.keyboard.type('echo hi-$((40+2))');
  await page.keyboard.press('Enter');
  await waitFor(async () => /hi-42/.test(await screenText()), { what: 'hi-42 on the screen' });
  const frame = page.locator('.terminal-frame');
  const box = (await frame.boundingBox())!;
  assert.ok(
    Math.abs(box.y + box.height - (DESKTOP.height - 12)) <= 2,
    `the terminal ends at ${box.y + box.height}, the window at ${DESKTOP.height}`,
  );
  const cols = async () => (await page.locator('.xterm-rows > div').first().boundingBox())!.width;
  const wide = await cols();
  await page.setViewportSize({ width: 900, height: 600 });
  await waitFor(
    async () => {
      const b = (await frame.boundingBox())!;
      return Math.abs(b.y + b.height - 588) <= 2 && (await cols()) < wide;
    },
    { what: 'the terminal to follow the window' },
  );
  await page.keyboard.type('stty size');
  await page.keyboard.press('Enter');
  await waitFor(
    async () =>
      /\n\d+ (\d+)\s/.test(await screenText()) && Number(/\n\d+ (\d+)\s*\n/.exec(await screenText())?.[1] ?? 999) < 130,
    { what: 'the shell to see the new size' },
  );
  await shot(page, 'terminal-desktop');
  await page.setViewportSize(DESKTOP);
});

test('copy and paste: Ctrl+Shift+C copies the selection, Ctrl+Shift+V types it', async () => {
  await page.keyboard.type('echo copy-me-please');
  await page.keyboard.press('Enter');
  await waitFor(async () => (await screenText()).split('copy-me-please').length >= 3, { what: 'the echo' });
  await page.evaluate(() => navigator.clipboard.writeText(''));
  // A triple click selects the output line (xterm's own selection), Ctrl+Shift+C copies it.
  await page
    .locator('.xterm-rows > div')
    .filter({ hasText: /^copy-me-please\s*$/ })
    .click({ clickCount: 3, force: true });
  await page.keyboard.press('Control+Shift+C');
  await waitFor(async () => (await page.evaluate(() => navigator.clipboard.readText())).includes('copy-me-please'), {
    what: 'the selection on the clipboard',
  });
  await page.evaluate(() => navigator.clipboard.writeText('echo pasted-$((1+1))'));
  await page.locator('.xterm').click();
  await page.keyboard.press('Control+Shift+V');
  // The paste reads the clipboard asynchronously: Enter only once the text stands on the prompt.
  await waitFor(async () => (await screenText()).includes('echo pasted-$((1+1))'), {
    what: 'the pasted text on the prompt',
  });
  await page.keyboard.press('Enter');
  await waitFor(async () => /pasted-2/.test(await screenText()), { what: 'the pasted command to run' });
});

test('leaving the page ends the shell', async () => {
  const before = (
    (await (await context.request.get(`${server.url}/api/activity?action=terminal.end`)).json()) as { rows: unknown[] }
  ).rows.length;
  await page.goto(`${server.url}/admin/users`);
  await waitFor(
    async () =>
      (
        (await (await context.request.get(`${server.url}/api/activity?action=terminal.end`)).json()) as {
          rows: unknown[];
        }
      ).rows.length > before,
    { what: 'terminal.end on the activity log' },
  );
  assert.equal(problems, []);
});

test.run();

// Office editing from the browser, end to end: a stub editing server (WOPI discovery, and an
// editor page that calls back like a real one: CheckFileInfo → GetFile → Lock → PutFile →
// Unlock) beside the real server with the built UI. Double-clicking a .docx (and the menu's
// "Open in editor") opens the editor window; the page posts the access_token into the frame,
// the stub edits through the WOPI routes, and the file on disk is the edited one with the
// replaced content kept as a version. PUBLIC_URL is an address in front of Burrow (as behind a
// proxy), which the stub maps to the server.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { removeDirs, type TestServer } from '../support/server.ts';
import { DESKTOP, launch, newPage, setupAdmin, shot, startWithUi } from './browser.ts';

const PUBLIC = 'http://files.burrow.test';
let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let problems: string[];
let editorBase = '';
const calls: string[] = [];
const file = (name: string) => path.join(server.dirs.volumes, 'Files', name);

const escapeHtml = (t: string) => t.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

const editor = http.createServer(async (req, res) => {
  const url = new URL(req.url!, editorBase);
  if (url.pathname === '/hosting/discovery') {
    res.setHeader('Content-Type', 'text/xml');
    return res.end(`<?xml version="1.0" encoding="utf-8"?>
<wopi-discovery><net-zone name="external-http">
  <app name="writer"><action default="true" ext="docx" name="edit" urlsrc="${editorBase}/browser/cool.html?"/>
  <action ext="docx" name="view" urlsrc="${editorBase}/browser/cool.html?"/></app>
</net-zone></wopi-discovery>`);
  }
  if (url.pathname === '/browser/cool.html' && req.method === 'POST') {
    let form = '';
    for await (const c of req) form += c;
    const token = new URLSearchParams(form).get('access_token') ?? '';
    const src = url.searchParams.get('WOPISrc')!.replace(PUBLIC, server.url);
    const q = `?access_token=${encodeURIComponent(token)}`;
    const headers = (extra: Record<string, string> = {}) => ({
      origin: editorBase,
      authorization: `Bearer ${token}`,
      ...extra,
    });
    const info = (await (await fetch(src + q, { headers: headers() })).json()) as { BaseFileName: string };
    calls.push('CheckFileInfo');
    const before = await (await fetch(`${src}/contents${q}`, { headers: headers() })).text();
    calls.push('GetFile');
    await fetch(src + q, { method: 'POST', headers: headers({ 'X-WOPI-Override': 'LOCK', 'X-WOPI-Lock': 'e2e' }) });
    calls.push('Lock');
    const put = await fetch(`${src}/contents${q}`, {
      method: 'POST',
      headers: headers({ 'X-WOPI-Override': 'PUT', 'X-WOPI-Lock': 'e2e' }),
      body: `${before} + edited in the office editor`,
    });
    calls.push(`PutFile ${put.status}`);
    await fetch(src + q, { method: 'POST', headers: headers({ 'X-WOPI-Override': 'UNLOCK', 'X-WOPI-Lock': 'e2e' }) });
    calls.push('Unlock');
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    return res.end(
      `<!doctype html><title>stub editor</title><h1>Editing ${escapeHtml(info.BaseFileName)}</h1><p id="was">${escapeHtml(before)}</p>`,
    );
  }
  res.statusCode = 404;
  res.end();
});

test.before(async () => {
  try {
    await new Promise<void>((r) => editor.listen(0, '127.0.0.1', r));
    editorBase = `http://127.0.0.1:${(editor.address() as AddressInfo).port}`;
    server = await startWithUi({
      PUBLIC_URL: PUBLIC,
      OFFICEEDITOR_URL: editorBase,
      OFFICEEDITOR_SECRET: 'wopi-secret-for-the-e2e-test-0123456789',
    });
    ({ browser } = await launch());
    const p = await newPage(browser, DESKTOP);
    context = p.context;
    page = p.page;
    problems = p.problems;
    await setupAdmin(context, server.url);
    fs.writeFileSync(file('report.docx'), 'the first draft');
  } catch (err) {
    console.error(err);
    throw err;
  }
});

test.after(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
  editor.close();
  if (server) removeDirs(server.dirs);
});

test('double-click a .docx: the office editor opens, edits through WOPI, the old content is a version', async () => {
  await page.goto(`${server.url}/files/Files`);
  await page.locator('.entry[data-name="report.docx"]').dblclick();
  const win = page.getByRole('dialog', { name: 'report.docx in the office editor' });
  await win.waitFor();
  const frame = page.frameLocator('iframe[name="office-frame"]');
  await frame.getByRole('heading', { name: 'Editing report.docx' }).waitFor();
  assert.is(await frame.locator('#was').innerText(), 'the first draft');
  assert.equal(calls, ['CheckFileInfo', 'GetFile', 'Lock', 'PutFile 200', 'Unlock']);
  assert.is(fs.readFileSync(file('report.docx'), 'utf8'), 'the first draft + edited in the office editor');
  const versions = await (await context.request.get(`${server.url}/api/versions?path=Files%2Freport.docx`)).json();
  assert.is(versions.items.length, 1, 'the replaced content is kept');
  // The token travelled in a form post, never in an address the page shows.
  assert.not.match(page.url(), /access_token/);
  await shot(page, 'office-editor-desktop');
  await win.getByRole('button', { name: 'Close' }).click();
  await win.waitFor({ state: 'detached' });
});

test('"Open in editor" in the menu opens the same editor; other files open in the viewer', async () => {
  const entry = page.locator('.entry[data-name="report.docx"]');
  await entry.click({ button: 'right' });
  await page.getByRole('menuitem', { name: 'Open in editor' }).click();
  const frame = page.frameLocator('iframe[name="office-frame"]');
  await frame.getByRole('heading', { name: 'Editing report.docx' }).waitFor();
  await page.keyboard.press('Escape');
  await page.getByRole('dialog', { name: 'report.docx in the office editor' }).waitFor({ state: 'detached' });
  fs.writeFileSync(file('notes.txt'), 'plain text');
  await page.reload();
  await page.locator('.entry[data-name="notes.txt"]').dblclick();
  await page.locator('.viewer').waitFor();
  assert.is(await page.locator('iframe[name="office-frame"]').count(), 0);
  assert.equal(problems, []);
});

test.run();

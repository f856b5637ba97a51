// Shared pieces of the browser tests: the built UI (built here when missing, as on a clean
// clone), a Burrow with that UI, and Debian's Chromium driven by playwright-core.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import type { SearchItem } from '../../src/search/wire.ts';
import { startServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

export const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
export const uiDir = path.join(repo, 'ui', 'dist');
export const artifacts = path.join(repo, 'test', '.artifacts');

/** Newest modification time of the UI's sources (a build older than that is stale). */
function newestSource(dir: string): number {
  let newest = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestSource(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

export function ensureUiBuilt(): void {
  const built = path.join(uiDir, 'index.html');
  const sources = Math.max(
    newestSource(path.join(repo, 'ui', 'src')),
    newestSource(path.join(repo, 'ui', 'public')),
    fs.statSync(path.join(repo, 'ui', 'index.html')).mtimeMs,
    fs.statSync(path.join(repo, 'ui', 'vite.config.ts')).mtimeMs,
  );
  if (fs.existsSync(built) && fs.statSync(built).mtimeMs >= sources) return;
  execFileSync(
    process.execPath,
    [
      path.join(repo, 'node_modules', 'vite', 'bin', 'vite.js'),
      'build',
      'ui',
      '--config',
      'ui/vite.config.ts',
      '--logLevel',
      'warn',
    ],
    { cwd: repo, stdio: 'inherit' },
  );
}

export async function startWithUi(env: Record<string, string> = {}, volumes?: string[]): Promise<TestServer> {
  ensureUiBuilt();
  return startServer({ uiDir, env, volumes });
}

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * playwright's launch() always starts Chromium on a fresh temporary profile of its own. `env`: the
 * browser's environment (HOME holds the NSS store of the certificate authorities it trusts).
 */
export async function launch(
  extraArgs: string[] = [],
  env?: NodeJS.ProcessEnv,
): Promise<{ browser: Browser; profile: string }> {
  const profile = '';
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    ...(env ? { env } : {}),
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
      ...extraArgs,
    ],
  });
  return { browser, profile };
}

/** Chromium's virtual authenticator (a platform passkey that answers at once) on the page. */
export async function addVirtualAuthenticator(context: BrowserContext, page: Page): Promise<void> {
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
}

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 360, height: 740 };

export async function newPage(
  browser: Browser,
  viewport = DESKTOP,
  /** More of the context: a phone's touch (`hasTouch`, `isMobile`). */
  more: BrowserContextOptions = {},
): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1, acceptDownloads: true, ...more });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('dialog', (d) => {
    problems.push(`unexpected browser dialog: ${d.message()}`);
    void d.dismiss();
  });
  page.setDefaultTimeout(15_000);
  return { context, page, problems };
}

export async function shot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: path.join(artifacts, `${name}.png`) });
}

/** Setup through the page's own request context, so the browser holds the session cookie. */
export async function setupAdmin(
  context: BrowserContext,
  url: string,
  email = 'admin@example.org',
  password = 'correct horse battery',
): Promise<void> {
  const res = await context.request.post(`${url}/api/auth/setup`, { data: { email, password } });
  if (res.status() !== 201) throw new Error(`setup answered ${res.status()}: ${await res.text()}`);
}

/**
 * Waits until the server's search finds `name` for `term`, as the page's session sees it: the
 * index learns of a write in the background (behind the load gate, seconds on a busy machine), and
 * a search page shows what the index had when it asked.
 */
export async function searchFinds(page: Page, url: string, term: string, name: string): Promise<void> {
  await waitFor(
    async () => {
      const res = await page.context().request.get(`${url}/api/search?q=${encodeURIComponent(term)}`);
      return ((await res.json()) as { items: SearchItem[] }).items.some((i) => i.name === name);
    },
    { what: `the server's search to find ${name} for "${term}"`, timeoutMs: 60_000 },
  );
}

export async function hasRoute(url: string, method: string, routePath: string): Promise<boolean> {
  const doc = (await (await fetch(`${url}/api/openapi.json`)).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  return Boolean(doc.paths[routePath]?.[method.toLowerCase()]);
}

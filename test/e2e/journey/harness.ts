// The journey harness: a first-time user's journeys through the executable (dist/burrow-linux-x64,
// which serves its embedded UI) in Chromium, on the world's data (test/support/world.ts), at two
// sizes — desktop 1366×768 with a mouse, phone 390×844 with touch (hasTouch, isMobile, taps).
//
// A journey file (test/e2e/journey/<name>.test.ts, or test/e2e/journey-<area>.test.ts) is a list
// of named steps, run in order once per size, each size on its own fresh server and browser
// context:
//
//   import { journey, W } from './journey/harness.ts';     // from test/e2e/journey-<area>.test.ts
//   const j = journey(import.meta.url);                     // options below
//   j.step('search finds the song by its name', async (s) => {
//     await s.goto(`/files/Home/${...}`);                  // s.url(rel) for a full address
//     await s.search('Morning Tune');                      // a user's own input, typed
//     await s.tap(s.page.getByRole('button', { name: 'Open folder' }));   // click, or a touch tap
//     const hits = await s.api('GET', '/api/search?q=Morning%20Tune');    // the session's cookie
//     assert.ok(s.exists(W.song));                         // the disk under the Home volume
//   });
//   j.step('…', fn, { needs: ['search finds the song by its name'] });   // not run when that failed
//   j.run();                                                // instead of test.run()
//
// journey(file, options): `setup` is what stands before the first step — 'home' (default): the
// administrator (ADMIN) is signed in and the world is a host folder added as the volume "Home";
// 'admin': the administrator only, the world on disk at s.home but not added; 'none': a fresh
// installation (the setup page), the world on disk. `env`: the server's extra environment.
// BURROW_JOURNEY_SIZES=desktop (or phone) runs one size while working on a journey.
//
// What a step gets (s):
//   s.size        { name: 'desktop' | 'phone', viewport, touch }
//   s.page, s.context, s.browser, s.server (TestServer: logs, dirs, restart…)
//   s.base        the address the browser uses (http://localhost:<port>)
//   s.home        the world's folder on disk; s.disk(rel) its absolute path, s.read(rel), s.exists(rel)
//   s.goto(addr), s.url(addr)     an address of the app ('/files/Home/Photos')
//   s.tap(locator)                a click at desktop, a touch tap at phone
//   s.open(locator)               what opens an entry: a double click at desktop, one tap at phone
//   s.entry(name)                 the folder view's entry (scrolled into the list when virtualised)
//   s.folder('Home/Photos')       waits for the folder view of that virtual path
//   s.api(method, path, body?)    the API as this browser's session (JSON in, {status, json, text})
//   s.eventually(what, check)     waits until a server-side (or page) fact holds, or fails naming it
//   s.download(action)            runs an action that downloads; {name, bytes, file}
//   s.zipNames(bytes)             every entry name of a zip in order, duplicates kept (yauzl),
//                                  checked against `unzip -Z1`'s list
//   s.anonymous()                 a fresh context of the same size with no session (a link holder)
//   s.problems                    the page's errors and console errors so far
//   s.signIn(), ADMIN             the administrator's credentials
//
// Every step checks, after it ran, that the page threw no uncaught error and the server logged no
// error line during it. A failing step saves test/.artifacts/journey/<file>/<size>/<step>.png and
// <step>.txt (the error, the address, the page's console problems, the server's error lines).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import yauzl from 'yauzl';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { makeWorld } from '../../support/world.ts';
import { removeDirs, serverMode, startServer, type TestServer } from '../../support/server.ts';
import { artifacts, ensureUiBuilt, launch, uiDir } from '../browser.ts';

export { W, NAME_255, DEEP_FOLDERS, listTree } from '../../support/world.ts';

export interface Size {
  name: 'desktop' | 'phone';
  viewport: { width: number; height: number };
  touch: boolean;
}
export const DESKTOP: Size = { name: 'desktop', viewport: { width: 1366, height: 768 }, touch: false };
export const PHONE: Size = { name: 'phone', viewport: { width: 390, height: 844 }, touch: true };
export const SIZES = [DESKTOP, PHONE];

export const ADMIN = { email: 'ada@example.org', username: 'ada', password: 'a long and good password' };
/** The volume name the world is added under. */
export const HOME = 'Home';

export interface ApiAnswer {
  status: number;
  text: string;
  json: any;
  headers: Record<string, string>;
}

export interface Step {
  readonly size: Size;
  readonly server: TestServer;
  readonly browser: Browser;
  readonly context: BrowserContext;
  readonly page: Page;
  readonly base: string;
  readonly home: string;
  readonly problems: string[];
  url(address: string): string;
  goto(address: string): Promise<void>;
  disk(rel: string): string;
  read(rel: string): string;
  exists(rel: string): boolean;
  tap(target: Locator): Promise<void>;
  open(target: Locator): Promise<void>;
  entry(name: string): Promise<Locator>;
  folder(virtualPath: string): Promise<Locator>;
  api(method: string, address: string, body?: unknown): Promise<ApiAnswer>;
  eventually(what: string, check: () => Promise<boolean> | boolean, ms?: number): Promise<void>;
  download(action: () => Promise<unknown>): Promise<{ name: string; bytes: Buffer; file: string }>;
  zipNames(bytes: Buffer): Promise<string[]>;
  anonymous(): Promise<{ context: BrowserContext; page: Page; problems: string[] }>;
  signIn(page?: Page): Promise<void>;
}

export interface JourneyOptions {
  setup?: 'home' | 'admin' | 'none';
  env?: Record<string, string>;
}

interface StepDef {
  name: string;
  fn: (s: Step) => Promise<void>;
  needs: string[];
}

const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..', '..');

/** `selector` attribute value quoted for CSS (names carry quotes and backslashes). */
export const cssString = (s: string) => `"${s.replace(/["\\]/g, '\\$&').replace(/\n/g, '\\a ')}"`;

/** The address of a folder or file of the app: each segment percent-encoded as the UI does. */
export const filesAddress = (...segments: string[]) =>
  `/files/${segments
    .flatMap((s) => s.split('/'))
    .map(encodeURIComponent)
    .join('/')}`;

const slug = (s: string) =>
  s
    .normalize('NFKD')
    .replace(/[^\w\s-]/g, '')
    .trim()
    .replace(/\s+/g, '-')
    .toLowerCase()
    .slice(0, 80) || 'step';

export function journey(
  file: string,
  options: JourneyOptions = {},
): {
  step(name: string, fn: (s: Step) => Promise<void>, opts?: { needs?: string[] }): void;
  run(): void;
} {
  const fileName = path.basename(new URL(file).pathname).replace(/\.test\.ts$/, '');
  const steps: StepDef[] = [];
  const setup = options.setup ?? 'home';
  const wanted = (process.env.BURROW_JOURNEY_SIZES ?? 'desktop,phone').split(',').map((x) => x.trim());
  const sizes = SIZES.filter((z) => wanted.includes(z.name));
  if (!sizes.length) throw new Error(`BURROW_JOURNEY_SIZES names no size (desktop, phone): ${wanted.join(',')}`);

  let browser: Browser | undefined;
  let live: Live | undefined;

  return {
    step(name, fn, opts = {}) {
      if (steps.some((s) => s.name === name)) throw new Error(`two steps named "${name}"`);
      for (const n of opts.needs ?? [])
        if (!steps.some((s) => s.name === n)) throw new Error(`step "${name}" needs "${n}", which is not before it`);
      steps.push({ name, fn, needs: opts.needs ?? [] });
    },
    run() {
      test.before(async () => {
        ({ browser } = await launch());
        console.log(`  journey ${fileName} against the ${serverMode === 'executable' ? 'executable' : 'source'}`);
      });
      test.after(async () => {
        await live?.close();
        await browser?.close();
      });
      for (const size of sizes) {
        const failed = new Set<string>();
        let broken: string | undefined;
        steps.forEach((def, i) => {
          test(`${size.name} · ${def.name}`, async () => {
            if (i === 0) {
              await live?.close();
              live = undefined;
              try {
                live = await startLive(browser!, size, setup, options.env ?? {});
              } catch (err) {
                broken = `the ${size.name} journey could not start: ${(err as Error).message}`;
                throw err;
              }
            }
            if (broken || !live) throw new Error(broken ?? 'not started');
            const missing = def.needs.filter((n) => failed.has(n));
            if (missing.length) {
              failed.add(def.name);
              throw new Error(`not run: it needs ${missing.map((m) => `"${m}"`).join(', ')}, which failed`);
            }
            try {
              await live.runStep(def, fileName);
            } catch (err) {
              failed.add(def.name);
              throw err;
            } finally {
              if (i === steps.length - 1) {
                await live?.close();
                live = undefined;
              }
            }
          });
        });
      }
      test.run();
    },
  };
}

interface Live {
  runStep(def: StepDef, fileName: string): Promise<void>;
  close(): Promise<void>;
}

async function startLive(
  browser: Browser,
  size: Size,
  setup: 'home' | 'admin' | 'none',
  env: Record<string, string>,
): Promise<Live> {
  if (serverMode !== 'executable') ensureUiBuilt();
  const server = await startServer({ uiDir, env, volumes: ['Files'] });
  const home = path.join(server.dirs.root, 'Ada Lovelace');
  await makeWorld(home);
  const base = server.url.replace('127.0.0.1', 'localhost');
  const contexts: BrowserContext[] = [];
  const newContext = async () => {
    const context = await browser.newContext({
      viewport: size.viewport,
      deviceScaleFactor: 1,
      hasTouch: size.touch,
      isMobile: size.touch,
      acceptDownloads: true,
    });
    contexts.push(context);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console error: ${m.text()} (${m.location().url})`);
    });
    page.on('dialog', (d) => {
      problems.push(`page error: an unexpected browser dialog: ${d.message()}`);
      void d.dismiss();
    });
    page.setDefaultTimeout(15_000);
    page.setDefaultNavigationTimeout(30_000);
    return { context, page, problems };
  };
  const main = await newContext();
  const { context, page, problems } = main;

  const api = async (method: string, address: string, body?: unknown): Promise<ApiAnswer> => {
    const res = await context.request.fetch(`${base}${address}`, {
      method,
      headers: method === 'GET' || method === 'HEAD' ? {} : { origin: base },
      ...(body === undefined ? {} : { data: body as any }),
    });
    const text = await res.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status(), text, json, headers: res.headers() };
  };
  const must = async (method: string, address: string, body?: unknown) => {
    const r = await api(method, address, body);
    if (r.status >= 300) throw new Error(`${method} ${address} answered ${r.status}: ${r.text.slice(0, 500)}`);
    return r;
  };
  if (setup !== 'none') await must('POST', '/api/auth/setup', { email: ADMIN.email, password: ADMIN.password });
  if (setup === 'home') await must('POST', '/api/admin/volumes', { label: HOME, path: home, accessMode: 'readwrite' });

  const disk = (rel: string) => path.join(home, ...rel.split('/'));
  const step: Step = {
    size,
    server,
    browser,
    context,
    page,
    base,
    home,
    problems,
    url: (address) => `${base}${address}`,
    async goto(address) {
      await page.goto(`${base}${address}`);
    },
    disk,
    read: (rel) => fs.readFileSync(disk(rel), 'utf8'),
    exists: (rel) => fs.existsSync(disk(rel)),
    async tap(target) {
      if (size.touch) await target.tap();
      else await target.click();
    },
    async open(target) {
      if (size.touch) await target.tap();
      else await target.dblclick();
    },
    async entry(name) {
      const entry = page.locator(`.entry[data-name=${cssString(name)}]`);
      const scroller = page.locator('.file-area .scroller');
      await scroller.waitFor();
      // The list is virtualised: scroll until the entry is rendered (or the end is reached).
      await scroller.evaluate((el) => el.scrollTo(0, 0));
      for (;;) {
        if (await entry.count()) {
          await entry.scrollIntoViewIfNeeded();
          return entry;
        }
        const moved = await scroller.evaluate((el) => {
          const before = el.scrollTop;
          el.scrollTop += el.clientHeight * 0.8;
          return el.scrollTop !== before;
        });
        if (!moved) {
          await entry.waitFor({ timeout: 5000 });
          return entry;
        }
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(null))));
      }
    },
    async folder(virtualPath) {
      const region = page.getByRole('region', { name: `Folder ${virtualPath}`, exact: true });
      await region.waitFor();
      return region;
    },
    api,
    async eventually(what, check, ms = 15_000) {
      const until = Date.now() + ms;
      for (;;) {
        if (await check()) return;
        if (Date.now() > until) throw new Error(`timed out (${ms} ms) waiting for: ${what}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async download(action) {
      const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), action()]);
      const file = await dl.path();
      if (!file) throw new Error(`the download of ${dl.suggestedFilename()} failed: ${await dl.failure()}`);
      return { name: dl.suggestedFilename(), bytes: fs.readFileSync(file), file };
    },
    zipNames,
    async anonymous() {
      return newContext();
    },
    async signIn(p = page) {
      await p.getByLabel('Email or username').fill(ADMIN.email);
      await p.getByLabel('Password').fill(ADMIN.password);
      await p.getByRole('button', { name: 'Sign in', exact: true }).click();
      await p.getByRole('heading', { name: 'Sign in' }).waitFor({ state: 'detached' });
    },
  };

  return {
    async runStep(def, fileName) {
      const problemsBefore = problems.length;
      const logsBefore = server.logs.length;
      try {
        await def.fn(step);
        const thrown = problems.slice(problemsBefore).filter((p) => p.startsWith('page error'));
        if (thrown.length) throw new Error(`the page failed during the step:\n${thrown.join('\n')}`);
        await server.settleLogs();
        const errors = server.logs.slice(logsBefore).filter((l) => l.level === 'error');
        if (errors.length)
          throw new Error(
            `the server logged errors during the step:\n${errors.map((l) => JSON.stringify(l)).join('\n')}`,
          );
      } catch (err) {
        const dir = path.join(artifacts, 'journey', fileName, size.name);
        fs.mkdirSync(dir, { recursive: true });
        const name = slug(def.name);
        await page.screenshot({ path: path.join(dir, `${name}.png`), timeout: 10_000 }).catch(() => undefined);
        const serverErrors = server.logs.slice(logsBefore).filter((l) => l.level === 'error' || l.level === 'warn');
        fs.writeFileSync(
          path.join(dir, `${name}.txt`),
          [
            `step: ${def.name} (${size.name} ${size.viewport.width}×${size.viewport.height})`,
            `address: ${page.url()}`,
            `error: ${(err as Error).stack ?? err}`,
            `page problems during the step:\n${problems.slice(problemsBefore).join('\n') || '(none)'}`,
            `server warnings and errors during the step:\n${serverErrors.map((l) => JSON.stringify(l)).join('\n') || '(none)'}`,
          ].join('\n\n') + '\n',
        );
        throw new Error(
          `${(err as Error).message}\n  (screenshot: ${path.relative(repo, path.join(dir, `${name}.png`))})`,
          { cause: err },
        );
      }
    },
    async close() {
      for (const c of contexts) await c.close().catch(() => undefined);
      await server.close();
      removeDirs(server.dirs);
    },
  };
}

/** Every entry name of a zip, in order, duplicates kept (yauzl); `unzip -Z1` must list the same. */
export async function zipNames(bytes: Buffer): Promise<string[]> {
  const names = await new Promise<string[]>((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true, decodeStrings: true }, (err, zip) => {
      if (err) return reject(err);
      const out: string[] = [];
      zip.on('entry', (e: yauzl.Entry) => {
        out.push(e.fileName);
        zip.readEntry();
      });
      zip.on('end', () => resolve(out));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-journey-zip-'));
  try {
    const file = path.join(tmp, 'check.zip');
    fs.writeFileSync(file, bytes);
    const r = spawnSync('unzip', ['-Z1', file], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`unzip -Z1 refused the zip: ${r.stderr || r.stdout}`);
    const listed = r.stdout.split('\n').filter(Boolean);
    if (JSON.stringify(listed) !== JSON.stringify(names))
      throw new Error(`unzip lists ${JSON.stringify(listed)}, yauzl ${JSON.stringify(names)}`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return names;
}

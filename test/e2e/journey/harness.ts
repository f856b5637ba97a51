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
// `serviceWorkers: 'block'`: no service worker in its browsers (a journey that holds or slows
// requests by page.route or DevTools and is not about the worker: a page under the worker's
// control sends its requests past both; upload-queue's gate.ts holds them for a worker's page).
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
//   s.select(...entries)          selects them as a user does: click then Ctrl+click at desktop; a
//                                  long press then taps at phone
//   s.itemMenu(name)              an entry's menu: a right click at desktop, its ⋮ button at phone
//   s.longPress(locator, until?)  a finger held on it until `until()` holds (default: it is selected)
//   s.entry(name)                 the folder view's entry (scrolled into the list when virtualised)
//   s.folder('Home/Photos')       waits for the folder view of that virtual path
//   s.openFile(W.landscape)       opens a file of the Home volume as a user does (its folder's
//                                  address, then open on its entry); the viewer dialog
//   textContrast(locator)         its text's WCAG contrast ratio against what is behind it
//   s.colourAt(x, y)              the colour on the screen at a point of the window: [r, g, b]
//   pictureShown(img)             where a picture is drawn and what of it is visible (object-fit,
//                                  every clipping ancestor and the window counted)
//   s.api(method, path, body?)    the API as this browser's session (JSON in, {status, json, text})
//   s.eventually(what, check)     waits until a server-side (or page) fact holds, or fails naming it
//   s.download(action)            runs an action that downloads; {name, bytes, file}
//   onDisk(name, bytes)           a file on the user's own disk (not the server's), to pick in a file chooser
//   partFiles(s)                  part files of uploads under way or left behind in the server's folders
//   s.upload(files)               the folder toolbar's Upload button, those files picked in its chooser
//   s.decoded(img, ms?)           waits until an <img> has its picture loaded and decoded
//   s.zipNames(bytes)             every entry name of a zip in order, duplicates kept (yauzl),
//                                  checked against `unzip -Z1`'s list
//   s.anonymous()                 a fresh context of the same size with no session (a link holder)
//   s.problems                    the page's errors and console errors so far
//   s.signIn(), ADMIN             the administrator's credentials
//
// Every step checks, after it ran, that the page threw no uncaught error and the server logged no
// error line during it. A failing step saves test/.artifacts/journey/<file>/<size>/<step>.png and
// <step>.txt (the error, the address, the page's console problems, the server's error lines), and
// <step>.visitor-N.png of each anonymous browser it opened.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import yauzl from 'yauzl';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { makeWorld } from '../../support/world.ts';
import { removeDirs, serverMode, startServer, type TestServer } from '../../support/server.ts';
import { artifacts, ensureUiBuilt, launch, uiDir } from '../browser.ts';
import { waitFor } from '../../support/wait.ts';

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

/** The API as a browser context's session (its cookies; a same-origin Origin on writes). */
export function contextApi(
  context: BrowserContext,
  base: string,
): (method: string, address: string, body?: unknown) => Promise<ApiAnswer> {
  return async (method, address, body) => {
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
  longPress(target: Locator, until?: () => Promise<boolean>): Promise<void>;
  select(...targets: Locator[]): Promise<void>;
  itemMenu(name: string): Promise<Locator>;
  open(target: Locator): Promise<void>;
  entry(name: string): Promise<Locator>;
  folder(virtualPath: string): Promise<Locator>;
  openFile(rel: string): Promise<Locator>;
  colourAt(x: number, y: number): Promise<[number, number, number]>;
  api(method: string, address: string, body?: unknown): Promise<ApiAnswer>;
  eventually(what: string, check: () => Promise<boolean> | boolean, ms?: number): Promise<void>;
  download(action: () => Promise<unknown>): Promise<{ name: string; bytes: Buffer; file: string }>;
  upload(files: string[]): Promise<void>;
  decoded(img: Locator, ms?: number): Promise<void>;
  zipNames(bytes: Buffer): Promise<string[]>;
  anonymous(): Promise<{ context: BrowserContext; page: Page; problems: string[] }>;
  signIn(page?: Page): Promise<void>;
}

export interface JourneyOptions {
  setup?: 'home' | 'admin' | 'none';
  env?: Record<string, string>;
  /**
   * 'block': the browser contexts run no service worker. For a journey that holds or slows the
   * page's requests (page.route, DevTools network emulation) and is not about the service worker:
   * a page under its worker's control sends requests past both.
   */
  serviceWorkers?: 'allow' | 'block';
}

interface StepDef {
  name: string;
  fn: (s: Step) => Promise<void>;
  needs: string[];
}

const image = createRequire(import.meta.url)('@napi-rs/image') as {
  Transformer: new (input: Buffer) => { rawPixels(): Promise<Buffer> };
};
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
                live = await startLive(browser!, size, setup, options.env ?? {}, options.serviceWorkers ?? 'allow');
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
            const started = Date.now();
            let ok = false;
            try {
              await live.runStep(def, fileName);
              ok = true;
            } catch (err) {
              failed.add(def.name);
              throw err;
            } finally {
              console.log(
                `  ${ok ? 'ok' : 'FAILED'}  ${size.name} · ${def.name} (${((Date.now() - started) / 1000).toFixed(1)} s)`,
              );
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
  serviceWorkers: 'allow' | 'block',
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
      serviceWorkers,
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
  /** The anonymous browsers opened during the step under way. */
  const visitors: { page: Page; problems: string[] }[] = [];
  const { context, page, problems } = main;

  const api = contextApi(context, base);
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
      await page.goto(`${base}${address}`, { waitUntil: 'domcontentloaded' });
    },
    disk,
    read: (rel) => fs.readFileSync(disk(rel), 'utf8'),
    exists: (rel) => fs.existsSync(disk(rel)),
    async tap(target) {
      if (size.touch) await target.tap();
      else await target.click();
    },
    async longPress(target, until) {
      const box = await target.boundingBox();
      if (!box) throw new Error('a long press on something not on the screen');
      const cdp = await context.newCDPSession(page);
      const point = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
      const selected = async () => (await target.getAttribute('aria-selected')) === 'true';
      try {
        await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [point] });
        // Held until what a long press does has happened (by default: the entry is selected).
        await step.eventually('the long press to take effect', until ?? selected, 5000);
      } finally {
        await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
        await cdp.detach();
      }
    },
    async select(...targets) {
      for (const [i, target] of targets.entries()) {
        if (size.touch) {
          if (i === 0) await step.longPress(target);
          else await target.tap();
        } else if (i === 0) await target.click();
        else await target.click({ modifiers: ['ControlOrMeta'] });
        await step.eventually(
          'the entry to be selected',
          async () => (await target.getAttribute('aria-selected')) === 'true',
          5000,
        );
      }
    },
    async itemMenu(name) {
      const entry = await step.entry(name);
      if (size.touch) await entry.getByRole('button', { name: `Actions for ${name}` }).tap();
      else await entry.click({ button: 'right' });
      const menu = page.getByRole('menu');
      await menu.waitFor();
      return menu;
    },
    async open(target) {
      if (size.touch) await target.tap();
      else await target.dblclick();
    },
    async entry(name) {
      const entry = page.locator(`.entry[data-name=${cssString(name)}]`);
      const scroller = page.locator('.file-area .scroller');
      await scroller.locator('.entry').first().waitFor();
      // The list is virtualised: in the page (one round trip), a search by name order (the
      // usual sort) jumps near the entry; else a screenful at a time from the top, until it is
      // rendered or the end is reached. Then it is waited for.
      await scroller.evaluate(async (el, wanted) => {
        const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        const names = () => [...el.querySelectorAll('.entry')].map((e) => e.getAttribute('data-name') ?? '');
        const order = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
        let lo = 0;
        let hi = el.scrollHeight;
        for (let i = 0; i < 30 && hi - lo > 1; i++) {
          el.scrollTop = (lo + hi) / 2;
          await frame();
          const seen = names();
          if (seen.includes(wanted) || !seen.length) return;
          if (order.compare(wanted, seen[0]!) < 0) hi = el.scrollTop;
          else if (order.compare(wanted, seen[seen.length - 1]!) > 0) lo = el.scrollTop + 1;
          else break;
        }
        el.scrollTop = 0;
        await frame();
        while (!names().includes(wanted)) {
          const before = el.scrollTop;
          el.scrollTop += Math.max(1, el.clientHeight - 8);
          await frame();
          if (el.scrollTop === before) break;
        }
      }, name);
      await entry.waitFor({ timeout: 5000 });
      await entry.scrollIntoViewIfNeeded();
      return entry;
    },
    async folder(virtualPath) {
      const region = page.getByRole('region', { name: `Folder ${virtualPath}`, exact: true });
      await region.waitFor();
      return region;
    },
    async openFile(rel) {
      const at = rel.lastIndexOf('/');
      const folder = at < 0 ? HOME : `${HOME}/${rel.slice(0, at)}`;
      const name = rel.slice(at + 1);
      await page.goto(`${base}${filesAddress(folder)}`, { waitUntil: 'domcontentloaded' });
      await step.folder(folder);
      await step.open(await step.entry(name));
      const viewer = page.getByRole('dialog', { name: `Viewer: ${name}`, exact: true });
      await viewer.waitFor();
      return viewer;
    },
    async colourAt(x, y) {
      const shot = await page.screenshot({ clip: { x: Math.round(x), y: Math.round(y), width: 1, height: 1 } });
      const px = await new image.Transformer(shot).rawPixels();
      return [px[0]!, px[1]!, px[2]!];
    },
    api,
    async eventually(what, check, ms = 15_000) {
      await waitFor(check, { what, timeoutMs: ms });
    },
    async download(action) {
      const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), action()]);
      const file = await dl.path();
      if (!file) throw new Error(`the download of ${dl.suggestedFilename()} failed: ${await dl.failure()}`);
      return { name: dl.suggestedFilename(), bytes: fs.readFileSync(file), file };
    },
    async upload(files) {
      const chooser = page.waitForEvent('filechooser');
      await step.tap(
        page.getByRole('toolbar', { name: 'Folder actions' }).getByRole('button', { name: 'Upload', exact: true }),
      );
      await (await chooser).setFiles(files);
    },
    async decoded(img, ms = 15_000) {
      await waitFor(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0), {
        what: 'the picture to be decoded',
        timeoutMs: ms,
      });
    },
    zipNames,
    async anonymous() {
      const visitor = await newContext();
      visitors.push(visitor);
      return visitor;
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
      visitors.length = 0;
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
        // And each other browser of the step (a link holder's): <step>.visitor-N.png.
        for (const [i, other] of visitors.splice(0).entries())
          await other.page
            .screenshot({ path: path.join(dir, `${name}.visitor-${i + 1}.png`), timeout: 10_000 })
            .catch(() => undefined);
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

let picks: string | undefined;
/** A file on the user's own disk (not the server's), to pick in a file chooser: a folder of its own each. */
/** Part files of uploads under way or left behind, anywhere in the server's folders. */
export function partFiles(s: Step): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/^(tus|mp)-.*\.part$|^\.burrow-tmp/.test(e.name)) out.push(p);
    }
  };
  walk(s.server.dirs.root);
  return out;
}

export function onDisk(name: string, bytes: Buffer | string): string {
  if (!picks) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-journey-picks-'));
    process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    picks = dir;
  }
  const dir = fs.mkdtempSync(path.join(picks, 'pick-'));
  fs.writeFileSync(path.join(dir, name), bytes);
  return path.join(dir, name);
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}
/**
 * Where an <img> draws its picture (its content box under object-fit, centred) and the part of the
 * window that can show it (the viewport cut by every ancestor that clips). `whole` says the
 * drawn picture lies inside that area (1 px of rounding allowed) and is not cut by object-fit.
 */
export async function pictureShown(
  img: Locator,
): Promise<{ natural: { width: number; height: number }; drawn: Rect; visible: Rect; fit: string; whole: boolean }> {
  return img.evaluate((el: HTMLImageElement) => {
    const r = el.getBoundingClientRect();
    const cs = getComputedStyle(el);
    const px = (v: string) => parseFloat(v) || 0;
    const scaleX = el.offsetWidth ? r.width / el.offsetWidth : 1;
    const scaleY = el.offsetHeight ? r.height / el.offsetHeight : 1;
    const left = r.left + (px(cs.borderLeftWidth) + px(cs.paddingLeft)) * scaleX;
    const top = r.top + (px(cs.borderTopWidth) + px(cs.paddingTop)) * scaleY;
    const w =
      r.width - (px(cs.borderLeftWidth) + px(cs.paddingLeft) + px(cs.borderRightWidth) + px(cs.paddingRight)) * scaleX;
    const h =
      r.height - (px(cs.borderTopWidth) + px(cs.paddingTop) + px(cs.borderBottomWidth) + px(cs.paddingBottom)) * scaleY;
    const nw = el.naturalWidth;
    const nh = el.naturalHeight;
    const fit = cs.objectFit;
    let dw = w;
    let dh = h;
    if (fit === 'contain' || fit === 'scale-down' || fit === 'cover' || fit === 'none') {
      const k =
        fit === 'cover'
          ? Math.max(w / nw, h / nh)
          : fit === 'none'
            ? scaleX
            : Math.min(w / nw, h / nh, fit === 'scale-down' ? scaleX : Infinity);
      dw = nw * k;
      dh = nh * k;
    }
    const drawn = { x: left + (w - dw) / 2, y: top + (h - dh) / 2, width: dw, height: dh };
    let L = 0;
    let T = 0;
    let R = window.innerWidth;
    let B = window.innerHeight;
    for (let a = el.parentElement; a; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
      const b = a.getBoundingClientRect();
      L = Math.max(L, b.left);
      T = Math.max(T, b.top);
      R = Math.min(R, b.right);
      B = Math.min(B, b.bottom);
    }
    const visible = { x: L, y: T, width: Math.max(0, R - L), height: Math.max(0, B - T) };
    const inside =
      drawn.x >= L - 1 && drawn.y >= T - 1 && drawn.x + drawn.width <= R + 1 && drawn.y + drawn.height <= B + 1;
    // Drawn beyond its own box (cover, none) is cut by the box itself.
    const inBox = dw <= w + 1 && dh <= h + 1;
    return { natural: { width: nw, height: nh }, drawn, visible, fit, whole: inside && inBox };
  });
}

/**
 * The contrast ratio (WCAG 2: 1 to 21) of an element's text against what is painted behind it
 * (the backgrounds of it and its ancestors composed, the page's as the last).
 */
export async function textContrast(target: Locator): Promise<{ ratio: number; text: string; background: string }> {
  return target.evaluate((el) => {
    const parse = (c: string): number[] => {
      const m = c.match(/rgba?\(([^)]+)\)/);
      if (!m) return [0, 0, 0, 0];
      const p = m[1]!
        .split(/[ ,/]+/)
        .filter(Boolean)
        .map(Number);
      return [p[0]!, p[1]!, p[2]!, p[3] ?? 1];
    };
    const layers: number[][] = [];
    for (let a: Element | null = el; a; a = a.parentElement) {
      const bg = parse(getComputedStyle(a).backgroundColor);
      if (bg[3]! > 0) layers.push(bg);
      if (bg[3] === 1) break;
    }
    let under = [255, 255, 255];
    for (const [r, g, b, alpha] of layers.reverse())
      under = [r!, g!, b!].map((v, i) => v * alpha! + under[i]! * (1 - alpha!));
    const fg = parse(getComputedStyle(el).color);
    const text = [0, 1, 2].map((i) => fg[i]! * fg[3]! + under[i]! * (1 - fg[3]!));
    const lum = (c: number[]) =>
      c
        .map((v) => v / 255)
        .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4))
        .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i]!, 0);
    const [hi, lo] = [lum(text), lum(under)].sort((a, b) => b - a);
    const css = (c: number[]) => `rgb(${c.map(Math.round).join(', ')})`;
    return { ratio: (hi! + 0.05) / (lo! + 0.05), text: css(text), background: css(under) };
  });
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

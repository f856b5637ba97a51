// The workspace's shell as a first-time user meets it, at 1366×768 with a mouse and at 390×844
// with touch (issue 26): the Home cards say what each volume holds and the disk's free space as
// the disk's; a host folder added in Administration → Volumes is in the sidebar at once; one tap
// opens a file on a phone and a long press selects; an opened folder's list has the keys; the
// trash toast's Undo is readable in light and dark; "Compress to zip" asks for the name; the
// selection bar weighs folders by the folder-size index; search results, the closed drawer and the
// search box fit a phone; the operations tray takes its own room; one date format everywhere; and
// every screen fits its size in both colour schemes. Layout is measured (boxes, computed colours),
// never compared as pictures; each step checks what the server did where it did something.
import fs from 'node:fs';
import path from 'node:path';
import yazl from 'yazl';
import * as assert from 'uvu/assert';
import type { Locator, Page } from 'playwright-core';
import { HOME, W, cssString, filesAddress, journey, listTree, type Step } from './journey/harness.ts';
import { formatBytes } from '../../ui/src/util.ts';

// Folder sizes on, with the world's Code folder left out of the index (a folder of unknown size).
// No service worker: the operations tray's step slows the upload by DevTools, which a page under
// the worker's control sends its requests past (the shell's worker is pwa.test.ts's subject).
const j = journey(import.meta.url, {
  env: { FOLDER_SIZE_MODE: 'full', FOLDER_SIZE_FLUSH_MS: '50', FOLDER_SIZE_EXCLUDE_PATHS: 'Code' },
  serviceWorkers: 'block',
});

/** Bytes of every file under `dir` on disk. */
function du(dir: string): number {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) n += du(p);
    else if (e.isFile()) n += fs.statSync(p).size;
  }
  return n;
}

const enc = (virtual: string) => virtual.split('/').map(encodeURIComponent).join('/');

/** Waits until the folder-size index has counted `virtual` completely; its usage answer. */
async function heldBy(s: Step, virtual: string): Promise<{ held: { bytes: number }; total: number; free: number }> {
  let last: any;
  await s.eventually(`the index to have counted ${virtual}`, async () => {
    last = (await s.api('GET', `/api/usage/${enc(virtual)}`)).json;
    return last?.held?.complete === true;
  });
  return last;
}

/** Waits until the folder-size index has `rel` (a folder of the world) at its size on disk. */
async function indexed(s: Step, rel: string): Promise<number> {
  const bytes = du(s.disk(rel));
  let last: any;
  await s.eventually(`the index to count ${rel} as its ${bytes} bytes on disk`, async () => {
    last = (await s.api('GET', `/api/folder-size/${enc(`${HOME}/${rel}`)}`)).json;
    return last?.indexed === true && last.sizeBytes === bytes;
  });
  return bytes;
}

/** A finger held on `target` until the page shows it selected, then lifted (a long press). */
async function longPress(s: Step, target: Locator): Promise<void> {
  const box = (await target.boundingBox())!;
  const point = { x: Math.round(box.x + Math.min(80, box.width / 3)), y: Math.round(box.y + box.height / 2) };
  const cdp = await s.context.newCDPSession(s.page);
  try {
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [point] });
    await s.page.waitForFunction((el) => el?.getAttribute('aria-selected') === 'true', await target.elementHandle());
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  } finally {
    await cdp.detach();
  }
}

const bar = (s: Step) => s.page.getByRole('toolbar', { name: 'Selection' });

/** Selects entries as a person does: click and Ctrl+click, or a long press and taps. */
async function select(s: Step, names: string[], add = false): Promise<void> {
  if (!add && (await bar(s).count())) {
    await s.tap(bar(s).getByRole('button', { name: 'Clear selection' }));
    await bar(s).waitFor({ state: 'detached' });
  }
  for (const [i, name] of names.entries()) {
    const entry = await s.entry(name);
    const first = i === 0 && !add;
    if (s.size.touch) await (first ? longPress(s, entry) : entry.tap());
    else await entry.click(first ? {} : { modifiers: ['Control'] });
    await s.page.locator(`.entry[data-name=${cssString(name)}][aria-selected="true"]`).waitFor();
  }
}

/** An entry's menu: a right click at desktop, its ⋮ button on a touch screen. */
async function menuOf(s: Step, name: string): Promise<void> {
  const entry = await s.entry(name);
  if (s.size.touch) await entry.getByRole('button', { name: `Actions for ${name}` }).tap();
  else await entry.click({ button: 'right' });
  await s.page.locator('.context-menu').waitFor();
}

const listHasFocus = (s: Step) =>
  s.eventually('the list to have the focus', () =>
    s.page.evaluate(() => document.activeElement?.getAttribute('aria-label') === 'Folder contents'),
  );

async function openPlaces(s: Step): Promise<Locator> {
  const places = s.page.getByRole('navigation', { name: 'Places' });
  if (s.size.touch) {
    await s.tap(s.page.getByRole('button', { name: 'Menu' }));
    await s.page.waitForFunction(() => getComputedStyle(document.querySelector('.sidebar')!).visibility === 'visible');
  }
  return places;
}

/** Contrast ratio (WCAG) of an element's text against what is painted behind it. */
function contrastOf(el: Element): number {
  const parse = (c: string): [number, number, number, number] => {
    const srgb = /color\(srgb ([\d.]+) ([\d.]+) ([\d.]+)(?: \/ ([\d.]+))?\)/.exec(c);
    if (srgb) return [+srgb[1]! * 255, +srgb[2]! * 255, +srgb[3]! * 255, srgb[4] === undefined ? 1 : +srgb[4]];
    const m = c.match(/[\d.]+/g)!.map(Number);
    return [m[0]!, m[1]!, m[2]!, m[3] ?? 1];
  };
  const layers: [number, number, number, number][] = [];
  for (let e: Element | null = el; e; e = e.parentElement) {
    const cs = getComputedStyle(e);
    const bg = parse(cs.backgroundColor);
    const alpha = bg[3] * Number(cs.opacity);
    if (alpha > 0) layers.push([bg[0], bg[1], bg[2], alpha]);
    if (alpha >= 1) break;
  }
  let under: [number, number, number] = [255, 255, 255];
  for (const [r, g, b, a] of layers.reverse())
    under = [r * a + under[0] * (1 - a), g * a + under[1] * (1 - a), b * a + under[2] * (1 - a)];
  const [fr, fg, fb, fa] = parse(getComputedStyle(el).color);
  const fore: [number, number, number] = [
    fr * fa + under[0] * (1 - fa),
    fg * fa + under[1] * (1 - fa),
    fb * fa + under[2] * (1 - fa),
  ];
  const lum = ([r, g, b]: [number, number, number]) => {
    const f = (v: number) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const [hi, lo] = [lum(fore), lum(under)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** What does not fit the screen: boxes wider than it, words broken inside, unreadable buttons. */
async function misfits(page: Page): Promise<string[]> {
  return page.evaluate((contrastSrc) => {
    const contrast = new Function(`return (${contrastSrc})`)() as (el: Element) => number;
    const out: string[] = [];
    const width = document.documentElement.clientWidth;
    const describe = (e: Element) =>
      `${e.tagName.toLowerCase()}${e.className && typeof e.className === 'string' ? `.${e.className.trim().split(/\s+/).join('.')}` : ''}`;
    const shown = (e: Element) => {
      const cs = getComputedStyle(e);
      return cs.visibility !== 'hidden' && cs.display !== 'none' && e.getBoundingClientRect().width > 0;
    };
    // Boxes that scroll sideways on purpose (wide tables, tab rows) hold what is wider.
    const scrollsSideways = (e: Element) => {
      for (let p = e.parentElement; p; p = p.parentElement) {
        const ox = getComputedStyle(p).overflowX;
        if ((ox === 'auto' || ox === 'scroll' || ox === 'hidden') && p !== document.body) return true;
      }
      return false;
    };
    if (document.documentElement.scrollWidth > width + 1)
      out.push(`the page scrolls sideways (${document.documentElement.scrollWidth} > ${width})`);
    for (const e of document.querySelectorAll('body *')) {
      if (!shown(e) || scrollsSideways(e)) continue;
      const r = e.getBoundingClientRect();
      // Entirely left of the screen is hidden on purpose (the skip link).
      if (r.right > 0 && (r.right > width + 1 || r.left < -1))
        out.push(`${describe(e)} reaches ${Math.round(r.left)}…${Math.round(r.right)}`);
    }
    // A word of up to 20 letters broken over two lines (paths and code may break).
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement!;
      if (!shown(el) || el.closest('code, pre, .cm-editor, .where, .match-line')) continue;
      for (const m of (n.textContent ?? '').matchAll(/[\p{L}\p{N}]{2,20}/gu)) {
        const range = document.createRange();
        range.setStart(n, m.index);
        range.setEnd(n, m.index + m[0].length);
        const lines = new Set([...range.getClientRects()].filter((b) => b.width > 0).map((b) => Math.round(b.top)));
        if (lines.size > 1) out.push(`"${m[0]}" broken over ${lines.size} lines in ${describe(el)}`);
      }
    }
    for (const b of document.querySelectorAll('button:not(:disabled), a[href], .toast, .badge')) {
      if (!shown(b) || !(b.textContent ?? '').trim()) continue;
      const c = contrast(b);
      if (c < 3)
        out.push(`"${(b.textContent ?? '').trim().slice(0, 30)}" (${describe(b)}) has contrast ${c.toFixed(2)}`);
    }
    return [...new Set(out)].slice(0, 20);
  }, contrastOf.toString());
}

j.step('each Home card says what its volume holds, and the disk’s free space as the disk’s', async (s) => {
  const home = await heldBy(s, HOME);
  const files = await heldBy(s, 'Files');
  // The server: what each volume holds, counted by its index, is what its folder holds on disk.
  const world = du(s.home) - du(s.disk('Code')); // Code is left out of the index
  const sample = du(path.join(s.server.dirs.volumes, 'Files'));
  assert.is(home.held.bytes, world, `the Home volume holds the world: ${home.held.bytes} ≠ ${world}`);
  assert.is(files.held.bytes, sample, `the Files volume holds ${files.held.bytes}, its folder ${sample}`);
  assert.ok(home.held.bytes > 1_000_000 && home.held.bytes !== files.held.bytes);
  assert.is(home.total, files.total, 'one disk under both volumes');

  await s.goto('/');
  for (const [name, usage] of [
    [HOME, home],
    ['Files', files],
  ] as const) {
    const card = s.page.locator('.volume-card').filter({ has: s.page.getByText(name, { exact: true }) });
    await card.locator('.volume-held').filter({ hasText: /\S/ }).waitFor();
    const holds = (await card.locator('.volume-held').innerText()).trim();
    assert.is(holds, usage.held.bytes ? `Holds ${formatBytes(usage.held.bytes)}` : 'Empty', `${name}: ${holds}`);
    const disk = (await card.locator('.volume-disk').innerText()).trim();
    assert.match(disk, new RegExp(`^Disk: \\d[\\d.]* [KMGTP]?B free of ${formatBytes(usage.total)}$`), disk);
    assert.not.match(await card.innerText(), /used/, 'no card calls the whole disk its own');
  }
});

j.step('a host folder added in Administration → Volumes is in the sidebar and on Home at once', async (s) => {
  const folder = path.join(s.server.dirs.root, 'Family archive – 1990s');
  fs.mkdirSync(path.join(folder, 'Scans'), { recursive: true });
  fs.writeFileSync(path.join(folder, 'Scans', 'Wedding invitation (1994).txt'), 'You are invited.\n');
  await s.goto('/admin/volumes');
  await s.page.getByLabel('Name').fill('Family archive');
  await s.page.getByLabel('Folder on this computer').fill(folder);
  await s.tap(s.page.getByRole('button', { name: 'Add folder' }));
  await s.page
    .getByRole('list', { name: 'Host folder volumes' })
    .getByText('Family archive', { exact: true })
    .waitFor();
  const listed = await s.api('GET', '/api/volumes');
  assert.ok(
    listed.json.some((v: any) => v.name === 'Family archive'),
    `the server serves it: ${listed.text}`,
  );
  // No reload: the sidebar lists it, and it opens.
  const places = await openPlaces(s);
  const link = places.getByRole('link', { name: 'Family archive', exact: true });
  await link.waitFor({ timeout: 5000 });
  await s.tap(link);
  await s.folder('Family archive');
  await s.entry('Scans');
  await s.tap((await openPlaces(s)).locator('a[href="/"]'));
  await s.page.locator('.volume-card').filter({ hasText: 'Family archive' }).waitFor({ timeout: 5000 });
});

j.step('one tap opens a file as it opens a folder; a long press selects, then taps toggle', async (s) => {
  await s.goto(filesAddress(HOME, 'Documents/Notes'));
  await s.folder(`${HOME}/Documents/Notes`);
  const viewer = s.page.getByRole('dialog', { name: 'Viewer: Shopping list.txt' });
  const sizeOf = (rel: string) => fs.statSync(s.disk(rel)).size;
  const reading = path.basename(W.readingList);
  const garden = path.basename(W.gardenPlan);
  if (s.size.touch) {
    await (await s.entry('Shopping list.txt')).tap();
    await viewer.waitFor();
    await viewer.getByText('Bread').waitFor();
    assert.is(s.read(W.shopping), W.shoppingText, 'the text shown is the file’s');
    await s.tap(viewer.getByRole('button', { name: 'Close viewer' }));
    await viewer.waitFor({ state: 'detached' });
    assert.is(await s.page.locator('.entry[aria-selected="true"]').count(), 0, 'the tap selected nothing');

    await longPress(s, await s.entry(reading));
    assert.is(await s.page.getByRole('dialog').count(), 0, 'a long press opens nothing');
    await bar(s)
      .getByText(`1 selected · ${formatBytes(sizeOf(W.readingList))}`)
      .waitFor();
    await (await s.entry(garden)).tap();
    await bar(s)
      .getByText(`2 selected · ${formatBytes(sizeOf(W.readingList) + sizeOf(W.gardenPlan))}`)
      .waitFor();
    assert.is(await s.page.getByRole('dialog').count(), 0, 'while selecting, a tap toggles');
    await (await s.entry(reading)).tap();
    await bar(s).getByText('1 selected', { exact: false }).waitFor();
    await (await s.entry(garden)).tap();
    await bar(s).waitFor({ state: 'detached' });
    // Nothing selected any more: a tap opens again.
    await (await s.entry('Shopping list.txt')).tap();
    await viewer.waitFor();
    await s.tap(viewer.getByRole('button', { name: 'Close viewer' }));
    // "Select all" (from a keyboard attached to the phone) starts selection mode too.
    const list = s.page.locator('.file-area .scroller');
    const box = (await list.boundingBox())!;
    await list.tap({ position: { x: 20, y: box.height - 20 } });
    await s.page.keyboard.press('Control+a');
    const all = (await s.api('GET', `/api/browse/${enc(`${HOME}/Documents/Notes`)}`)).json.items.length;
    await bar(s).getByText(`${all} selected`, { exact: false }).waitFor();
    await (await s.entry('Shopping list.txt')).tap();
    await bar(s)
      .getByText(`${all - 1} selected`, { exact: false })
      .waitFor();
    assert.is(await s.page.getByRole('dialog').count(), 0, 'the tap took it out of the selection');
  } else {
    await (await s.entry('Shopping list.txt')).click();
    await bar(s)
      .getByText(`1 selected · ${formatBytes(sizeOf(W.shopping))}`)
      .waitFor();
    assert.is(await s.page.getByRole('dialog').count(), 0, 'a click selects');
    await (await s.entry('Shopping list.txt')).dblclick();
    await viewer.waitFor();
    await viewer.getByText('Bread').waitFor();
    await s.page.keyboard.press('Escape');
    await viewer.waitFor({ state: 'detached' });
  }
});

j.step('after a folder opens, its list has the keys: arrows, End, Ctrl+A', async (s) => {
  const { json } = await s.api('GET', `/api/browse/${enc(`${HOME}/Documents/Notes`)}`);
  const names = json.items.map((i: any) => i.name).filter((n: string) => !n.startsWith('.'));
  await s.goto(filesAddress(HOME, 'Documents'));
  await s.open(await s.entry('Notes'));
  await s.folder(`${HOME}/Documents/Notes`);
  await listHasFocus(s);
  const rows = s.page.locator('.file-area .entry');
  const shown = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-name')));
  await s.page.keyboard.press('End');
  await s.page.locator(`.entry[data-name=${cssString(shown.at(-1)!)}][aria-selected="true"]`).waitFor();
  await s.page.keyboard.press('Home');
  await s.page.keyboard.press('ArrowDown');
  await s.page.locator(`.entry[data-name=${cssString(shown[1]!)}][aria-selected="true"]`).waitFor();
  await s.page.keyboard.press('Control+a');
  await bar(s).getByText(`${names.length} selected`, { exact: false }).waitFor();
  assert.is(shown.length, names.length, 'the list shows what the server lists');
  // Opened from the sidebar too: the keys go to the list, not to the page.
  await s.page.keyboard.press('Escape');
  const places = await openPlaces(s);
  await s.tap(places.locator(`a[href="${filesAddress(HOME)}"]`));
  await s.folder(HOME);
  await listHasFocus(s);
  await s.page.keyboard.press('End');
  await s.page.locator('.file-area .entry[aria-selected="true"]').waitFor();
});

j.step('the trash toast’s Undo is readable in light and dark, and brings the file back', async (s) => {
  const name = path.basename(W.bill);
  await s.goto(filesAddress(HOME, W.taxes));
  await menuOf(s, name);
  await s.tap(s.page.getByRole('menuitem', { name: /^Delete…/ }));
  await s.tap(s.page.getByRole('button', { name: 'Move to trash' }));
  const toast = s.page.locator('.toast').filter({ hasText: `Moved ${name} to the trash` });
  const undo = toast.getByRole('button', { name: 'Undo' });
  await undo.waitFor();
  assert.not.ok(s.exists(W.bill), 'the file left its folder');
  const trash = await s.api('GET', '/api/trash');
  assert.ok(
    trash.json.items.some((i: any) => i.name === name),
    trash.text,
  );
  for (const colorScheme of ['light', 'dark'] as const) {
    await s.page.emulateMedia({ colorScheme });
    const ratio = await undo.evaluate(contrastOf);
    assert.ok(ratio >= 4.5, `${colorScheme}: the Undo button's contrast is ${ratio.toFixed(2)} (4.5 needed)`);
    const text = await toast.locator('span').first().evaluate(contrastOf);
    assert.ok(text >= 4.5, `${colorScheme}: the toast's text contrast is ${text.toFixed(2)}`);
  }
  await s.page.emulateMedia({ colorScheme: 'light' });
  await s.tap(undo);
  await s.eventually('the file to be back on disk', () => s.exists(W.bill));
  await s.entry(name);
});

j.step('“Compress to zip” asks for the name, proposing the item’s; the zip made has it', async (s) => {
  await s.goto(filesAddress(HOME, 'Documents'));
  await menuOf(s, 'Notes');
  await s.tap(s.page.getByRole('menuitem', { name: 'Compress to zip…' }));
  const dialog = s.page.getByRole('dialog', { name: 'Compress “Notes” to zip' });
  const input = dialog.getByLabel('Name of the zip');
  assert.is(await input.inputValue(), 'Notes.zip', 'the folder’s name is proposed');
  await input.fill('Notes for Zoé & Tom');
  await s.tap(dialog.getByRole('button', { name: 'Compress' }));
  const made = 'Documents/Notes for Zoé & Tom.zip';
  await s.eventually('the zip on disk', () => s.exists(made));
  await s.entry('Notes for Zoé & Tom.zip');
  const entries = (await s.zipNames(fs.readFileSync(s.disk(made)))).filter((n) => !n.endsWith('/'));
  assert.equal(
    entries.sort(),
    listTree(s.disk('Documents/Notes')).map((n) => `Notes/${n}`),
  );

  // Two files: the folder's name is proposed; asked again, the name taken gets the server's "(1)".
  await s.open(await s.entry('Notes'));
  await s.folder(`${HOME}/Documents/Notes`);
  const two = [path.basename(W.gardenPlan), path.basename(W.shopping)];
  for (const made of ['Notes.zip', 'Notes (1).zip']) {
    await select(s, two);
    await s.tap(bar(s).getByRole('button', { name: 'Compress to zip…' }));
    const dialog = s.page.getByRole('dialog', { name: 'Compress 2 items to zip' });
    assert.is(await dialog.getByLabel('Name of the zip').inputValue(), 'Notes.zip');
    const before = s.exists('Documents/Notes/Notes.zip') ? fs.readFileSync(s.disk('Documents/Notes/Notes.zip')) : null;
    await s.tap(dialog.getByRole('button', { name: 'Compress' }));
    await s.eventually(`${made} on disk`, () => s.exists(`Documents/Notes/${made}`));
    if (before) assert.ok(before.equals(fs.readFileSync(s.disk('Documents/Notes/Notes.zip'))), 'nothing written over');
    assert.equal((await s.zipNames(fs.readFileSync(s.disk(`Documents/Notes/${made}`)))).sort(), two.sort());
    await s.entry(made);
  }
});

j.step('the selection bar weighs folders by the folder-size index, and says when it cannot', async (s) => {
  const folders = ['Notes', 'Letters', 'Taxes & Bills'];
  const sizes: number[] = [];
  for (const f of folders) sizes.push(await indexed(s, `Documents/${f}`));
  await s.goto(filesAddress(HOME, 'Documents'));
  await select(s, folders.slice(0, 2));
  await bar(s)
    .getByText(`2 selected · ${formatBytes(sizes[0]! + sizes[1]!)}`)
    .waitFor();
  await select(s, folders.slice(2), true);
  await bar(s)
    .getByText(`3 selected · ${formatBytes(sizes[0]! + sizes[1]! + sizes[2]!)}`)
    .waitFor();
  // Code is left out of the index (FOLDER_SIZE_EXCLUDE_PATHS): its size is unknown, not 0 bytes.
  const code = await s.api('GET', `/api/folder-size/${enc(`${HOME}/Code`)}`);
  assert.is(code.json.indexed, false, code.text);
  await s.goto(filesAddress(HOME));
  await select(s, ['Code']);
  await bar(s).getByText('1 selected · size unknown').waitFor();
  const documents = await indexed(s, 'Documents');
  await select(s, ['Documents'], true);
  await bar(s)
    .getByText(`2 selected · ${formatBytes(documents)} and 1 folder of unknown size`)
    .waitFor();
});

j.step('search results, the closed drawer and the search box fit the screen', async (s) => {
  await s.goto('/');
  const box = s.page.getByRole('searchbox', { name: 'Search files' });
  const placeholder = await box.evaluate((input: HTMLInputElement) => {
    const cs = getComputedStyle(input);
    const ctx = document.createElement('canvas').getContext('2d')!;
    ctx.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    return {
      text: input.placeholder,
      needs: ctx.measureText(input.placeholder).width,
      has: input.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight),
    };
  });
  assert.ok(placeholder.needs <= placeholder.has, `the placeholder is cut: ${JSON.stringify(placeholder)}`);
  if (s.size.touch) {
    // Closed, the drawer paints nothing: no shadow along the left edge.
    const drawer = await s.page.locator('.sidebar').evaluate((el) => {
      const cs = getComputedStyle(el);
      const at = document.elementFromPoint(2, innerHeight / 2);
      return {
        visibility: cs.visibility,
        shadow: cs.boxShadow,
        right: el.getBoundingClientRect().right,
        hit: el.contains(at),
      };
    });
    assert.ok(
      drawer.visibility === 'hidden' || drawer.shadow === 'none',
      `the closed drawer shows: ${JSON.stringify(drawer)}`,
    );
    assert.not.ok(drawer.hit, 'the left edge is the page, not the drawer');
  }
  await box.fill('Morning');
  await box.press('Enter');
  const song = path.basename(W.song);
  const result = s.page.locator(`.results li[data-name=${cssString(song)}]`);
  await result.waitFor();
  const found = await s.api('GET', '/api/search?q=Morning');
  assert.ok(
    found.json.items.some((i: any) => i.name === song && i.path === `${HOME}/${path.dirname(W.song)}`),
    `the server finds the song: ${found.text}`,
  );
  await result.locator('.date').waitFor();
  const widths = await result.evaluate((li) => ({
    row: li.getBoundingClientRect().width,
    name: li.querySelector('.grow')!.getBoundingClientRect().width,
    where: li.querySelector('.where')!.getBoundingClientRect().width,
  }));
  // The name and its folder take the row's width (the names squeezed into ~160 px broke).
  assert.ok(widths.name >= widths.row * 0.6, `the name has ${widths.name} of ${widths.row} px`);
  assert.ok(widths.where >= widths.row * 0.6, `the path has ${widths.where} of ${widths.row} px`);
  const whereLines = await result.locator('.where').evaluate((el) => {
    const r = document.createRange();
    r.selectNodeContents(el);
    return new Set([...r.getClientRects()].map((b) => Math.round(b.top))).size;
  });
  assert.is(whereLines, 1, 'the path reads on one line');
  const misfit = await misfits(s.page);
  assert.equal(misfit, [], misfit.join('\n'));
});

j.step('the operations tray takes its own room: no blank band, the last rows stay above it', async (s) => {
  await s.goto(filesAddress(HOME, W.cameraRoll));
  await s.folder(`${HOME}/${W.cameraRoll}`);
  const upload = path.join(s.server.dirs.root, 'Garden walk (long cut).mov');
  fs.writeFileSync(upload, Buffer.alloc(6 * 1024 * 1024, 9));
  const cdp = await s.context.newCDPSession(s.page);
  await cdp.send('Network.enable');
  const throttle = (uploadThroughput: number) =>
    cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput,
    });
  await throttle(64 * 1024);
  try {
    const chooser = s.page.waitForEvent('filechooser');
    await s.tap(s.page.getByRole('button', { name: 'Upload', exact: true }));
    await (await chooser).setFiles(upload);
    const tray = s.page.getByRole('complementary', { name: 'Operations' });
    await tray.getByRole('button', { name: 'Pause' }).waitFor();
    // The list scrolled to its end: its last row is above the tray, and nothing is left between.
    const scroller = s.page.locator('.file-area .scroller');
    await scroller.evaluate((el) => el.scrollTo(0, el.scrollHeight));
    const last = s.page.locator(`.entry[data-name="IMG_${String(W.cameraRollCount).padStart(4, '0')}.jpg"]`);
    await last.waitFor();
    const m = await s.page.evaluate(() => {
      const r = (sel: string) => document.querySelector(sel)!.getBoundingClientRect();
      const rows = [...document.querySelectorAll('.file-area .entry')].map((e) => e.getBoundingClientRect().bottom);
      return {
        tray: r('.tray').top,
        trayBottom: r('.tray').bottom,
        lastRow: Math.max(...rows),
        scroller: r('.file-area .scroller').bottom,
        status: r('.status-line').bottom,
        height: innerHeight,
      };
    });
    assert.ok(m.lastRow <= m.tray + 0.5, `the tray covers the last row: ${JSON.stringify(m)}`);
    assert.ok(m.scroller <= m.tray + 0.5, `the tray covers the list: ${JSON.stringify(m)}`);
    assert.ok(m.tray - m.status <= 1, `a blank band of ${m.tray - m.status} px above the tray: ${JSON.stringify(m)}`);
    assert.ok(Math.abs(m.trayBottom - m.height) <= 1, `the tray sits at the bottom: ${JSON.stringify(m)}`);
  } finally {
    await throttle(-1);
    await cdp.detach();
  }
  const name = path.basename(upload);
  await s.eventually('the upload to land', () => s.exists(`${W.cameraRoll}/${name}`), 60_000);
  await s.eventually('all its bytes', () => fs.statSync(s.disk(`${W.cameraRoll}/${name}`)).size === 6 * 1024 * 1024);
});

j.step('one date format on every screen: list, details, search, trash, archive', async (s) => {
  const when = new Date('2024-03-15T09:30:00Z');
  fs.utimesSync(s.disk(W.shopping), when, when);
  const shown = (iso: string) =>
    s.page.evaluate(
      (d) => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(d)),
      iso,
    );
  const expected = await shown(when.toISOString());
  const name = path.basename(W.shopping);
  await s.goto(filesAddress(HOME, 'Documents/Notes'));
  const entry = await s.entry(name);
  const meta = await s.api('GET', `/api/metadata/${enc(`${HOME}/${W.shopping}`)}`);
  assert.is(Date.parse(meta.json.dateModified), when.getTime(), 'the server reports the time on disk');
  if (!s.size.touch) assert.is((await entry.locator('.col-modified').innerText()).trim(), expected, 'list');
  await menuOf(s, name);
  await s.tap(s.page.getByRole('menuitem', { name: 'Details and versions' }));
  const details = s.page.getByRole('complementary', { name: `Details of ${name}` });
  const modified = details.locator('dt', { hasText: 'Modified' }).locator('xpath=following-sibling::dd[1]');
  await s.eventually('the details to read the time', async () => (await modified.innerText()).trim() === expected);
  if (!s.size.touch) {
    // Beside the panel, nothing of the folder is under it: the selection bar's buttons all show.
    const panel = (await details.boundingBox())!;
    const buttons = await bar(s).getByRole('button').all();
    for (const b of buttons) {
      const box = (await b.boundingBox())!;
      assert.ok(box.x + box.width <= panel.x, `"${await b.innerText()}" is under the details panel`);
    }
  }

  await s.goto('/search?q=Shopping');
  const result = s.page.locator(`.results li[data-name=${cssString(name)}] .date`);
  await result.waitFor();
  assert.is((await result.innerText()).trim(), expected, 'search');

  fs.writeFileSync(s.disk(`${W.inbox}/Scan 2024-03-15 09.30.pdf`), '%PDF-1.4\n');
  const gone = await s.api('DELETE', '/api/files', {
    items: [{ path: `${HOME}/${W.inbox}`, name: 'Scan 2024-03-15 09.30.pdf' }],
  });
  const trash = (await s.api('GET', '/api/trash')).json.items as any[];
  const deleted = trash.find((t) => t.name === 'Scan 2024-03-15 09.30.pdf');
  assert.ok(deleted, `the trash holds it (${gone.status} ${gone.text})`);
  await s.goto('/trash');
  const row = s.page.getByRole('row').filter({ hasText: 'Scan 2024-03-15 09.30.pdf' });
  assert.is(
    (await row.locator('td[data-label="Deleted"]').innerText()).replace(/^Deleted: /, '').trim(),
    await shown(deleted.deletedAt),
  );

  const zip = new yazl.ZipFile();
  zip.addBuffer(Buffer.from('Dear Zoé,\n'), 'Letters/To Zoé.txt', { mtime: new Date(2023, 6, 14, 18, 5) });
  zip.end();
  await new Promise<void>((resolve) =>
    zip.outputStream.pipe(fs.createWriteStream(s.disk('Backups/Letters-2023.zip'))).on('close', resolve),
  );
  const listed = await s.api('GET', `/api/archive/list?path=${encodeURIComponent(`${HOME}/Backups/Letters-2023.zip`)}`);
  const folderEntry = listed.json.entries.find((e: any) => e.name === 'Letters');
  await s.goto(`/archive?path=${encodeURIComponent(`${HOME}/Backups/Letters-2023.zip`)}&inside=Letters`);
  const cell = s.page.getByRole('row').filter({ hasText: 'To Zoé.txt' });
  await cell.waitFor();
  const inside = await s.api(
    'GET',
    `/api/archive/list?path=${encodeURIComponent(`${HOME}/Backups/Letters-2023.zip`)}&inside=Letters`,
  );
  const letter = inside.json.entries.find((e: any) => e.name === 'To Zoé.txt');
  assert.ok(folderEntry && letter, `the archive lists its entries: ${listed.text} ${inside.text}`);
  assert.ok(
    (await cell.innerText()).includes(await shown(letter.modified.replace(' ', 'T'))),
    `archive: ${await cell.innerText()}`,
  );
});

j.step('every screen fits this size in light and dark: no overflow, no broken word, readable buttons', async (s) => {
  const screens = [
    '/',
    filesAddress(HOME),
    filesAddress(HOME, W.taxes),
    '/search?q=Morning',
    '/trash',
    '/shared',
    '/settings',
    '/admin/volumes',
  ];
  // Something in the trash, so that its table is shown.
  const letter = 'Brief an Oma und Opa – Überraschungsparty im Juli, mit Einladungsliste und Wegbeschreibung.txt';
  fs.writeFileSync(s.disk(`${W.inbox}/${letter}`), 'Liebe Oma,\n');
  const gone = await s.api('DELETE', '/api/files', { items: [{ path: `${HOME}/${W.inbox}`, name: letter }] });
  assert.is(gone.status, 200, gone.text);
  const found: string[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    await s.page.emulateMedia({ colorScheme });
    for (const screen of screens) {
      await s.goto(screen);
      await s.page.locator('main h1, main .folder, main .cards').first().waitFor();
      await s.page.waitForLoadState('networkidle');
      for (const m of await misfits(s.page)) found.push(`${colorScheme} ${screen}: ${m}`);
    }
  }
  await s.page.emulateMedia({ colorScheme: 'light' });
  assert.equal(found, [], found.join('\n'));
});

j.run();

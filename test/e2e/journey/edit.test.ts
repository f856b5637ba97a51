// Editing as a first-time user does it: the shopping list opened in the viewer, Edit, a line
// typed at its end, Save (Ctrl+S at desktop, the Save button at phone); the editor closed, the
// viewer shows the new text. Then the replaced text is among the file's versions (Details and
// versions, from the item's menu) and restoring it brings the old list back — the newer one kept
// as a version in turn, nothing lost. The server's side: the bytes on disk after each save and
// restore, and the versions it lists. Then two more saves, and the text with "Butter & jam" found
// among four versions by showing each one's words, and restored; every text there ever was kept.
import * as assert from 'uvu/assert';
import { HOME, W, filesAddress, journey, type Step } from './harness.ts';

const j = journey(import.meta.url);
const NAME = W.shopping.slice(W.shopping.lastIndexOf('/') + 1);
const EDITED = `${W.shoppingText}Butter & jam\n`;
const versionsOf = async (s: Step) => {
  const r = await s.api('GET', `/api/versions?path=${encodeURIComponent(`${HOME}/${W.shopping}`)}`);
  assert.is(r.status, 200, r.text);
  return r.json.items as { id: string; size: number }[];
};

/** Opens the list in the viewer, Edit, `line` typed at its end, saved (Ctrl+S, or Save at phone), the editor closed. */
async function addLine(s: Step, line: string) {
  const before = s.read(W.shopping);
  const viewer = await s.openFile(W.shopping);
  await viewer.locator('.cm-content').getByText('Eggs').waitFor();
  await s.tap(viewer.getByRole('button', { name: 'Edit' }));
  const editor = s.page.getByRole('dialog', { name: `Editing ${NAME}` });
  const lines = editor.locator('.cm-line');
  await lines.filter({ hasText: 'Eggs' }).waitFor();
  // The list ends with a newline: its last line is the empty one after the last item.
  await s.tap(lines.last());
  await s.page.keyboard.press('Control+End');
  await s.page.keyboard.type(line);
  await s.page.keyboard.press('Enter');
  await editor.getByText('Unsaved changes').waitFor();
  if (s.size.touch) await s.tap(editor.getByRole('button', { name: 'Save', exact: true }));
  else await s.page.keyboard.press('Control+s');
  await editor.getByText('Saved', { exact: true }).waitFor();
  assert.is(s.read(W.shopping), `${before}${line}\n`, 'the disk holds the edited list');
  await s.tap(editor.getByRole('button', { name: 'Close editor' }));
  await editor.waitFor({ state: 'detached' });
  await viewer.locator('.cm-content').getByText(line).waitFor({ timeout: 5000 });
  return viewer;
}

j.step('edit the shopping list and save it: the viewer shows the new text', async (s) => {
  const viewer = await addLine(s, 'Butter & jam');
  assert.is(s.read(W.shopping), EDITED);
  assert.is(await viewer.getByText(/Only the first/).count(), 0, 'a 30-byte file is shown whole, without a notice');
});

j.step(
  'the replaced text is a version; restoring it brings the old list back and keeps the newer one',
  async (s) => {
    const kept = await versionsOf(s);
    assert.is(kept.length, 1, `one save, one version: ${JSON.stringify(kept)}`);
    await s.goto(filesAddress(HOME, W.shopping.slice(0, W.shopping.lastIndexOf('/'))));
    const menu = await s.itemMenu(NAME);
    await s.tap(menu.getByRole('menuitem', { name: 'Details and versions' }));
    const panel = s.page.getByRole('complementary', { name: `Details of ${NAME}` });
    const versions = panel.getByRole('region', { name: 'Versions' }).getByRole('listitem');
    await versions.first().waitFor();
    assert.is(await versions.count(), 1);
    await s.tap(versions.first().getByRole('button', { name: 'Restore', exact: true }));
    await s.eventually('the old list back on disk', () => s.read(W.shopping) === W.shoppingText);
    await s.eventually('the edited list kept as a version', async () => (await versionsOf(s)).length === 2);
    const sizes = (await versionsOf(s)).map((v) => v.size).sort();
    assert.equal(sizes, [W.shoppingText.length, Buffer.byteLength(EDITED)].sort(), 'both texts kept');
    await s.eventually('the panel lists both versions', async () => (await versions.count()) === 2);
  },
  { needs: ['edit the shopping list and save it: the viewer shows the new text'] },
);

j.step(
  'after two more saves, the text with “Butter & jam” is found among the versions by its words and restored',
  async (s) => {
    await addLine(s, 'Tea');
    await addLine(s, 'Honey');
    const latest = `${W.shoppingText}Tea\nHoney\n`;
    assert.is(s.read(W.shopping), latest);
    await s.goto(filesAddress(HOME, W.shopping.slice(0, W.shopping.lastIndexOf('/'))));
    const menu = await s.itemMenu(NAME);
    await s.tap(menu.getByRole('menuitem', { name: 'Details and versions' }));
    const panel = s.page.getByRole('complementary', { name: `Details of ${NAME}` });
    const versions = panel.getByRole('region', { name: 'Versions' }).getByRole('listitem');
    await s.eventually('the panel lists the four earlier texts', async () => (await versions.count()) === 4);
    // Saved the same minute, the versions differ by their words only: each is looked at in turn.
    let wanted = -1;
    for (let i = 0; i < 4 && wanted < 0; i++) {
      const v = versions.nth(i);
      await s.tap(v.getByRole('button', { name: 'Show text' }));
      const text = await v.locator('pre').innerText();
      if (text.includes('Butter & jam')) wanted = i;
    }
    assert.ok(wanted >= 0, 'one version holds “Butter & jam”');
    await s.tap(versions.nth(wanted).getByRole('button', { name: 'Restore', exact: true }));
    await s.eventually('the list with “Butter & jam” back on disk', () => s.read(W.shopping) === EDITED);
    // Nothing lost: the text just replaced is a version too, and every text there ever was is kept.
    await s.eventually('the replaced text kept as a version', async () => (await versionsOf(s)).length === 5);
    const texts: string[] = [];
    for (const v of await versionsOf(s)) {
      const r = await s.api('GET', `/api/versions/${encodeURIComponent(v.id)}/text`);
      assert.is(r.status, 200, r.text);
      texts.push(r.json.content);
    }
    for (const t of [W.shoppingText, EDITED, `${W.shoppingText}Tea\n`, latest])
      assert.ok(texts.includes(t), `kept: ${JSON.stringify(t)} among ${JSON.stringify(texts)}`);
  },
  { needs: ['the replaced text is a version; restoring it brings the old list back and keeps the newer one'] },
);

j.run();

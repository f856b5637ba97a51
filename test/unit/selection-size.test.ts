// The selection bar's size: folders count by the folder-size index's recursive figure, never
// as 0 bytes; "…" while the index is asked; "size unknown" (or "and N folders of unknown size")
// where the index has no recursive figure; "at least" while a figure is a lower bound and "…"
// while the index still counts a folder (the record's `complete`).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { folderSizeCell, selectionSize } from '../../ui/src/folder/selection.ts';

const file = (name: string, size: number) => ({ name, kind: 'jpg', size });
const folder = (name: string) => ({ name, kind: 'directory', size: 0 });
const on = { recursive: true, pending: false };
const fig = (bytes: number | null, complete = true) => ({ bytes, complete });

test('files and indexed folders add up', () => {
  assert.is(
    selectionSize(
      [file('Beach at dawn.jpg', 3_145_728), folder('Holiday 2025')],
      { 'Holiday 2025': fig(9_437_184) },
      on,
    ),
    '12 MB',
  );
  assert.is(selectionSize([folder('Notes')], { Notes: fig(2048) }, on), '2.0 KB');
});

test('a folder the index has not answered yet: "…" while it is asked', () => {
  assert.is(selectionSize([folder('Notes'), file('a.txt', 10)], {}, { recursive: true, pending: true }), '…');
});

test('a folder without a figure is said to be unknown, not 0 bytes', () => {
  assert.is(selectionSize([folder('Notes')], { Notes: fig(null) }, on), 'size unknown');
  assert.is(
    selectionSize([folder('Notes'), file('Morning Tune.mp3', 4096)], { Notes: fig(null) }, on),
    '4.0 KB and 1 folder of unknown size',
  );
  assert.is(selectionSize([folder('A'), folder('B'), file('c', 1)], {}, on), '1 B and 2 folders of unknown size');
});

test('a figure still being counted is never read as final', () => {
  // A part could not be read yet: a lower bound.
  assert.is(
    selectionSize([folder('Old drive'), file('a.txt', 24)], { 'Old drive': fig(1000, false) }, on),
    'at least 1.0 KB',
  );
  assert.is(
    selectionSize([folder('Old drive'), folder('Notes')], { 'Old drive': fig(1000, false), Notes: fig(null) }, on),
    'at least 1000 B and 1 folder of unknown size',
  );
  // The first walk is under way: no figure yet.
  assert.is(selectionSize([folder('Photos'), file('a.txt', 24)], { Photos: fig(null, false) }, on), '…');
});

test('the size column', () => {
  assert.is(folderSizeCell(undefined), '—');
  assert.is(folderSizeCell(fig(null)), '—');
  assert.is(folderSizeCell(fig(null, false)), '…');
  assert.is(folderSizeCell(fig(2048)), '2.0 KB');
  assert.is(folderSizeCell(fig(2048, false)), '≥ 2.0 KB');
});

test('shallow or off: the figure is not a recursive size, so it is unknown', () => {
  const shallow = { recursive: false, pending: false };
  assert.is(selectionSize([folder('Notes')], { Notes: fig(500) }, shallow), 'size unknown');
  assert.is(selectionSize([file('x', 2048)], {}, shallow), '2.0 KB');
});

test.run();

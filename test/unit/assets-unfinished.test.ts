// What a process killed while it extracted a pack left (src/assets.ts removeUnfinished): the
// folder under its temporary name `<pack>-<hash>.tmp-<pid>-<random>` is removed for that pid only
// — not another process's still being written, not a finished pack, not what else is there.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { removeUnfinished } from '../../src/assets.ts';

test("removes the ended process's half-extracted folders and nothing else", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-unfinished-'));
  try {
    const names = [
      'addon-image-2b7513024c6333ef.tmp-123-6b519f65',
      'addon-pty-1d19c61a3e1f9518.tmp-123-a034b215',
      'addon-image-2b7513024c6333ef.tmp-1234-0c0ffee0',
      'addon-image-2b7513024c6333ef.tmp-9123-0badf00d',
      'addon-image-2b7513024c6333ef',
      'ui-5f1d.tmp-12-beef',
    ];
    for (const n of names) {
      fs.mkdirSync(path.join(dir, n, 'node_modules', 'Ünïcode & spaces'), { recursive: true });
      fs.writeFileSync(path.join(dir, n, 'node_modules', 'Ünïcode & spaces', 'a.node'), 'x');
    }
    removeUnfinished(dir, 123);
    assert.equal(fs.readdirSync(dir).sort(), names.slice(2).sort());
    removeUnfinished(path.join(dir, 'missing'), 123); // no folder: nothing to do
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();

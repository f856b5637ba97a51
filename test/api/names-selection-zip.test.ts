// A selection downloaded as a zip holds each item once, under names a person would recognise:
// the UI once posted the same selection as `paths` and as `items` and got every file twice
// (unzip asked "replace?" for each). The entry list is read by unzip itself (-Z1) and checked
// exactly: an item named twice is zipped once, an item inside a selected folder comes only
// with the folder, and two items of one name from two folders keep both (`name (1)`).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '../support/client.ts';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';

let s: TestServer;
let c: Client;
const home = (...p: string[]) => path.join(s.dirs.volumes, 'Files', ...p);
const nfd = (t: string) => t.normalize('NFD');
const TRIP = 'Trip + Friends #2 (Côte d’Azur)';
const BEACH = 'Beach & Sunset 100%.jpg';
const NOTES = nfd('Notes — "é" ü.md');
const PACKING = 'Packing list?.txt';
const BUDGET = "Budget '25 🏖️.csv";

test.before(async () => {
  s = await startServer({ env: { AUTH_MODE: 'disabled' } });
  c = new Client(s.url);
  fs.mkdirSync(home('Holidays', TRIP, 'Day 2'), { recursive: true });
  fs.writeFileSync(home('Holidays', TRIP, BEACH), Buffer.alloc(3000, 7));
  fs.writeFileSync(home('Holidays', TRIP, 'Day 2', NOTES), '# Day two\n- [x] swim\n');
  fs.writeFileSync(home('Holidays', PACKING), 'towel\nsunscreen\n');
  fs.writeFileSync(home('Holidays', BUDGET), 'what,cost\nhotel,420\n');
  fs.mkdirSync(home('Work'));
  fs.writeFileSync(home('Work', PACKING), 'laptop\n');
});
test.after(async () => {
  await s.close();
  removeDirs(s.dirs);
});

/** POST /api/download, the zip saved to a file, its entry names as unzip lists them. */
async function zipNames(body: unknown): Promise<string[]> {
  const res = await fetch(`${s.url}/api/download`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.is(res.status, 200, await res.clone().text());
  assert.is(res.headers.get('content-type'), 'application/zip');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-zip-'));
  try {
    const file = path.join(dir, 'download.zip');
    fs.writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    execFileSync('unzip', ['-tq', file], { env: { ...process.env, LANG: 'C.UTF-8' } });
    return execFileSync('unzip', ['-Z1', file], { encoding: 'utf8', env: { ...process.env, LANG: 'C.UTF-8' } })
      .split('\n')
      .filter(Boolean);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const TRIP_ENTRIES = [`${TRIP}/`, `${TRIP}/${BEACH}`, `${TRIP}/Day 2/`, `${TRIP}/Day 2/${NOTES}`];

test('a folder and two files posted as both `paths` and `items` (what the UI sent): each entry once', async () => {
  const picked = [TRIP, PACKING, BUDGET];
  const names = await zipNames({
    paths: picked.map((n) => `Files/Holidays/${n}`),
    items: picked.map((name) => ({ path: 'Files/Holidays', name })),
  });
  assert.equal([...names].sort(), [...TRIP_ENTRIES, PACKING, BUDGET].sort());
  const plan = await c.post('/api/download/plan', {
    paths: picked.map((n) => `Files/Holidays/${n}`),
    items: picked.map((name) => ({ path: 'Files/Holidays', name })),
  });
  assert.is(plan.status, 200, plan.text);
  assert.equal([plan.json.files, plan.json.folders], [4, 2]);
});

test('one list (what the UI sends now): the same entries', async () => {
  const names = await zipNames({ paths: [TRIP, PACKING, BUDGET].map((n) => `Files/Holidays/${n}`) });
  assert.equal([...names].sort(), [...TRIP_ENTRIES, PACKING, BUDGET].sort());
});

test('a file inside a selected folder comes with the folder only; an item named twice is one item', async () => {
  const names = await zipNames({
    paths: [`Files/Holidays/${TRIP}/${BEACH}`, `Files/Holidays/${TRIP}`, `Files/Holidays/${BUDGET}`],
    items: [{ path: 'Files/Holidays', name: BUDGET }],
  });
  assert.equal([...names].sort(), [...TRIP_ENTRIES, BUDGET].sort());
});

test('two different files of one name (from two folders) are both kept, the second numbered', async () => {
  const names = await zipNames({ paths: [`Files/Holidays/${PACKING}`, `Files/Work/${PACKING}`] });
  assert.equal(names, [PACKING, 'Packing list? (1).txt']);
});

test.run();

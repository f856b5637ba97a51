// The world's data is what test/support/world.ts says it is, checked with tools other than the
// ones that made it: names at their byte lengths and normal forms, photos at their sizes and
// EXIF orientation (the image add-on), the song's tags and the video's streams (ffprobe), the
// PDF's two pages and their text (poppler's pdfinfo and pdftotext), the archives' entries (unzip,
// tar), and every relative link and picture of the Markdown pointing at a file that exists.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEEP_FOLDERS, NAME_255, W, listTree, makeWorld } from '../support/world.ts';

const image = createRequire(import.meta.url)('@napi-rs/image') as {
  Transformer: new (b: Buffer) => {
    metadata(exif?: boolean): Promise<{ width: number; height: number; orientation?: number | null }>;
  };
};
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-world-'));
const at = (rel: string) => path.join(dir, ...rel.split('/'));
const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { encoding: 'utf8' });

test.before(async () => {
  await makeWorld(dir);
});
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('names: 255 bytes, NFC and NFD as written, 40 levels deep, a hidden file, 2,000 photos', () => {
  const odd = fs.readdirSync(at(W.odd));
  assert.ok(odd.includes(NAME_255));
  assert.is(Buffer.byteLength(NAME_255), 255);
  for (const name of W.oddNames) assert.ok(odd.includes(name), name);
  assert.ok(odd.includes('.hidden notes.txt'));
  const letters = fs.readdirSync(at('Documents/Letters'));
  const nfd = path.basename(W.letterNfd);
  assert.ok(letters.includes(nfd) && nfd !== nfd.normalize('NFC'), 'the NFD name kept decomposed');
  assert.ok(letters.includes(path.basename(W.letterNfc).normalize('NFC')));
  assert.is(W.deepFile.split('/').length, DEEP_FOLDERS.length + 2);
  assert.is(fs.readFileSync(at(W.deepFile), 'utf8'), 'You reached the bottom of the well.\n');
  assert.is(fs.readdirSync(at(W.cameraRoll)).length, W.cameraRollCount);
});

test('photos: their sizes, the sideways one with EXIF orientation 6, as large as real ones', async () => {
  const facts = async (rel: string) => new image.Transformer(fs.readFileSync(at(rel))).metadata(true);
  const landscape = await facts(W.landscape);
  assert.equal([landscape.width, landscape.height], [4000, 3000]);
  const portrait = await facts(W.portrait);
  assert.equal([portrait.width, portrait.height], [2000, 3000]);
  const rotated = await facts(W.rotated);
  assert.equal([rotated.width, rotated.height, rotated.orientation], [3000, 2000, 6]);
  assert.ok(fs.statSync(at(W.landscape)).size > 3_000_000, 'a 12 MP photo weighs megabytes');
});

test('the song has its tags, the video its streams', () => {
  const tags = JSON.parse(run('ffprobe', ['-v', 'error', '-show_format', '-of', 'json', at(W.song)])).format;
  assert.is(tags.tags.title, W.songTitle);
  assert.is(tags.tags.artist, W.songArtist);
  assert.ok(Math.abs(Number(tags.duration) - 3) < 0.2, tags.duration);
  const video = JSON.parse(run('ffprobe', ['-v', 'error', '-show_streams', '-of', 'json', at(W.video)])).streams;
  const v = video.find((s: any) => s.codec_type === 'video');
  assert.equal([v.codec_name, v.width, v.height], ['h264', 640, 360]);
  assert.ok(video.some((s: any) => s.codec_type === 'audio' && s.codec_name === 'aac'));
});

test('the PDF has two pages of text', () => {
  assert.match(run('pdfinfo', [at(W.pdf)]), /^Pages:\s+2$/m);
  const pages = run('pdftotext', [at(W.pdf), '-']).split('\f');
  assert.match(pages[0]!, /Tax return 2024/);
  assert.match(pages[1]!, /Deductions: garden tools/);
});

test('the archives hold their entries under their names', () => {
  assert.equal(
    run('unzip', ['-Z1', at(W.zip)])
      .split('\n')
      .filter(Boolean),
    [...W.zipEntries],
  );
  assert.equal(
    run('tar', ['tzf', at(W.tar)])
      .split('\n')
      .filter(Boolean),
    [...W.tarEntries],
  );
});

test("the Markdown's relative links and pictures point at files that exist", () => {
  const source = fs.readFileSync(at(W.readingList), 'utf8');
  const targets = [...source.matchAll(/\]\((<[^>]+>|[^)\s]+)\)/g)].map((m) => m[1]!.replace(/^<|>$/g, ''));
  assert.is(targets.length, 4);
  for (const t of targets) {
    const file = path.resolve(path.dirname(at(W.readingList)), decodeURIComponent(t));
    assert.ok(fs.existsSync(file), `${t} → ${file}`);
  }
  assert.ok(listTree(dir).includes(W.gardenPlan));
});

test.run();

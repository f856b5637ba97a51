// Upload logic without HTTP: the TUS header validators, names from relativePath, placement's
// announcements through the change sink, and the per-upload lock hand-over.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createChangeSink, type Change } from '../../src/changes.ts';
import type { PathResolver, ResolvedPath } from '../../src/files/paths.ts';
import { AppError } from '../../src/core/errors.ts';
import type { Caller } from '../../src/core/caller.ts';
import { sweepInterval } from '../../src/uploads/capability.ts';
import { createPlacement, fileKind, splitTarget } from '../../src/uploads/placement.ts';
import { formatBytes } from '../../src/uploads/staging.ts';
import { createUploadLocks } from '../../src/uploads/tus/locks.ts';
import { journalled, recordingJournal } from '../support/journal.ts';
import { mountTmpfs } from '../support/mount.ts';
import {
  checkFitsLength,
  checkOffsetMatches,
  checkPatchContentType,
  checkTusResumable,
  finalizeErrorHeader,
  parseUploadChecksum,
  parseUploadLength,
  parseUploadMetadata,
  parseUploadOffset,
} from '../../src/uploads/tus/protocol.ts';

function refused(fn: () => unknown, status: number, code?: string): void {
  try {
    fn();
  } catch (err) {
    assert.instance(err, AppError);
    assert.is((err as AppError).status, status, (err as AppError).message);
    if (code) assert.is((err as AppError).code, code);
    assert.is((err as AppError).headers['Tus-Resumable'], '1.0.0', 'TUS errors carry Tus-Resumable');
    return;
  }
  assert.unreachable('expected a refusal');
}

test('Tus-Resumable: 1.0.0 only; otherwise 412 with Tus-Version', () => {
  checkTusResumable('1.0.0');
  refused(() => checkTusResumable(undefined), 412, 'TUS_VERSION');
  refused(() => checkTusResumable('0.2.2'), 412);
  try {
    checkTusResumable('2');
  } catch (err) {
    assert.is((err as AppError).headers['Tus-Version'], '1.0.0');
  }
});

test('Upload-Length / Upload-Offset: non-negative safe integers', () => {
  assert.is(parseUploadLength('0', undefined), 0);
  assert.is(parseUploadLength('1073741824', undefined), 1073741824);
  for (const bad of ['-1', '1.5', '1e3', ' ', 'abc', '+5'])
    refused(() => parseUploadLength(bad, undefined), bad.trim() === '' ? 400 : 400);
  refused(() => parseUploadLength('9007199254740993', undefined), 413, 'TUS_TOO_LARGE');
  refused(() => parseUploadLength(undefined, '1'), 400);
  assert.is(parseUploadOffset('42'), 42);
  refused(() => parseUploadOffset(undefined), 400);
  refused(() => parseUploadOffset('-3'), 400);
});

test('Upload-Metadata: base64 values, unique keys, empty values allowed, UTF-8 names kept', () => {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  assert.equal(parseUploadMetadata(`filename ${b64('Ünïcode file.txt')},uploadTo ${b64('Files/a b')},flag`), {
    filename: 'Ünïcode file.txt',
    uploadTo: 'Files/a b',
    flag: null,
  });
  assert.equal(parseUploadMetadata(undefined), {});
  refused(() => parseUploadMetadata(`a ${b64('x')},a ${b64('y')}`), 400, 'TUS_BAD_METADATA');
  refused(() => parseUploadMetadata('a b c'), 400);
  refused(() => parseUploadMetadata('a @@@@'), 400);
  refused(() => parseUploadMetadata(`a ${Buffer.from([0xff, 0xfe]).toString('base64')}`), 400);
});

test('PATCH rules: content type 415, offsets 409, past the length 413, checksum sha256 only', () => {
  checkPatchContentType('application/offset+octet-stream');
  refused(() => checkPatchContentType('application/octet-stream'), 415);
  checkOffsetMatches(5, 5);
  refused(() => checkOffsetMatches(4, 5), 409, 'TUS_OFFSET_MISMATCH');
  checkFitsLength(5, 5, 10);
  checkFitsLength(5, undefined, 10);
  refused(() => checkFitsLength(5, 6, 10), 413, 'TUS_PAST_LENGTH');
  const digest = Buffer.alloc(32, 1);
  assert.equal(parseUploadChecksum(`sha256 ${digest.toString('base64')}`), { algorithm: 'sha256', digest });
  assert.is(parseUploadChecksum(undefined), null);
  refused(() => parseUploadChecksum('md5 AAAA'), 400, 'TUS_BAD_CHECKSUM');
  refused(() => parseUploadChecksum('sha256 AAAA'), 400);
  assert.is(
    decodeURIComponent(finalizeErrorHeader('Could not place: 100% full')['Upload-Finalize-Error']!),
    'Could not place: 100% full',
  );
});

test('relativePath: folders and the name; the last segment names the file; bad names refused', () => {
  assert.equal(splitTarget({ uploadTo: 'V', relativePath: 'a/b/c.txt', filename: 'x' }), {
    folders: ['a', 'b'],
    name: 'c.txt',
  });
  assert.equal(splitTarget({ uploadTo: 'V', relativePath: '', filename: 'x.txt' }), { folders: [], name: 'x.txt' });
  assert.equal(splitTarget({ uploadTo: 'V', relativePath: 'a/', filename: 'x.txt' }), {
    folders: ['a'],
    name: 'x.txt',
  });
  for (const relativePath of ['../x', 'a/../x', 'a//x', '.burrow/x', 'a/\0/x']) {
    assert.throws(
      () => splitTarget({ uploadTo: 'V', relativePath, filename: 'x' }),
      (err: AppError) => err.status === 400,
      relativePath,
    );
  }
  assert.throws(
    () => splitTarget({ uploadTo: 'V', relativePath: '', filename: '' }),
    (err: AppError) => err.status === 400,
  );
  assert.is(fileKind('a.JPG'), 'jpg');
  assert.is(fileKind('Makefile'), 'unknown');
  assert.is(fileKind('.bashrc'), 'unknown');
  assert.is(fileKind('x.averyverylongext'), 'unknown');
  assert.is(formatBytes(64 * 1024 ** 3), '64 GiB');
  assert.is(formatBytes(1000), '1000 bytes');
  assert.is(sweepInterval(1000), 250);
  assert.is(sweepInterval(3_600_000), 60_000);
});

test('placement announces created folders and the file, numbers taken names, and undo takes both back', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-place-'));
  try {
    const volume = path.join(root, 'V');
    fs.mkdirSync(volume);
    fs.writeFileSync(path.join(volume, 'taken.txt'), 'old');
    const resolver = {
      async resolve(_c: Caller, virtualPath: string): Promise<ResolvedPath> {
        const access = {
          canRead: true,
          canWrite: true,
          canUpload: true,
          canDelete: true,
          canShare: true,
          canDownload: true,
          canCreateFolder: true,
          canCreateFile: true,
          readOnly: null,
        };
        return {
          virtualPath,
          space: { kind: 'volume', name: 'V', path: 'V', root: volume, readOnly: null },
          realPath: volume,
          relative: '',
          access,
          exists: true,
          isDirectory: true,
        };
      },
      // No access rules here: every folder below is the caller's to write.
      levelBelow: () => 'manage',
    } as unknown as PathResolver;
    const changes = createChangeSink();
    const seen: Change[] = [];
    changes.subscribe((c) => seen.push(c));
    const journal = recordingJournal();
    const unused = () => {
      throw new Error('no replace in this test');
    };
    const placement = createPlacement({
      resolver,
      changes,
      journal,
      files: { replacer: unused, assertMayReplace: unused },
      versions: { putBack: unused },
      trash: { restore: unused },
    });
    const caller: Caller = { userId: 'u', username: 'u', roles: [], isAdmin: false, via: 'session' };

    const part = path.join(root, 'part');
    fs.writeFileSync(part, 'new');
    const top = await placement.place(caller, { uploadTo: 'V', relativePath: 'taken.txt', filename: '' }, part);
    assert.is(top.name, 'taken (1).txt');
    assert.is(fs.readFileSync(path.join(volume, 'taken.txt'), 'utf8'), 'old', 'never written over');
    assert.not.ok(fs.existsSync(part), 'the part file became the placed file');

    fs.writeFileSync(part, 'deep');
    const deep = await placement.place(caller, { uploadTo: 'V', relativePath: 'a/b/f.txt', filename: '' }, part);
    assert.is(deep.parent, 'V/a/b');
    assert.equal(
      seen.map((c) => [c.type, 'path' in c ? path.relative(volume, c.path) : '']),
      [
        ['created', 'taken (1).txt'],
        ['created', 'a'],
        ['created', path.join('a', 'b')],
        ['created', path.join('a', 'b', 'f.txt')],
      ],
    );
    seen.length = 0;
    await placement.undo(caller, deep);
    assert.not.ok(fs.existsSync(path.join(volume, 'a')));
    assert.equal(
      seen.map((c) => c.type),
      ['deleted', 'deleted', 'deleted'],
    );
    assert.equal(journal.steps, [], 'a link in place needs no temporary');

    // A part file on another file system is copied beside the destination first: under a
    // temporary on the work journal from before it exists until it took its name.
    const other = mountTmpfs(path.join(root, 'other'), '2m');
    try {
      const far = path.join(other.dir, 'part');
      fs.writeFileSync(far, 'from afar');
      const copied = await placement.place(caller, { uploadTo: 'V', relativePath: 'far.txt', filename: '' }, far);
      assert.is(fs.readFileSync(path.join(volume, copied.name), 'utf8'), 'from afar');
      assert.not.ok(fs.existsSync(far), 'the part file is removed once the copy is placed');
      assert.equal(journalled(journal), ['begin:false end:false']);
      assert.ok(path.dirname(journal.steps[0]!.temp) === fs.realpathSync(volume), 'the temporary is beside the file');
      assert.equal(journal.open(), []);
    } finally {
      other.unmount();
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('locks: a newcomer takes over from a writer (its signal aborts) but waits for a placement', async () => {
  const locks = createUploadLocks();
  const writer = await locks.acquire('u1');
  let taken = false;
  const newcomer = locks.acquire('u1').then((l) => {
    taken = true;
    return l;
  });
  await Promise.resolve();
  assert.ok(writer.signal.aborted, 'the writer is told to stop');
  assert.not.ok(taken, 'but the newcomer waits until it lets go');
  writer.release();
  const second = await newcomer;
  assert.ok(taken);
  second.placing();
  let third = false;
  const after = locks.acquire('u1').then((l) => {
    third = true;
    l.release();
  });
  await Promise.resolve();
  assert.not.ok(second.signal.aborted, 'a placement is never interrupted');
  assert.not.ok(third);
  second.release();
  await after;
  assert.ok(third);
  assert.not.ok(locks.held('u1'));
});

test.run();

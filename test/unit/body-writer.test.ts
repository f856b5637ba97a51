// The request-body writer of uploads (src/uploads/body-writer.ts) on real files: every byte lands
// at its offset however the chunks come, and a failure leaves a written prefix it reports.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeBody } from '../../src/uploads/body-writer.ts';
import { YIELD_SLICE_BYTES, type BodyPace } from '../../src/core/load.ts';
import { waitFor } from '../support/wait.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-body-writer-'));
let n = 0;

function fileWith(prefix: Buffer): { file: string; fd: number } {
  const file = path.join(dir, `f${n++}`);
  fs.writeFileSync(file, prefix);
  return { file, fd: fs.openSync(file, 'r+') };
}

function bytes(length: number, seed: number): Buffer {
  const b = Buffer.alloc(length);
  for (let i = 0; i < length; i++) b[i] = (i * 31 + seed) & 0xff;
  return b;
}

test('a body of uneven chunks is written whole, after what the file held, from the position on', async () => {
  const head = Buffer.from('kept-');
  const { file, fd } = fileWith(head);
  const chunks = [1, 65536, 7, 3 << 20, 65535, 1 << 20, 12345].map((len, i) => bytes(len, i));
  try {
    const write = writeBody(Readable.from(chunks), fd, head.length);
    const written = await write.done;
    const body = Buffer.concat(chunks);
    assert.is(written, body.length);
    assert.is(write.written, body.length);
    assert.ok(fs.readFileSync(file).equals(Buffer.concat([head, body])));
  } finally {
    fs.closeSync(fd);
  }
});

test('an empty body writes nothing and resolves with 0', async () => {
  const { file, fd } = fileWith(Buffer.alloc(0));
  try {
    assert.is(await writeBody(Readable.from([]), fd, 0).done, 0);
    assert.is(fs.statSync(file).size, 0);
  } finally {
    fs.closeSync(fd);
  }
});

test('a refusal from inspect rejects with it, destroys the body, and nothing of the refused chunk is written', async () => {
  const { file, fd } = fileWith(Buffer.alloc(0));
  const source = new PassThrough();
  const refusal = new Error('past the length');
  let seen = 0;
  try {
    const write = writeBody(source, fd, 0, {
      inspect: (chunk) => {
        seen += chunk.length;
        if (seen > 100_000) throw refusal;
      },
    });
    source.write(bytes(60_000, 1));
    await waitFor(() => write.written === 60_000, { what: 'the first chunk written', seen: () => write.written });
    source.write(bytes(60_000, 2));
    const err = await write.done.then(
      () => null,
      (e: unknown) => e,
    );
    assert.is(err, refusal);
    assert.ok(source.destroyed);
    // Only whole, accepted chunks can be in the file, and `written` says how much.
    assert.is(fs.statSync(file).size, write.written);
    assert.ok(write.written === 0 || write.written === 60_000, `written ${write.written}`);
  } finally {
    fs.closeSync(fd);
  }
});

test('an abort rejects with its reason and keeps a reported prefix', async () => {
  const { file, fd } = fileWith(Buffer.alloc(0));
  const source = new PassThrough();
  const controller = new AbortController();
  try {
    const write = writeBody(source, fd, 0, { signal: controller.signal });
    source.write(bytes(200_000, 3));
    await waitFor(() => write.written > 0, { what: 'a first part written' });
    controller.abort(new Error('superseded'));
    const err = (await write.done.then(
      () => null,
      (e: unknown) => e,
    )) as Error | null;
    assert.is(err?.message, 'superseded');
    assert.ok(source.destroyed);
    assert.is(fs.statSync(file).size, write.written);
    assert.ok(fs.readFileSync(file).equals(bytes(200_000, 3).subarray(0, write.written)));
  } finally {
    fs.closeSync(fd);
  }
});

test('a body cut off before its end rejects (the sender left)', async () => {
  const { fd } = fileWith(Buffer.alloc(0));
  const source = new PassThrough();
  try {
    const write = writeBody(source, fd, 0);
    source.write(bytes(1000, 4));
    source.destroy(new Error('ECONNRESET'));
    const err = (await write.done.then(
      () => null,
      (e: unknown) => e,
    )) as Error | null;
    assert.is(err?.message, 'ECONNRESET');
  } finally {
    fs.closeSync(fd);
  }
});

test('a write that fails (a descriptor open for reading only) rejects with the write error', async () => {
  const file = path.join(dir, `ro${n++}`);
  fs.writeFileSync(file, '');
  const fd = fs.openSync(file, 'r');
  try {
    const err = (await writeBody(Readable.from([bytes(5000, 5)]), fd, 0).done.then(
      () => null,
      (e: unknown) => e,
    )) as NodeJS.ErrnoException | null;
    assert.is(err?.code, 'EBADF');
  } finally {
    fs.closeSync(fd);
  }
});

test('freeWritten releases the memory of chunks that own their whole buffer once written, and only theirs', async () => {
  const { file, fd } = fileWith(Buffer.alloc(0));
  const own = [bytes(65536, 1), bytes(1000, 2)].map((b) => {
    const copy = Buffer.allocUnsafeSlow(b.length);
    b.copy(copy);
    return copy;
  });
  const larger = bytes(4096, 3);
  const view = larger.subarray(10, 2010);
  const chunks = [own[0]!, view, own[1]!];
  const expected = Buffer.concat(chunks);
  try {
    assert.is(await writeBody(Readable.from(chunks), fd, 0, { freeWritten: true }).done, expected.length);
    assert.ok(fs.readFileSync(file).equals(expected));
    assert.ok(
      own.every((b) => (b.buffer as ArrayBuffer).detached),
      'a chunk of its own is freed',
    );
    assert.not.ok((larger.buffer as ArrayBuffer).detached, 'a view into a larger buffer is left');
    assert.is(larger.length, 4096);
  } finally {
    fs.closeSync(fd);
  }
});

test('without freeWritten no chunk is touched', async () => {
  const { fd } = fileWith(Buffer.alloc(0));
  const chunk = Buffer.allocUnsafeSlow(5000).fill(7);
  try {
    await writeBody(Readable.from([chunk]), fd, 0).done;
    assert.not.ok((chunk.buffer as ArrayBuffer).detached);
    assert.is(chunk[4999], 7);
  } finally {
    fs.closeSync(fd);
  }
});

/** A pace whose "someone waits" the test sets, and whose call back it fires itself. */
function testPace(): BodyPace & { someone: boolean; go: (() => void) | null; asked: number } {
  const pace = {
    someone: true,
    go: null as (() => void) | null,
    asked: 0,
    waiting: () => pace.someone,
    whenServed(go: () => void) {
      pace.asked++;
      pace.go = () => {
        pace.go = null;
        go();
      };
      return () => {
        pace.go = null;
      };
    },
  };
  return pace;
}

test('while someone waits, a body stops reading after its batch and goes on once they are served', async () => {
  const { file, fd } = fileWith(Buffer.alloc(0));
  const source = new PassThrough();
  const pace = testPace();
  try {
    const write = writeBody(source, fd, 0, { pace });
    const first = bytes(65_536, 1);
    source.write(first);
    await waitFor(() => pace.go !== null, { what: 'the body holding back', seen: () => write.written });
    assert.ok(source.isPaused(), 'the source is paused while someone waits');
    assert.is(write.written, first.length);
    // More arrives meanwhile: it stays in the source until the body is called back.
    const rest = bytes(3 * 65_536, 2);
    source.write(rest);
    assert.is(write.written, first.length);
    pace.someone = false;
    pace.go!();
    source.end();
    assert.is(await write.done, first.length + rest.length);
    assert.ok(fs.readFileSync(file).equals(Buffer.concat([first, rest])));
    assert.is(pace.asked, 1, 'nobody waited after the call back: the body did not ask again');
  } finally {
    fs.closeSync(fd);
  }
});

test('called back while people still wait (the longest a body yields), it reads a slice before it yields again', async () => {
  const { file, fd } = fileWith(Buffer.alloc(0));
  const source = new PassThrough();
  const pace = testPace();
  const parts: Buffer[] = [];
  try {
    let read = 0;
    const write = writeBody(source, fd, 0, { pace, inspect: (chunk) => void (read += chunk.length) });
    parts.push(bytes(1000, 3));
    source.write(parts[0]);
    await waitFor(() => pace.go !== null, { what: 'the body holding back' });
    pace.go!(); // the pace's own time limit: someone still waits
    for (let i = 0; i < 6; i++) {
      parts.push(bytes(1 << 20, 10 + i));
      source.write(parts.at(-1));
    }
    await waitFor(() => pace.asked === 2 && pace.go !== null, {
      what: 'the body holding back again',
      seen: () => write.written,
    });
    const sent = parts.reduce((sum, p) => sum + p.length, 0);
    assert.ok(read >= 1000 + YIELD_SLICE_BYTES, `a slice read before yielding again: ${read}`);
    assert.ok(read < sent, 'and it yielded before the end');
    pace.someone = false;
    pace.go!();
    source.end();
    await write.done;
    assert.ok(fs.readFileSync(file).equals(Buffer.concat(parts)));
  } finally {
    fs.closeSync(fd);
  }
});

test('without a pace, or when nobody waits, a body never holds back', async () => {
  const { fd } = fileWith(Buffer.alloc(0));
  const pace = testPace();
  pace.someone = false;
  try {
    const chunks = Array.from({ length: 8 }, (_, i) => bytes(1 << 20, i));
    assert.is(await writeBody(Readable.from(chunks), fd, 0, { pace }).done, 8 << 20);
    assert.is(pace.asked, 0);
  } finally {
    fs.closeSync(fd);
  }
});

test.after(() => fs.rmSync(dir, { recursive: true, force: true }));

test.run();

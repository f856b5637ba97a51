// How busy people keep the server (src/core/load.ts): bulk request bodies (uploads) yield to
// people's other requests — which requests count, and when a yielding body is called back.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BULK_BODY_BYTES, isBulkBody, paceFor, RequestLoad } from '../../src/core/load.ts';
import { waitFor } from '../support/wait.ts';

test('a body over BULK_BODY_BYTES or of unknown length is bulk; a small one or none is not', () => {
  assert.ok(isBulkBody({ 'content-length': String(8 << 20) }));
  assert.ok(isBulkBody({ 'content-length': String(BULK_BODY_BYTES + 1) }));
  assert.ok(isBulkBody({ 'transfer-encoding': 'chunked' }));
  assert.not.ok(isBulkBody({ 'content-length': String(BULK_BODY_BYTES) }));
  assert.not.ok(isBulkBody({ 'content-length': '0' }));
  assert.not.ok(isBulkBody({}));
});

test("every request of the resumable-upload protocol is the upload's own (its creation and HEAD too)", () => {
  assert.ok(isBulkBody({ 'tus-resumable': '1.0.0', 'content-length': '0' }), 'a creation POST');
  assert.ok(isBulkBody({ 'tus-resumable': '1.0.0' }), 'a HEAD');
  assert.ok(isBulkBody({ 'tus-resumable': '1.0.0', 'content-length': '1000' }), 'a small last PATCH');
});

test('only a bulk body is paced: a small one (a photo, an office save over WebDAV) is someone waiting itself', () => {
  const load = new RequestLoad();
  // The small upload's own request is in flight: paced, it would wait for itself.
  const own = load.begin(false);
  assert.ok(load.waiting());
  assert.equal(paceFor(load, { 'content-length': String(300 * 1024) }), {});
  assert.equal(paceFor(load, { 'content-length': String(BULK_BODY_BYTES + 1) }), { pace: load });
  assert.equal(paceFor(load, { 'transfer-encoding': 'chunked' }), { pace: load });
  assert.equal(paceFor(load, { 'tus-resumable': '1.0.0', 'content-length': '12' }), { pace: load });
  assert.equal(paceFor(undefined, { 'content-length': String(BULK_BODY_BYTES + 1) }), {});
  load.end(own);
});

test('bulk bodies are nobody waiting; any other request in flight is someone waiting', () => {
  const load = new RequestLoad({ lingerMs: 0 });
  assert.not.ok(load.waiting());
  const upload = load.begin(true);
  const other = load.begin(true);
  assert.not.ok(load.waiting(), 'uploads do not make each other wait');
  const listing = load.begin();
  assert.ok(load.waiting());
  load.end(listing);
  assert.not.ok(load.waiting());
  load.end(upload);
  load.end(other);
  assert.is(load.inFlight, 0);
});

test('a yielding body is called back once the last request it yields to is answered, once', async () => {
  const load = new RequestLoad({ lingerMs: 0 });
  const upload = load.begin(true);
  const a = load.begin();
  const b = load.begin();
  let called = 0;
  load.whenServed(() => called++);
  load.end(a);
  assert.is(called, 0, 'someone still waits');
  load.end(b);
  assert.is(called, 1);
  load.end(upload);
  assert.is(called, 1);
});

test('a yielding body is called back by the time limit while people still wait; a cancelled one never', async () => {
  const load = new RequestLoad({ lingerMs: 0 });
  const listing = load.begin();
  let called = 0;
  let cancelledCalled = 0;
  load.whenServed(() => called++);
  const cancel = load.whenServed(() => cancelledCalled++);
  cancel();
  await waitFor(() => called === 1, { what: 'the call back at the time limit' });
  assert.ok(load.waiting(), 'still waiting: the body was let through by the limit');
  load.end(listing);
  assert.is(called, 1);
  assert.is(cancelledCalled, 0);
});

test('after the last answer bulk bodies linger (a run of requests), then are called back', async () => {
  const load = new RequestLoad({ lingerMs: 60_000 });
  const listing = load.begin();
  load.end(listing);
  assert.ok(load.waiting(), 'lingering after the answer');
  const upload = load.begin(true);
  load.end(upload);
  assert.ok(load.waiting(), 'a bulk body answered starts no linger of its own, nor ends one');

  const short = new RequestLoad({ lingerMs: 50 });
  short.begin(true);
  let called = 0;
  const a = short.begin();
  short.whenServed(() => called++);
  short.end(a);
  assert.is(called, 0, 'not at the answer: after the linger');
  await waitFor(() => called === 1, { what: 'the call back after the linger' });
  await waitFor(() => !short.waiting(), { what: 'nobody waiting after the linger' });
});

test('a body that yields inside the linger goes on at its end, not at the time limit', async () => {
  // The time limit far away: only the linger's end can call the body back.
  const load = new RequestLoad({ lingerMs: 50, maxYieldMs: 600_000 });
  load.begin(true);
  const listing = load.begin();
  load.end(listing);
  assert.ok(load.waiting(), 'lingering after the answer');
  let called = 0;
  const cancel = load.whenServed(() => called++);
  try {
    assert.is(called, 0, 'not at once');
    await waitFor(() => called === 1, { what: 'the call back at the end of the linger' });
    assert.not.ok(load.waiting());
  } finally {
    cancel();
  }
});

test.run();

// If-Match as the editor's saves read it (RFC 9110 §13.1.1): `*` needs a current file, a list
// holds when one tag is the current ETag by the strong comparison, a weak tag never holds.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { etagMatches, ifMatchHolds } from '../../src/http/conditional.ts';

test('If-Match: * holds only while the file exists', () => {
  assert.ok(ifMatchHolds('*', '"abc"'));
  assert.not.ok(ifMatchHolds('*', null));
  assert.not.ok(ifMatchHolds('"abc"', null));
});

test('If-Match: a list holds when one tag is the current one, quoted commas included', () => {
  assert.ok(ifMatchHolds('"abc"', '"abc"'));
  assert.ok(ifMatchHolds('"old", "abc"', '"abc"'));
  assert.ok(ifMatchHolds('"a,b", "abc"', '"abc"'));
  assert.ok(ifMatchHolds('"a,b"', '"a,b"'));
  assert.not.ok(ifMatchHolds('"abd"', '"abc"'));
  assert.not.ok(ifMatchHolds('"old", "other"', '"abc"'));
});

test('If-Match compares strongly (a weak tag never holds); If-None-Match weakly', () => {
  assert.not.ok(ifMatchHolds('W/"abc"', '"abc"'));
  assert.ok(etagMatches('W/"abc"', '"abc"'));
});

test.run();

// Where a passkey ceremony can run, said in words (ui/src/settings/passkey-address.ts): at a
// numeric address the browser's own text is "127.0.0.1 is an invalid domain"; the page says why
// and offers localhost (or PUBLIC_URL), keeping its path.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { passkeyErrorWords, passkeyPlace } from '../../ui/src/settings/passkey-address.ts';

const page = (url: string) => {
  const u = new URL(url);
  return { protocol: u.protocol, hostname: u.hostname, port: u.port, pathname: u.pathname, search: u.search };
};

test('127.0.0.1 and [::1]: a name is needed; localhost on the same port and path is offered', () => {
  const at = passkeyPlace(page('http://127.0.0.1:3000/settings/security'), null, true)!;
  assert.match(at.problem, /never to a numeric address like 127\.0\.0\.1/);
  assert.is(at.there, 'http://localhost:3000/settings/security');
  const v6 = passkeyPlace(page('http://[::1]:8080/login?next=%2Ffiles'), null, true)!;
  assert.is(v6.there, 'http://localhost:8080/login?next=%2Ffiles');
});

test('a LAN address over http: no address to offer here; what to do is said', () => {
  const at = passkeyPlace(page('http://192.168.1.20:3000/login'), null, false)!;
  assert.match(at.problem, /numeric address like 192\.168\.1\.20/);
  assert.is(at.there, null);
  assert.match(at.advice!, /http:\/\/localhost:3000\//);
  assert.match(at.advice!, /PUBLIC_URL/);
});

test('a name over plain http is not a secure page; localhost, https and PUBLIC_URL pages are fine', () => {
  assert.match(passkeyPlace(page('http://nas.local:3000/'), null, false)!.problem, /secure connection/);
  assert.is(passkeyPlace(page('http://localhost:3000/'), null, true), null);
  assert.is(passkeyPlace(page('https://files.example.org/'), 'https://files.example.org', true), null);
  assert.is(passkeyPlace(page('https://photos.example.org/'), 'https://files.example.org', true), null);
});

test('with PUBLIC_URL, another address is sent there', () => {
  const at = passkeyPlace(page('http://localhost:3000/settings/security'), 'https://files.example.org', true)!;
  assert.match(at.problem, /belong to files\.example\.org/);
  assert.is(at.there, 'https://files.example.org/settings/security');
  assert.is(
    passkeyPlace(page('http://127.0.0.1:3000/login'), 'https://files.example.org/', true)!.there,
    'https://files.example.org/login',
  );
});

test("the browser's refusal reads as words, never 'invalid domain'", () => {
  const place = passkeyPlace(page('http://127.0.0.1:3000/login'), null, true);
  const domain = Object.assign(new Error('127.0.0.1 is an invalid domain'), { name: 'SecurityError' });
  const words = (passkeyErrorWords(domain, place) as Error).message;
  assert.not.match(words, /invalid domain/);
  assert.match(words, /Open http:\/\/localhost:3000\/login to use passkeys/);
  const cancelled = Object.assign(new Error('The operation either timed out or was not allowed.'), {
    name: 'NotAllowedError',
  });
  assert.match(
    (passkeyErrorWords(cancelled, null) as Error).message,
    /cancelled or timed out, or this device has no passkey made at this address/,
  );
  const other = new Error('network');
  assert.is(passkeyErrorWords(other, null), other);
});

test.run();

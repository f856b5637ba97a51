// HTTPS's certificate keeper (src/tls/service.ts) with its clock moved: a certificate 30 days from
// its end is made again (signed by the same authority, which devices already trust), one with
// time left is kept; a new address on an interface makes a new one that covers it; the
// authority's key is sealed on disk and opens only under its own key file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { X509Certificate } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createTls } from '../../src/tls/service.ts';
import { namesOf, type CertNames } from '../../src/tls/authority.ts';
import { covers } from '../../src/tls/names.ts';
import { createLogger } from '../../src/core/log.ts';

const DAY = 86_400_000;

function keeper(dir: string, clock: { now: number }, wanted: () => CertNames) {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger('debug', {}, (l) => lines.push(JSON.parse(l)));
  const tls = createTls({ configDir: dir, given: null, log, wanted, now: () => new Date(clock.now) });
  return { tls, lines };
}

test('renewed 30 days before its end, by the same authority; kept before', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow tls clock '));
  try {
    const clock = { now: Date.now() };
    const names = { dns: ['burrow.local', 'localhost'], ips: ['127.0.0.1', '192.168.178.24'] };
    const { tls } = keeper(dir, clock, () => names);
    const first = await tls.ready();
    const ca = new X509Certificate(tls.authority()!);
    const x1 = new X509Certificate(first.cert);
    assert.ok(x1.verify(ca.publicKey));
    assert.ok(covers(namesOf(x1), names));

    clock.now += 59 * DAY; // 31 days left
    assert.is(await tls.renew(), false);
    assert.is(tls.current().cert, first.cert);

    clock.now += 2 * DAY; // 29 days left
    let told = 0;
    tls.onChange(() => told++);
    assert.is(await tls.renew(), true);
    assert.is(told, 1);
    const x2 = new X509Certificate(tls.current().cert);
    assert.is.not(x2.fingerprint256, x1.fingerprint256);
    assert.ok(x2.verify(ca.publicKey), 'the same authority signs it');
    assert.ok(x2.validToDate.getTime() - clock.now > 89 * DAY);
    assert.is(tls.authority(), ca.toString());

    // A second keeper over the same folder (the next start) takes what is on disk.
    const again = keeper(dir, clock, () => names).tls;
    assert.is((await again.ready()).cert, tls.current().cert);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a new address makes a certificate that covers it', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow tls names '));
  try {
    const clock = { now: Date.now() };
    let names: CertNames = { dns: ['burrow.local'], ips: ['127.0.0.1', '192.168.1.20'] };
    const { tls, lines } = keeper(dir, clock, () => names);
    await tls.ready();
    assert.is(await tls.renew(), false);
    names = { dns: ['burrow.local', 'burrow-2.local'], ips: ['127.0.0.1', '192.168.1.20', '10.0.0.7', 'fd12:3456::7'] };
    assert.is(await tls.renew(), true);
    const got = namesOf(new X509Certificate(tls.current().cert));
    assert.ok(covers(got, names), JSON.stringify(got));
    assert.ok(lines.some((l) => l.msg === 'made the HTTPS certificate' && l.reason === 'a name or address is missing'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("the authority's key is sealed on disk, and opens under its own key file only", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow tls sealed '));
  try {
    const clock = { now: Date.now() };
    const { tls } = keeper(dir, clock, () => ({ dns: ['burrow.local'], ips: ['127.0.0.1'] }));
    await tls.ready();
    const sealed = fs.readFileSync(path.join(dir, 'tls', 'ca.key.sealed'), 'utf8');
    assert.not.match(sealed, /PRIVATE KEY|BEGIN/);
    // Another key file (a copy of CONFIG_DIR/tls without CONFIG_DIR/keys): the authority cannot be used.
    fs.rmSync(path.join(dir, 'keys'), { recursive: true });
    fs.rmSync(path.join(dir, 'tls', 'server.crt'));
    const other = keeper(dir, clock, () => ({ dns: ['burrow.local'], ips: ['127.0.0.1'] })).tls;
    const failed = await other.ready().then(
      () => null,
      (err: Error) => err.message,
    );
    assert.ok(failed, 'the sealed key opened under another key');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();

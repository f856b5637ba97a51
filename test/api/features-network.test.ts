// /api/features `network`: where other devices reach this server, for a page opened at a
// loopback address while PUBLIC_URL is unset (a link made at localhost opens nowhere else).
// The LAN addresses are told only to a request from this computer to a loopback name; a request
// from another address, relayed by a proxy, or naming another host learns none of them.
import http from 'node:http';
import os from 'node:os';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { removeDirs, startServer, type TestServer } from '../support/server.ts';

/** GET /api/features with the Host and headers given, to `address` (fetch cannot set Host). */
function features(
  server: TestServer,
  opts: { host?: string; address?: string; headers?: Record<string, string> } = {},
): Promise<any> {
  const port = new URL(server.url).port;
  return new Promise((resolve, reject) => {
    const req = http.get(
      {
        host: opts.address ?? '127.0.0.1',
        port,
        path: '/api/features',
        headers: { host: opts.host ?? `127.0.0.1:${port}`, accept: 'application/json', ...opts.headers },
      },
      (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => {
          if (res.statusCode !== 200) return reject(new Error(`features answered ${res.statusCode}: ${body}`));
          resolve(JSON.parse(body).network);
        });
      },
    );
    req.on('error', reject);
  });
}

/** This machine's IPv4 LAN addresses, as another device would use them. */
const lanIPv4 = () =>
  Object.values(os.networkInterfaces())
    .flat()
    .filter((a) => a && !a.internal && a.family === 'IPv4')
    .map((a) => a!.address);

test('listening on this computer only: a loopback page is told no other device can connect', async () => {
  const s = await startServer();
  try {
    assert.equal(await features(s), {
      enabled: true,
      publicUrl: null,
      loopback: true,
      reachable: false,
      lanOrigins: [],
      announced: null,
    });
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('listening on every interface: a page at localhost or 127.0.0.1 is given each LAN address; nobody else is', async () => {
  const s = await startServer({ env: { HOST: '0.0.0.0', ALLOWED_HOSTS: 'files.example.org' } });
  try {
    const port = new URL(s.url).port;
    const expected = lanIPv4().map((a) => `http://${a}:${port}`);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LocalHost:${port}`]) {
      const n = await features(s, { host });
      assert.equal(
        n,
        { enabled: true, publicUrl: null, loopback: true, reachable: true, lanOrigins: expected, announced: null },
        host,
      );
    }
    // Through a proxy on this computer (it forwards for someone else), or naming another host.
    const relayed: Record<string, string>[] = [{ 'x-forwarded-for': '203.0.113.9' }, { forwarded: 'for=203.0.113.9' }];
    for (const headers of relayed) {
      const n = await features(s, { headers });
      assert.is(n.loopback, false, JSON.stringify(headers));
      assert.equal(n.lanOrigins, []);
    }
    const named = await features(s, { host: `files.example.org:${port}` });
    assert.is(named.loopback, false);
    assert.equal(named.lanOrigins, []);
    // Another device on the network (here: this machine's own LAN address, a non-loopback peer).
    for (const address of lanIPv4()) {
      const n = await features(s, { address, host: `${address}:${port}` });
      assert.equal(
        n,
        { enabled: true, publicUrl: null, loopback: false, reachable: true, lanOrigins: [], announced: null },
        address,
      );
    }
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('with PUBLIC_URL links are made with it: no LAN addresses, the public address is told', async () => {
  const s = await startServer({ env: { HOST: '0.0.0.0', PUBLIC_URL: 'https://files.example.org' } });
  try {
    assert.equal(await features(s), {
      enabled: true,
      publicUrl: 'https://files.example.org',
      loopback: true,
      reachable: true,
      lanOrigins: [],
      announced: null,
    });
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test('the section is described in /api/openapi.json', async () => {
  const s = await startServer();
  try {
    const doc = (await (await fetch(`${s.url}/api/openapi.json`)).json()) as any;
    const schema = doc.paths['/api/features'].get.responses['200'].content['application/json'].schema;
    const network = (schema.properties ?? doc.components.schemas[schema.$ref.split('/').pop()].properties).network;
    assert.ok(network.properties.lanOrigins, 'lanOrigins');
    assert.ok(network.properties.loopback.description, 'described');
    assert.equal(network.required.sort(), ['announced', 'enabled', 'lanOrigins', 'loopback', 'publicUrl', 'reachable']);
  } finally {
    await s.close();
    removeDirs(s.dirs);
  }
});

test.run();

// burrow.local by multicast DNS, on a link of two network namespaces the test makes (Burrow in
// one, a second mDNS party in the other): a device that already answers for burrow.local makes
// Burrow take burrow-2.local; that name resolves to Burrow's addresses (A and AAAA), DNS-SD finds its HTTPS and
// WebDAV services with their ports and paths, the HTTPS certificate covers the name and the Host
// allow-list takes it; on SIGTERM its records are withdrawn (TTL 0). Switched off (MDNS_ENABLED=false),
// a server on the same link sends nothing from its start to its end.
import fs from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeDirs, removeDirs, serverCommand, type TestDirs } from '../support/server.ts';
import { makeNetnsPair, type Netns } from '../support/netns.ts';
import { waitFor } from '../support/wait.ts';

const CLIENT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', 'support', 'mdns-client.ts');

function lines(child: ChildProcess): { all: string[]; json: Record<string, any>[] } {
  const out = { all: [] as string[], json: [] as Record<string, any>[] };
  let partial = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => {
    const parts = (partial + c).split('\n');
    partial = parts.pop()!;
    for (const l of parts) {
      out.all.push(l);
      try {
        out.json.push(JSON.parse(l));
      } catch {
        /* not JSON */
      }
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (c: string) => out.all.push(c));
  return out;
}

/** Burrow started in `ns` on all its addresses, logging at info, with mDNS on or off: the child and its output. */
function startBurrow(ns: Netns, dirs: TestDirs, mdns: boolean) {
  const c = serverCommand();
  const server = ns.spawn([c.file, ...c.args], {
    ...c.env,
    HOST: '0.0.0.0',
    PORT: '0',
    LOG_LEVEL: 'info',
    CONFIG_DIR: dirs.config,
    CACHE_DIR: dirs.cache,
    VOLUME_ROOT: dirs.volumes,
    MDNS_ENABLED: String(mdns),
  });
  return { server, log: lines(server) };
}

test('a taken name makes burrow-2.local, which resolves, offers its services, and is withdrawn on SIGTERM', async () => {
  const net = makeNetnsPair('mdns');
  const dirs = makeDirs('burrow-mdns-');
  const children: ChildProcess[] = [];
  try {
    // Burrow's machine has an IPv6 address on the link too (no duplicate detection: usable at once).
    const link = (await net.a.run(['ip', '-o', 'link', 'show'])).stdout
      .split('\n')
      .map((l) => /^\d+: ([^:@]+)/.exec(l)?.[1])
      .find((n) => n && n !== 'lo')!;
    const v6 = await net.a.run(['ip', '-6', 'addr', 'add', 'fd00:232::a/64', 'dev', link, 'nodad']);
    assert.is(v6.status, 0, v6.stderr);
    // The other device, answering for burrow.local before Burrow starts.
    const squatter = net.b.spawn([process.execPath, CLIENT, 'squat', 'burrow.local', net.b.address]);
    children.push(squatter);
    const sq = lines(squatter);
    await waitFor(() => sq.all.includes('"ready"'), { what: 'the squatter ready', seen: () => sq.all });

    const { server, log } = startBurrow(net.a, dirs, true);
    children.push(server);
    const announced = await waitFor(() => log.json.find((l) => l.msg === 'announced on the network (mDNS)'), {
      what: 'the announcement',
      timeoutMs: 60_000,
      seen: () => log.all.slice(-20),
    });
    assert.is(announced.name, 'burrow-2.local');
    assert.ok(
      log.json.some((l) => l.msg.startsWith('another device answers for this name') && l.name === 'burrow.local'),
    );
    const https = log.json.find((l) => l.msg === 'HTTPS is listening')!.port as number;
    const http = log.json.find((l) => l.msg === 'Burrow is listening')!.port as number;

    // Resolved from the other machine.
    const resolved = await net.b.run([process.execPath, CLIENT, 'resolve', 'burrow-2.local']);
    assert.is(resolved.status, 0, resolved.stderr);
    assert.equal(JSON.parse(resolved.stdout), [{ data: net.a.address, ttl: 120 }]);
    const resolved6 = await net.b.run([process.execPath, CLIENT, 'resolve', 'burrow-2.local', 'AAAA']);
    assert.is(resolved6.status, 0, resolved6.stderr);
    assert.ok(
      (JSON.parse(resolved6.stdout) as { data: string; ttl: number }[]).some(
        (r) => r.data === 'fd00:232::a' && r.ttl === 120,
      ),
      resolved6.stdout,
    );

    // The services, with their ports and paths.
    const found: Record<string, any> = {};
    for (const type of ['_https._tcp.local', '_http._tcp.local', '_webdav._tcp.local', '_webdavs._tcp.local']) {
      const r = await net.b.run([process.execPath, CLIENT, 'browse', type]);
      assert.is(r.status, 0, `${type}: ${r.stderr}`);
      found[type] = JSON.parse(r.stdout);
      assert.is(found[type].srv.target, 'burrow-2.local', type);
    }
    assert.is(found['_https._tcp.local'].srv.port, https);
    assert.is(found['_http._tcp.local'].srv.port, http);
    assert.is(found['_webdavs._tcp.local'].srv.port, https);
    assert.equal(found['_webdav._tcp.local'].txt, ['path=/dav/']);

    // The name is answered over HTTPS (allow-list) with a certificate that covers it.
    await waitFor(
      () => log.json.find((l) => l.msg === 'made the HTTPS certificate' && l.names?.dns?.includes('burrow-2.local')),
      {
        what: 'a certificate for the announced name',
      },
    );
    const ca = path.join(dirs.config, 'tls', 'ca.crt');
    const curl = await net.b.run([
      'curl',
      '-sS',
      '--cacert',
      ca,
      '--resolve',
      `burrow-2.local:${https}:${net.a.address}`,
      `https://burrow-2.local:${https}/api/features`,
    ]);
    assert.is(curl.status, 0, curl.stderr);
    assert.match(curl.stdout, /^\{"version"/);

    // SIGTERM: the records go (TTL 0) before the process ends.
    const listener = net.b.spawn([process.execPath, CLIENT, 'goodbye', 'burrow-2.local']);
    children.push(listener);
    const bye = lines(listener);
    await waitFor(() => bye.all.includes('"ready"'), { what: 'the goodbye listener ready' });
    server.kill('SIGTERM');
    const gone = await waitFor(() => bye.json.find((l) => Array.isArray(l)), {
      what: 'the goodbye records',
      timeoutMs: 20_000,
    });
    assert.ok(
      gone.some((r: { type: string }) => r.type === 'A'),
      JSON.stringify(gone),
    );
    await waitFor(() => server.exitCode !== null || server.signalCode !== null, { what: 'the server ended' });
    assert.is(server.exitCode, 0);
  } finally {
    for (const ch of children) if (ch.exitCode === null && ch.signalCode === null) ch.kill('SIGKILL');
    net.remove();
    removeDirs(dirs);
  }
});

test('switched off, Burrow says nothing on the network from its start to its end', async () => {
  const net = makeNetnsPair('mdnsoff');
  const dirs = makeDirs('burrow-mdns-off-');
  const children: ChildProcess[] = [];
  try {
    // Everything multicast DNS on the link, heard from the other machine.
    const listener = net.b.spawn([process.execPath, CLIENT, 'listen']);
    children.push(listener);
    const heard = lines(listener);
    await waitFor(() => heard.all.includes('"ready"'), { what: 'the listener ready', seen: () => heard.all });

    const { server, log } = startBurrow(net.a, dirs, false);
    children.push(server);
    // Announcing follows HTTPS; and on SIGTERM the server waits for an announcement under way
    // and withdraws it before it ends — so a responder started at all has spoken by the exit.
    await waitFor(() => log.json.find((l) => l.msg === 'HTTPS is listening'), {
      what: 'HTTPS listening',
      timeoutMs: 60_000,
      seen: () => log.all.slice(-20),
    });
    server.kill('SIGTERM');
    await waitFor(() => server.exitCode !== null || server.signalCode !== null, { what: 'the server ended' });
    assert.is(server.exitCode, 0);
    // A marker sent from the server's machine after it ended: what the server sent came before it.
    const marker = `marker-${process.pid}.local`;
    const asked = await net.a.run([process.execPath, CLIENT, 'ask', marker]);
    assert.is(asked.status, 0, asked.stderr);
    await waitFor(() => heard.json.find((p) => p.names?.includes(marker)), {
      what: 'the marker heard',
      seen: () => heard.all,
    });
    const fromServer = heard.json.filter((p) => p.from === net.a.address && !p.names?.includes(marker));
    assert.equal(fromServer, []);
    assert.not.ok(
      log.json.some((l) => /mDNS/.test(l.msg)),
      'no mDNS line in its log',
    );
    assert.not.ok(fs.existsSync(path.join(dirs.config, 'announced')), 'no announced name recorded');
  } finally {
    for (const ch of children) if (ch.exitCode === null && ch.signalCode === null) ch.kill('SIGKILL');
    net.remove();
    removeDirs(dirs);
  }
});

test.run();

// A second mDNS party for the tests, run inside a network namespace (`ip netns exec`):
//   squat NAME ADDRESS   answers for NAME (A ADDRESS) until killed — a device that has the name
//   resolve NAME [TYPE]  prints the A (or TYPE: AAAA) answers for NAME (JSON), once one comes
//   browse TYPE          prints the PTR → SRV/TXT records of a DNS-SD service type (JSON), once one comes
//   goodbye NAME         prints 'ready', then the records for NAME with TTL 0 once they come
//   listen               prints 'ready', then every query and response heard, with its sender (JSON)
//   ask NAME             sends one query for NAME (A) and exits
import makeMdns from 'multicast-dns';

// The records as they come (dns-packet's union types are not needed to read a few fields).
type Rec = { name: string; type: string; ttl?: number; data?: unknown };

const [mode, name, address] = process.argv.slice(2) as [string, string, string | undefined];
const mdns = makeMdns({ reuseAddr: true });
const print = (v: unknown) => process.stdout.write(JSON.stringify(v) + '\n');
const every = (fn: () => void) => {
  fn();
  setInterval(fn, 300);
};

mdns.on('ready', () => {
  if (mode === 'squat') {
    mdns.on('query', (q) => {
      if (q.questions.some((x) => x.name.toLowerCase() === name))
        mdns.respond({ answers: [{ name, type: 'A', ttl: 120, data: address! }] });
    });
    print('ready');
  } else if (mode === 'resolve') {
    const type = (address ?? 'A') as 'A' | 'AAAA';
    mdns.on('response', (r) => {
      const a = (r.answers as Rec[]).filter((x) => x.name.toLowerCase() === name && x.type === type);
      if (a.length) {
        print(a.map((x) => ({ data: x.data, ttl: x.ttl })));
        process.exit(0);
      }
    });
    every(() => mdns.query({ questions: [{ name, type }] }));
  } else if (mode === 'browse') {
    mdns.on('response', (r) => {
      const all = [...r.answers, ...(r.additionals ?? [])] as Rec[];
      const srv = all.find((x) => x.type === 'SRV' && x.name.toLowerCase().endsWith(`.${name}`));
      if (srv) {
        const txt = all.find((x) => x.type === 'TXT' && x.name === srv.name);
        print({
          instance: srv.name,
          srv: srv.data,
          txt: ((txt?.data ?? []) as Buffer[]).map((b) => Buffer.from(b).toString()),
        });
        process.exit(0);
      }
    });
    every(() => mdns.query({ questions: [{ name, type: 'PTR' }] }));
  } else if (mode === 'listen') {
    const heard = (kind: string) => (packet: { questions?: Rec[]; answers?: Rec[] }, from: { address: string }) =>
      print({
        kind,
        from: from.address,
        names: [...(packet.questions ?? []), ...(packet.answers ?? [])].map((x) => x.name),
      });
    mdns.on('query', heard('query'));
    mdns.on('response', heard('response'));
    print('ready');
  } else if (mode === 'ask') {
    mdns.query({ questions: [{ name, type: 'A' }] }, () => process.exit(0));
  } else if (mode === 'goodbye') {
    mdns.on('response', (r) => {
      const gone = (r.answers as Rec[]).filter((x) => x.name.toLowerCase() === name && x.ttl === 0);
      if (gone.length) {
        print(gone.map((x) => ({ type: x.type, ttl: x.ttl })));
        process.exit(0);
      }
    });
    print('ready');
  }
});

// The crowd of the live bench, in a process of its own (its parsing and timers must not slow the
// bench's clock or its curl): `count` WebSocket clients watch `folder` at `url`; the parent is
// told `{ ready }` once all watch, then, per name, when the last of them heard it created
// (`at`: milliseconds since the epoch, sub-millisecond, the same clock as the parent's).
import WebSocket from 'ws';

const [url, folder, countArg] = process.argv.slice(2) as [string, string, string];
const count = Number(countArg);
const heard = new Map<string, number>();
const now = () => performance.timeOrigin + performance.now();

function connect(): Promise<WebSocket> {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/api/live`, { origin: url });
  return new Promise((resolve, reject) => {
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString());
      if (m.type === 'watching') resolve(ws);
      if (m.type !== 'changes') return;
      for (const e of m.events) {
        if (e.type !== 'created') continue;
        const n = (heard.get(e.name) ?? 0) + 1;
        heard.set(e.name, n);
        if (n === count) process.send!({ name: e.name, at: now() });
      }
    });
    ws.once('open', () => ws.send(JSON.stringify({ type: 'watch', path: folder })));
    ws.once('error', reject);
  });
}

const sockets = await Promise.all(Array.from({ length: count }, connect));
process.send!({ ready: true });
process.on('disconnect', () => {
  for (const ws of sockets) ws.terminate();
  process.exit(0);
});

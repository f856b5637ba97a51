// A round-robin balancer for cluster tests: every request (and every WebSocket upgrade) goes to
// the next instance in turn, so no two requests in a row reach the same one — no sticky
// sessions. Headers and bodies are piped as they are; the instance each request went to is kept.
import http from 'node:http';
import net from 'node:net';

export interface Balancer {
  readonly url: string;
  /** The instance (index into the targets) each request was sent to, in order. */
  readonly sentTo: number[];
  close(): Promise<void>;
}

/** `port`: where to listen (0, any free one; a balancer started again keeps its address). */
export async function startBalancer(targets: readonly string[], port = 0): Promise<Balancer> {
  const ports = targets.map((t) => Number(new URL(t).port));
  let next = 0;
  const sentTo: number[] = [];
  const pick = () => {
    const i = next;
    next = (next + 1) % ports.length;
    sentTo.push(i);
    return ports[i]!;
  };
  const server = http.createServer((req, res) => {
    const upstream = http.request(
      // A connection of its own (no agent): none is reused after an instance closed it.
      { host: '127.0.0.1', port: pick(), method: req.method, path: req.url, headers: req.headers, agent: false },
      (answer) => {
        res.writeHead(answer.statusCode!, answer.rawHeaders);
        answer.pipe(res);
        // An answer the instance broke off is broken off for the client too (as HAProxy does),
        // not ended as if it were whole.
        answer.on('close', () => {
          if (!answer.complete) res.destroy();
        });
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    // A client that goes away mid-request goes away from the instance too (as HAProxy does): a
    // body cut short is cut short there, not left waiting for the rest.
    req.on('close', () => {
      if (!req.complete) upstream.destroy();
    });
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
  server.on('upgrade', (req, socket, head) => {
    const upstream = net.connect(pick(), '127.0.0.1', () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  // Each request picks anew, whatever connection it came on, so a client's keep-alive connection
  // decides nothing and is kept as long as Node's default (a 1 ms timeout closed connections
  // the client was writing its next request into: ECONNRESET under load).
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const listening = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${listening}`,
    sentTo,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

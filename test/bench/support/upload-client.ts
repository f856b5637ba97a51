// The benches' upload client: requests over a keep-alive agent, bodies pumped from one
// deterministic 8 MiB block (no allocation per request), and a TUS upload as tus-js-client and
// the UI send it (creation, then PATCHes, each answered offset checked).
import http from 'node:http';

const MiB = 1024 * 1024;
export const CHUNK = 8 * MiB;
export const block = Buffer.alloc(CHUNK);
for (let i = 0; i < block.length; i += 4) block.writeUInt32LE((i * 2654435761) >>> 0, i);

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Bytes of the answer's body (read to the end; only its start is kept, for messages). */
  bytes: number;
  start: string;
}

export function request(
  agent: http.Agent,
  method: string,
  url: string,
  headers: Record<string, string | number>,
  write: (req: http.ClientRequest) => Promise<void> = async () => {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent }, (res) => {
      let bytes = 0;
      let start = '';
      res.on('data', (d: Buffer) => {
        bytes += d.length;
        if (start.length < 200) start += d.toString('utf8', 0, 200);
      });
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes, start }));
      res.on('error', reject);
    });
    req.on('error', reject);
    write(req).then(() => req.end(), reject);
  });
}

/** Writes `bytes` of the block into the request, waiting for the socket when it is full. */
export async function pump(req: http.ClientRequest, bytes: number): Promise<void> {
  for (let left = bytes; left > 0; left -= CHUNK) {
    if (!req.write(left >= CHUNK ? block : block.subarray(0, left))) await new Promise((r) => req.once('drain', r));
  }
}

export function expect(answer: Answer, ...ok: number[]): void {
  if (!ok.includes(answer.status)) throw new Error(`answered ${answer.status}: ${answer.start.slice(0, 200)}`);
}

/**
 * A TUS upload of `bytes` into `uploadTo`: PATCHes of `first` bytes, each next one sized by
 * `next` from the last one's bytes and milliseconds (the same size when absent).
 */
export async function tusUpload(
  agent: http.Agent,
  base: string,
  bytes: number,
  options: { filename: string; uploadTo: string; first: number; next?: (bytes: number, ms: number) => number },
): Promise<void> {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const created = await request(agent, 'POST', `${base}/api/upload/tus`, {
    'tus-resumable': '1.0.0',
    'upload-length': bytes,
    'upload-metadata': `filename ${b64(options.filename)},uploadTo ${b64(options.uploadTo)}`,
  });
  expect(created, 201);
  const url = base + created.headers.location;
  let size = options.first;
  for (let offset = 0, n = 0; offset < bytes; offset += n) {
    n = Math.min(size, bytes - offset);
    const started = performance.now();
    const answer = await request(
      agent,
      'PATCH',
      url,
      {
        'tus-resumable': '1.0.0',
        'upload-offset': offset,
        'content-type': 'application/offset+octet-stream',
        'content-length': n,
      },
      (req) => pump(req, n),
    );
    expect(answer, 204);
    if (answer.headers['upload-offset'] !== String(offset + n))
      throw new Error(`the server's offset is ${answer.headers['upload-offset']}, not ${offset + n}`);
    if (options.next) size = options.next(n, performance.now() - started);
  }
}

// Refusing an HTTP upgrade (a WebSocket mount: the terminal, live folders): the error envelope as
// a whole HTTP answer written on the socket, which is then closed — no WebSocket is opened.
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorEnvelope, type AppError } from '../core/errors.ts';

export function refuseUpgrade(socket: Duplex, err: AppError, requestId: string): void {
  const body = JSON.stringify(errorEnvelope(err.status, err.message, requestId, err.code));
  const headers = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'X-Request-Id': requestId,
    Connection: 'close',
  };
  socket.end(
    `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? ''}\r\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\r\n')}\r\n\r\n${body}`,
  );
}

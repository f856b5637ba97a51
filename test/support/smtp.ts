// A real SMTP server on loopback (smtp-server, the same project's server side as nodemailer's
// client, here only as the receiver): STARTTLS with a certificate from a certificate authority
// made for the test, authentication allowed only once the connection is encrypted, every message
// kept whole with the session it came in (encrypted? who authenticated?). The message is taken
// apart here (headers, multipart/alternative, quoted-printable and base64), not by a library of
// the sender's project.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { issueServer, makeAuthority } from '../../src/tls/authority.ts';

export interface Mail {
  /** The envelope. */
  from: string;
  to: string[];
  /** The connection was upgraded with STARTTLS before the message. */
  secure: boolean;
  user: string | null;
  raw: string;
  /** Header names lowercased; unfolded values (encoded words left as they are). */
  headers: Map<string, string>;
  text: string;
  html: string;
}

export interface SmtpReceiver {
  port: number;
  /** The certificate authority that signed the server's certificate (PEM). */
  ca: string;
  user: string;
  password: string;
  mails: Mail[];
  /** Recipients answered 550 at RCPT TO. */
  refuse: Set<string>;
  close(): Promise<void>;
}

function splitHead(raw: string): { head: Map<string, string>; body: string } {
  const at = raw.indexOf('\r\n\r\n');
  const headText = at < 0 ? raw : raw.slice(0, at);
  const body = at < 0 ? '' : raw.slice(at + 4);
  const head = new Map<string, string>();
  for (const line of headText.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) head.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { head, body };
}

function decode(body: string, encoding: string | undefined): string {
  switch ((encoding ?? '7bit').toLowerCase()) {
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    case 'quoted-printable': {
      const bytes: number[] = [];
      const text = body.replace(/=\r\n/g, '');
      for (let i = 0; i < text.length; i++) {
        if (text[i] === '=' && /^[0-9A-F]{2}$/i.test(text.slice(i + 1, i + 3))) {
          bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
          i += 2;
        } else bytes.push(...Buffer.from(text[i]!, 'utf8'));
      }
      return Buffer.from(bytes).toString('utf8');
    }
    default:
      return body;
  }
}

/** A header value with its RFC 2047 encoded words (UTF-8, Q or B) decoded. */
export function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?utf-8\?([QB])\?([^?]*)\?=/gi, (_m, enc: string, text: string) =>
      enc.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : decode(text.replace(/_/g, ' '), 'quoted-printable'),
    );
}

/** The text/plain and text/html parts of a message (one level of multipart). */
export function parseMail(raw: string): { headers: Map<string, string>; text: string; html: string } {
  const { head, body } = splitHead(raw);
  const type = head.get('content-type') ?? 'text/plain';
  const parts: { type: string; text: string }[] = [];
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (type.toLowerCase().startsWith('multipart/') && boundary) {
    for (const chunk of body.split(`--${boundary}`).slice(1)) {
      if (chunk.startsWith('--')) break;
      const part = splitHead(chunk.replace(/^\r\n/, ''));
      parts.push({
        type: (part.head.get('content-type') ?? 'text/plain').toLowerCase(),
        text: decode(part.body.replace(/\r\n$/, ''), part.head.get('content-transfer-encoding')),
      });
    }
  } else parts.push({ type: type.toLowerCase(), text: decode(body, head.get('content-transfer-encoding')) });
  return {
    headers: head,
    text: parts.find((p) => p.type.startsWith('text/plain'))?.text ?? '',
    html: parts.find((p) => p.type.startsWith('text/html'))?.text ?? '',
  };
}

export async function startSmtp(): Promise<SmtpReceiver> {
  const now = new Date();
  const ca = await makeAuthority('smtp test', now);
  const leaf = await issueServer(ca, { dns: ['localhost'], ips: ['127.0.0.1'] }, now);
  const state: SmtpReceiver = {
    port: 0,
    ca: ca.cert,
    user: 'burrow@mail.example.org',
    password: 'smtp pässword + 100% & “quotes”',
    mails: [],
    refuse: new Set(),
    close: async () => {},
  };
  const server = new SMTPServer({
    secure: false,
    key: leaf.key,
    cert: leaf.cert,
    authMethods: ['PLAIN', 'LOGIN'],
    // AUTH is offered only after STARTTLS (allowInsecureAuth false); the size is ample.
    size: 1024 * 1024,
    logger: false,
    disableReverseLookup: true,
    onAuth(auth, _session, cb) {
      if (auth.username === state.user && auth.password === state.password) cb(null, { user: auth.username });
      else cb(new Error('Invalid username or password'));
    },
    onRcptTo(address, _session, cb) {
      if (state.refuse.has(address.address)) {
        const err = new Error('No such mailbox here') as Error & { responseCode: number };
        err.responseCode = 550;
        return cb(err);
      }
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        state.mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          secure: session.secure,
          user: typeof session.user === 'string' ? session.user : null,
          raw,
          ...parseMail(raw),
        });
        cb();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  state.port = (server.server.address() as AddressInfo).port;
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return state;
}

/** An administrator's e-mail destination (`POST /api/admin/notify/destinations`) sending through `smtp`. */
export const mailDestination = (smtp: SmtpReceiver, burrowUrl: string) => ({
  kind: 'email',
  name: 'Post',
  url: burrowUrl,
  host: '127.0.0.1',
  port: smtp.port,
  security: 'starttls',
  username: smtp.user,
  password: smtp.password,
  tlsCa: smtp.ca,
  from: 'burrow@mail.example.org',
});

// HTTPS beside HTTP. The HTTPS server answers with the very same handler (its requests and
// upgrades go to the HTTP server's listeners, so every row, guard and mount is one), and takes
// a new certificate without a restart (setSecureContext). Plain HTTP from another machine, a
// browser opening a page, is answered with a page that says why and links to HTTPS and to the
// certificate authority to trust first; the API, WebDAV and the probes answer as before (a
// script or a drive already configured keeps working), loopback and share links (/s/…) stay plain.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { peerAddress } from './address.ts';
import { hostName } from './origin.ts';
import { wantsErrorPage } from './error-page.ts';

/** An HTTPS server answering as `server` does, with `pem` until told another. */
export function secureTwin(server: http.Server, pem: { cert: string; key: string }): https.Server {
  const twin = https.createServer({ cert: pem.cert, key: pem.key }, (req, res) => server.emit('request', req, res));
  twin.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => server.emit('upgrade', req, socket, head));
  // A client that fails the handshake (it does not trust the authority yet) is its own business.
  twin.on('tlsClientError', () => undefined);
  twin.headersTimeout = server.headersTimeout;
  twin.requestTimeout = server.requestTimeout;
  twin.keepAliveTimeout = server.keepAliveTimeout;
  return twin;
}

const isLoopback = (ip: string) => ip === '::1' || /^(::ffff:)?127\./.test(ip);
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The certificate authority's download (GET /api/tls/ca.crt). */
export const AUTHORITY_PATH = '/api/tls/ca.crt';

/**
 * Answers (true) a browser's page request sent over plain HTTP from another machine with the
 * page leading to HTTPS; false leaves the request to the server. `httpsPort` null: no HTTPS.
 */
export function plainHttpNotice(opts: { httpsPort: () => number | null; generated: boolean }) {
  return (req: IncomingMessage, res: ServerResponse, secure: boolean): boolean => {
    const port = opts.httpsPort();
    if (port === null || secure || isLoopback(peerAddress(req))) return false;
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !wantsErrorPage(req)) return false;
    // A share link opens where it was given: its visitors come from anywhere, with nothing to sign
    // in to, and sending them on to an authority their device does not trust only scares them off.
    if (req.url?.startsWith('/s/')) return false;
    const host = hostName(req.headers.host ?? '') || 'burrow.local';
    const target = `https://${net.isIPv6(host) ? `[${host}]` : host}:${port}${req.url ?? '/'}`;
    const html = noticePage(target, opts.generated ? `http://${req.headers.host ?? host}${AUTHORITY_PATH}` : null);
    res.statusCode = 200;
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'");
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Content-Length', Buffer.byteLength(html));
    res.end(req.method === 'HEAD' ? undefined : html);
    return true;
  };
}

function noticePage(target: string, authority: string | null): string {
  const t = escapeHtml(target);
  const steps = authority
    ? `<h2>First time on this device?</h2>
<p>Burrow made its own certificate authority on this server. Until your device trusts it, the browser warns
about the secure address. <a href="${escapeHtml(authority)}" download="Burrow local CA.crt">Download the certificate authority</a>, then:</p>
<ul>
<li><b>Windows</b>: open the file → Install Certificate → Local Machine → “Trusted Root Certification Authorities”.</li>
<li><b>macOS</b>: open the file (Keychain Access) → double-click “Burrow local authority” → Trust → “Always Trust”.</li>
<li><b>iPhone, iPad</b>: open the link in Safari → Allow; Settings → Profile Downloaded → Install; then Settings → General → About → Certificate Trust Settings → turn it on.</li>
<li><b>Android</b>: Settings → Security → Encryption &amp; credentials → Install a certificate → CA certificate → pick the file.</li>
<li><b>Linux</b>: <code>sudo cp "Burrow local CA.crt" /usr/local/share/ca-certificates/burrow.crt &amp;&amp; sudo update-ca-certificates</code>.</li>
<li><b>Firefox</b> (its own store): Settings → Privacy &amp; Security → Certificates → View Certificates → Authorities → Import → “Trust this CA to identify websites”.</li>
</ul>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Burrow: open the secure address</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:38rem;margin:10vh auto;padding:0 1rem;color:#222}
@media (prefers-color-scheme:dark){body{background:#1b1b1d;color:#e6e6e6}a{color:#8ab4f8}}
code{font-size:.9em;word-break:break-all}li{margin:.3rem 0}.go{font-size:1.2em}</style></head>
<body><h1>Burrow is on a secure address</h1>
<p>This address is plain HTTP: on your network anyone could read the passwords and files sent through it,
and browsers turn passkeys and installed apps off. Burrow answers on HTTPS instead:</p>
<p class="go"><a href="${t}">${t}</a></p>
${steps}
</body></html>
`;
}

// Errors on the browser's own pages (/login, /callback, /logout: addresses outside /api/ that a
// person reaches by navigating, usually coming back from the identity provider) are a small
// page instead of raw JSON: the same status, the message, the request id to quote, and a way
// back to the sign-in screen. /api/ keeps the envelope for every client.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A browser navigating to a page of ours (not /api/, not /dav/), which reads HTML. */
export function wantsErrorPage(req: IncomingMessage | undefined): boolean {
  if (!req?.url || req.url.startsWith('/api/') || req.url.startsWith('/dav/')) return false;
  const navigating = req.headers['sec-fetch-mode'] === 'navigate';
  return navigating || /\btext\/html\b/.test(req.headers.accept ?? '');
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Sets status and headers of the page; returns its body (none for HEAD). */
export function prepareErrorPage(
  res: ServerResponse,
  status: number,
  message: string,
  requestId: string,
): string | undefined {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Burrow: could not sign in</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:15vh auto;padding:0 1rem;color:#222}
@media (prefers-color-scheme:dark){body{background:#1b1b1d;color:#e6e6e6}a{color:#8ab4f8}}
code{font-size:.9em}</style></head>
<body><h1>That did not work</h1>
<p>${escapeHtml(message)}</p>
<p><a href="/">Back to the sign-in screen</a></p>
<p><small>Status ${status} · request id <code>${escapeHtml(requestId)}</code> (the server's log names it too).</small></p>
</body></html>
`;
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  // Inline style only; nothing runs, nothing loads.
  res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'");
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Length', Buffer.byteLength(html));
  return res.req?.method === 'HEAD' ? undefined : html;
}

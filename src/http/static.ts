// The embedded UI: hashed assets are immutable, index.html is revalidated, and any other
// non-API path falls back to index.html (client-side routing): every folder and file has an
// address in the UI (`/files/Notes/todo.md`, `/files/Photos/beach.jpg`), whatever its name holds.
// Only the UI's own files answer 404 when missing (a chunk of an older build must fail as a
// script, not parse a page).
import fs from 'node:fs';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import sirv from 'sirv';

const UI_CSP = [
  "default-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "style-src 'self' 'unsafe-inline'",
  "script-src 'self'",
  "connect-src 'self' ws: wss:",
  "font-src 'self' data:",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'self'",
].join('; ');

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * `frameSources`: origins of configured office editors. The page frames them, posts the WOPI
 * access_token to them in a form aimed at that frame, and loads ONLYOFFICE's api.js from them.
 *
 * `uiDir` may be a function, called on the first request the UI answers: inside the executable
 * it unpacks the embedded UI into CACHE_DIR on a first start (~25 % of the time to /readyz), which an
 * API-only start — a script's, a test's — never needs. A failure answers 503 and is tried again
 * at the next request; its reason (an error naming CACHE_DIR's paths) goes to `unpackFailed`, the
 * server's log, never to the visitor, who may not be signed in.
 */
export function createUiHandler(
  uiDir: string | null | (() => string | null),
  frameSources: readonly string[] = [],
  unpackFailed: (err: unknown) => void = () => {},
): Handler {
  if (typeof uiDir !== 'function') return uiHandler(uiDir, frameSources);
  let handler: Handler | undefined;
  return (req, res) => {
    try {
      handler ??= uiHandler(uiDir(), frameSources);
    } catch (err) {
      unpackFailed(err);
      res.statusCode = 503;
      res.setHeader('Content-Type', 'text/plain; charset=utf-8');
      res.end(
        "The web interface could not be unpacked; the server's log says why (the API under /api works without it).\n",
      );
      return;
    }
    handler(req, res);
  };
}

function uiHandler(uiDir: string | null, frameSources: readonly string[]): Handler {
  const extra = frameSources.length ? ` ${frameSources.join(' ')}` : '';
  const csp =
    UI_CSP.replace("script-src 'self'", `script-src 'self'${extra}`).replace(
      "form-action 'self'",
      `form-action 'self'${extra}`,
    ) + `; frame-src 'self'${extra}`;
  if (!uiDir || !fs.existsSync(path.join(uiDir, 'index.html'))) {
    return (_req, res) => {
      res.statusCode = 503;
      res.setHeader('Content-Type', 'text/plain; charset=utf-8');
      res.end('The web interface is not built. Run `npm run build:ui` (the API under /api works without it).\n');
    };
  }
  const options = {
    etag: true,
    gzip: false,
    brotli: false,
    setHeaders(res: ServerResponse, pathname: string) {
      res.setHeader('Content-Security-Policy', csp);
      res.setHeader(
        'Cache-Control',
        pathname.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
    },
  };
  // sirv's own single-page mode never falls back for a path ending in an ASCII `name.ext`
  // (`ignores` by default): `/files/Notes/todo.md` answered a bare "Not found".
  const page = sirv(uiDir, { ...options, single: true, ignores: false });
  const own = sirv(uiDir, options);
  const notFound = (res: ServerResponse) => () => {
    res.statusCode = 404;
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.end('Not found');
  };
  return (req, res) => (isUiFile(req.url ?? '/') ? own : page)(req, res, notFound(res));
}

/** A file of the built UI: under /assets/, or a name with an extension at the top (/favicon.svg). */
export function isUiFile(url: string): boolean {
  const pathname = url.split(/[?#]/, 1)[0]!;
  return pathname.startsWith('/assets/') || /^\/[^/]+\.[A-Za-z0-9]+$/.test(pathname);
}

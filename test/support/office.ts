// The editing server's side of office editing that several API suites start: its WOPI discovery
// document (what Burrow reads the editor's address, actions and proof keys from).
import type http from 'node:http';

/**
 * Answers GET /hosting/discovery with a discovery document whose writer edits .docx at
 * `${base}/browser/cool.html?`; `extra` goes inside it after the net zone (a proof-key element).
 * Returns false for any other request, which the caller answers.
 */
export function serveDiscovery(req: http.IncomingMessage, res: http.ServerResponse, base: string, extra = ''): boolean {
  if (req.url !== '/hosting/discovery') return false;
  res.setHeader('Content-Type', 'text/xml');
  res.end(`<?xml version="1.0" encoding="utf-8"?>
<wopi-discovery><net-zone name="external-http">
  <app name="writer"><action default="true" ext="docx" name="edit" urlsrc="${base}/browser/cool.html?"/></app>
</net-zone>${extra}</wopi-discovery>`);
  return true;
}

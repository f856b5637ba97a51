// XML for WebDAV: request bodies parsed by @xmldom/xmldom with namespaces resolved (RFC 4918
// §8.3: "the namespace ... MUST be used to identify the element"; prefixes mean nothing), and
// answers written as text with every non-DAV element carrying its own namespace declaration.
import { createRequire } from 'node:module';
import type { Element, Node } from '@xmldom/xmldom';
import { AppError } from '../core/errors.ts';
import { DAV_NS } from './protocol.ts';

export type { Element } from '@xmldom/xmldom';

// @xmldom/xmldom is evaluated by the first WebDAV request with an XML body, not at start.
let xmldom: typeof import('@xmldom/xmldom') | undefined;
const dom = () => (xmldom ??= createRequire(import.meta.url)('@xmldom/xmldom') as typeof import('@xmldom/xmldom'));

/** Parses a request body; 400 for anything not well-formed or namespace-valid. */
export function parseXml(text: string): Element | null {
  if (text.trim() === '') return null;
  // No document type declarations: entity expansion is a denial of service and no client needs it.
  if (/<!DOCTYPE/i.test(text))
    throw new AppError('DAV_BAD_XML', 'XML bodies with a document type declaration are not accepted.');
  const { DOMParser } = dom();
  let root: Element | null = null;
  try {
    const doc = new DOMParser({
      onError: (level, message) => {
        if (level !== 'warning') throw new Error(message);
      },
    }).parseFromString(text, 'application/xml');
    root = doc.documentElement;
  } catch {
    throw new AppError('DAV_BAD_XML', 'The XML body is not well-formed.');
  }
  if (!root) throw new AppError('DAV_BAD_XML', 'The XML body is empty.');
  return root;
}

export const isDav = (el: Element, localName: string) => el.namespaceURI === DAV_NS && el.localName === localName;

/** Element children (text, comments and processing instructions skipped). */
export function elements(parent: Element | Node): Element[] {
  const out: Element[] = [];
  for (let n = parent.firstChild; n; n = n.nextSibling) if (n.nodeType === 1) out.push(n as Element);
  return out;
}

export const child = (parent: Element, localName: string) => elements(parent).find((e) => isDav(e, localName));

/** The element as XML text, declaring every namespace it uses (it may be pasted anywhere). */
export function serialize(el: Element | Node): string {
  return new (dom().XMLSerializer)().serializeToString(el);
}

export function escapeText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function escapeAttr(s: string): string {
  return escapeText(s).replace(/"/g, '&quot;');
}

export interface PropName {
  namespace: string;
  name: string;
}
export const propKey = (p: PropName) => `${p.namespace}\n${p.name}`;

/** An empty property element: DAV: ones with the D: prefix, others declaring their namespace. */
export function emptyProp(p: PropName): string {
  if (p.namespace === DAV_NS) return `<D:${p.name}/>`;
  return `<x:${p.name} xmlns:x="${escapeAttr(p.namespace)}"/>`.replace(/^<x:([^ ]+) xmlns:x=""\/>$/, '<$1 xmlns=""/>');
}

/** A property element with XML content (already well-formed). */
export function propWith(p: PropName, inner: string): string {
  if (p.namespace === DAV_NS) return `<D:${p.name}>${inner}</D:${p.name}>`;
  if (p.namespace === '') return `<${p.name} xmlns="">${inner}</${p.name}>`;
  return `<x:${p.name} xmlns:x="${escapeAttr(p.namespace)}">${inner}</x:${p.name}>`;
}

export const XML_HEAD = '<?xml version="1.0" encoding="utf-8"?>\n';

/** `<D:error>` body for a refused precondition (RFC 4918 §16). */
export function errorBody(condition: string, message: string): string {
  return `${XML_HEAD}<D:error xmlns:D="DAV:"><D:${condition}/><D:responsedescription>${escapeText(message)}</D:responsedescription></D:error>`;
}

export const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  207: 'Multi-Status',
  400: 'Bad Request',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  412: 'Precondition Failed',
  423: 'Locked',
  424: 'Failed Dependency',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  507: 'Insufficient Storage',
};
export const statusLine = (status: number) => `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? ''}`.trimEnd();

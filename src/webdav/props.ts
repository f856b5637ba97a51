// PROPFIND and PROPPATCH (RFC 4918 §9.1, §9.2): live properties computed from the file system,
// quota from the volume (RFC 4331), dead properties from the database; Windows' Win32 times
// applied to the file itself.
import type { Stats } from 'node:fs';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { openEntryIn } from '../files/confined.ts';
import { contentTypeOf, etagOf } from '../http/file.ts';
import type { ResolvedPath } from '../files/paths.ts';
import { AppError } from '../core/errors.ts';
import { activeLock, preconditions, SUPPORTED_LOCK } from './locking.ts';
import { DAV_NS, hrefOf, propfindDepth } from './protocol.ts';
import { checkedStats, locationOf, membersOf, nameOf, refuseReadOnly, type DavContext } from './resources.ts';
import type { DeadProperty } from './store.ts';
import {
  elements,
  emptyProp,
  escapeText,
  isDav,
  propKey,
  propWith,
  serialize,
  statusLine,
  XML_HEAD,
  type Element,
  type PropName,
} from './xml.ts';

const LIVE = [
  'creationdate',
  'displayname',
  'getcontentlength',
  'getcontenttype',
  'getetag',
  'getlastmodified',
  'resourcetype',
  'supportedlock',
  'lockdiscovery',
  'quota-available-bytes',
  'quota-used-bytes',
] as const;
// RFC 4331 §3: "[quota properties] SHOULD NOT be returned by a PROPFIND DAV:allprop request".
const NOT_IN_ALLPROP = new Set(['quota-available-bytes', 'quota-used-bytes']);

const futimes = promisify(fs.futimes);

export const WIN32_NS = 'urn:schemas-microsoft-com:';

/** One resource as PROPFIND reports it. */
interface Entry {
  virtualPath: string;
  isDirectory: boolean;
  stats: Stats | null;
  /** host location (null at the top of the mount) and the space's virtual prefix */
  root: string | null;
  relative: string;
  spacePath: string | null;
}

function httpDate(d: Date): string {
  return d.toUTCString();
}

async function quota(entry: Entry): Promise<{ available: number; used: number } | null> {
  if (!entry.root || !entry.isDirectory) return null;
  const s = await fsp.statfs(entry.root).catch(() => null);
  if (!s) return null;
  const total = s.blocks * s.bsize;
  return { available: s.bavail * s.bsize, used: Math.max(0, total - s.bfree * s.bsize) };
}

/** The inner XML of a live property, or null when the resource has none. */
async function liveValue(ctx: DavContext, e: Entry, name: string): Promise<string | null> {
  const st = e.stats;
  switch (name) {
    case 'resourcetype':
      return e.isDirectory ? '<D:collection/>' : '';
    case 'displayname':
      return escapeText(e.virtualPath === '' ? 'Burrow' : nameOf(e.virtualPath));
    case 'creationdate': {
      if (!st) return null;
      // A file's is the one Details shows, kept across the saves that replace it (versions).
      const created =
        e.root && !e.isDirectory
          ? ctx.versions.createdAt(path.join(e.root, e.relative), st)
          : st.birthtimeMs > 0
            ? st.birthtime
            : st.ctime;
      return created.toISOString().replace(/\.\d{3}Z$/, 'Z');
    }
    case 'getlastmodified':
      return st ? httpDate(st.mtime) : null;
    case 'getcontentlength':
      return st && !e.isDirectory ? String(st.size) : null;
    case 'getcontenttype':
      return !e.isDirectory ? escapeText(contentTypeOf(nameOf(e.virtualPath))) : null;
    case 'getetag':
      return st && !e.isDirectory ? escapeText(etagOf(st)) : null;
    case 'supportedlock':
      return e.root ? SUPPORTED_LOCK : null;
    case 'lockdiscovery': {
      if (!e.root) return '';
      const locks = ctx.store.locksCovering({ root: e.root, relative: e.relative });
      return locks
        .map((l) =>
          activeLock(
            l,
            l.relative ? `${e.spacePath}/${l.relative}` : e.spacePath!,
            e.isDirectory || l.relative !== e.relative,
          ),
        )
        .join('');
    }
    case 'quota-available-bytes':
      return (await quota(e))?.available.toString() ?? null;
    case 'quota-used-bytes':
      return (await quota(e))?.used.toString() ?? null;
    default:
      return null;
  }
}

type Request = { kind: 'allprop'; include: PropName[] } | { kind: 'propname' } | { kind: 'prop'; names: PropName[] };

const nameOfElement = (el: Element): PropName => ({
  namespace: el.namespaceURI ?? '',
  name: el.localName ?? el.nodeName,
});

// §9.1: "A client may choose not to submit a request body. An empty PROPFIND request body MUST
// be treated as if it were an 'allprop' request." The body is DAV:propfind holding one of
// DAV:prop, DAV:propname or DAV:allprop (with an optional DAV:include).
function parsePropfind(body: Element | null): Request {
  if (!body) return { kind: 'allprop', include: [] };
  if (!isDav(body, 'propfind')) throw new AppError('DAV_BAD_XML', 'A PROPFIND body is a DAV:propfind element.');
  const kids = elements(body);
  const prop = kids.find((e) => isDav(e, 'prop'));
  if (prop) return { kind: 'prop', names: elements(prop).map(nameOfElement) };
  if (kids.some((e) => isDav(e, 'propname'))) return { kind: 'propname' };
  if (kids.some((e) => isDav(e, 'allprop'))) {
    const include = kids.find((e) => isDav(e, 'include'));
    return { kind: 'allprop', include: include ? elements(include).map(nameOfElement) : [] };
  }
  throw new AppError('DAV_BAD_XML', 'DAV:propfind must hold DAV:prop, DAV:propname or DAV:allprop.');
}

function propstat(props: string[], status: number): string {
  return props.length
    ? `<D:propstat><D:prop>${props.join('')}</D:prop><D:status>${statusLine(status)}</D:status></D:propstat>`
    : '';
}

async function responseFor(ctx: DavContext, e: Entry, request: Request): Promise<string> {
  const dead: DeadProperty[] = e.root ? ctx.store.properties({ root: e.root, relative: e.relative }) : [];
  const found: string[] = [];
  const missing: string[] = [];
  const live = async (name: string, asName: boolean) => {
    const v = await liveValue(ctx, e, name);
    if (v === null) return false;
    found.push(asName ? emptyProp({ namespace: DAV_NS, name }) : propWith({ namespace: DAV_NS, name }, v));
    return true;
  };
  if (request.kind === 'prop') {
    const deadByKey = new Map(dead.map((d) => [propKey(d), d]));
    for (const p of request.names) {
      if (p.namespace === DAV_NS && (LIVE as readonly string[]).includes(p.name)) {
        if (!(await live(p.name, false))) missing.push(emptyProp(p));
        continue;
      }
      const d = deadByKey.get(propKey(p));
      if (d) found.push(d.xml);
      else missing.push(emptyProp(p));
    }
  } else {
    const include =
      request.kind === 'allprop'
        ? new Set(request.include.filter((p) => p.namespace === DAV_NS).map((p) => p.name))
        : new Set<string>();
    for (const name of LIVE) {
      if (request.kind === 'allprop' && NOT_IN_ALLPROP.has(name) && !include.has(name)) continue;
      await live(name, request.kind === 'propname');
    }
    for (const d of dead) found.push(request.kind === 'propname' ? emptyProp(d) : d.xml);
  }
  return `<D:response><D:href>${escapeText(hrefOf(e.virtualPath, e.isDirectory))}</D:href>${propstat(found, 200)}${propstat(missing, 404)}</D:response>`;
}

export async function propfind(
  ctx: DavContext,
  req: IncomingMessage,
  res: ServerResponse,
  r: ResolvedPath,
  body: Element | null,
): Promise<void> {
  const depth = propfindDepth(req.headers.depth);
  const request = parsePropfind(body);
  if (!r.exists) throw new AppError('NOT_FOUND', 'No such file or folder.');
  const self: Entry = {
    virtualPath: r.virtualPath,
    isDirectory: r.space === null || r.isDirectory,
    stats: r.space ? await checkedStats(r) : null,
    root: r.space?.root ?? null,
    relative: r.relative,
    spacePath: r.space?.path ?? null,
  };
  const members = depth === '1' && self.isDirectory ? await membersOf(ctx, r) : [];
  res.statusCode = 207;
  res.setHeader('Content-Type', 'application/xml; charset=utf-8');
  res.setHeader('Cache-Control', 'private, no-cache');
  res.write(`${XML_HEAD}<D:multistatus xmlns:D="DAV:">`);
  res.write(await responseFor(ctx, self, request));
  for (const m of members) {
    const spacePath = r.space ? r.space.path : m.virtualPath;
    const entry: Entry = {
      virtualPath: m.virtualPath,
      isDirectory: m.isDirectory,
      stats: m.stats,
      root: m.root,
      relative: m.relative,
      spacePath,
    };
    // Respect back-pressure on a large folder.
    if (!res.write(await responseFor(ctx, entry, request))) await new Promise((resolve) => res.once('drain', resolve));
  }
  res.end('</D:multistatus>');
}

/** Win32 times a Windows client sets after writing a file: applied to the file, not stored. */
const WIN32_TIMES: Record<string, 'mtime' | 'atime'> = { Win32LastModifiedTime: 'mtime', Win32LastAccessTime: 'atime' };

// §9.2: "Servers MUST process PROPPATCH instructions in document order [...] Instructions MUST
// either all be executed or none executed." §9.2.1: a property that cannot be changed is
// answered 403 ('cannot-modify-protected-property' for live ones) and, as nothing is done, the
// others "424 (Failed Dependency)".
export async function proppatch(
  ctx: DavContext,
  req: IncomingMessage,
  res: ServerResponse,
  r: ResolvedPath,
  body: Element | null,
): Promise<void> {
  if (!r.space) throw new AppError('TOP_LEVEL', 'The top of the mount has no properties to change.', { status: 403 });
  if (!r.exists) throw new AppError('NOT_FOUND', 'No such file or folder.');
  if (!body || !isDav(body, 'propertyupdate'))
    throw new AppError('DAV_BAD_XML', 'A PROPPATCH body is a DAV:propertyupdate element.');
  refuseReadOnly(r, 'change properties here');
  await preconditions(ctx, req, r.virtualPath, [{ target: r }]);

  const ops: ({ set: DeadProperty } | { remove: { namespace: string; name: string } })[] = [];
  const names: PropName[] = [];
  const refused: PropName[] = [];
  const times: { atime?: Date; mtime?: Date } = {};
  for (const instruction of elements(body)) {
    const isSet = isDav(instruction, 'set');
    if (!isSet && !isDav(instruction, 'remove'))
      throw new AppError('DAV_BAD_XML', 'DAV:propertyupdate holds DAV:set and DAV:remove.');
    const prop = elements(instruction).find((e) => isDav(e, 'prop'));
    if (!prop) throw new AppError('DAV_BAD_XML', `DAV:${instruction.localName} needs a DAV:prop.`);
    for (const el of elements(prop)) {
      const p = nameOfElement(el);
      names.push(p);
      if (p.namespace === DAV_NS) {
        refused.push(p);
        continue;
      }
      const time = p.namespace === WIN32_NS ? WIN32_TIMES[p.name] : undefined;
      if (time && isSet) {
        const when = new Date(el.textContent ?? '');
        if (Number.isNaN(when.getTime())) refused.push(p);
        else times[time] = when;
        continue;
      }
      ops.push(isSet ? { set: { namespace: p.namespace, name: p.name, xml: serialize(el) } } : { remove: p });
    }
  }
  const refusedKeys = new Set(refused.map(propKey));
  let answer: string;
  if (refused.length) {
    const rest = names.filter((p) => !refusedKeys.has(propKey(p)));
    answer = propstat(refused.map(emptyProp), 403) + propstat(rest.map(emptyProp), 424);
  } else {
    ctx.store.patchProperties(locationOf(r), ops);
    if (times.mtime || times.atime) {
      // On the descriptor checked inside the space, never through a path a swap could redirect.
      const entry = await openEntryIn(r.space.root, r.realPath);
      try {
        const [atime, mtime] = [times.atime ?? entry.stat.atime, times.mtime ?? entry.stat.mtime];
        // Windows opens no folder as a descriptor (fd -1): its checked real path then.
        await (entry.fd >= 0 ? futimes(entry.fd, atime, mtime) : fsp.utimes(entry.real, atime, mtime));
      } finally {
        await entry.close();
      }
      ctx.changes.emit({ type: 'modified', path: r.realPath });
    }
    answer = propstat(names.map(emptyProp), 200);
  }
  const body207 = `${XML_HEAD}<D:multistatus xmlns:D="DAV:"><D:response><D:href>${escapeText(hrefOf(r.virtualPath, r.isDirectory))}</D:href>${answer}</D:response></D:multistatus>`;
  res.statusCode = 207;
  res.setHeader('Content-Type', 'application/xml; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body207));
  res.end(body207);
}

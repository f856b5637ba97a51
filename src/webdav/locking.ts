// Conditional requests and write locks (RFC 4918 §6, §7, §9.10, §9.11, §10.4). The If header is
// evaluated first (412), then every lock the request would break must have its token submitted
// by the account that took it (423).
import fs from 'node:fs';
import { createFileAt, withParentIn } from '../files/confined.ts';
import type { IncomingMessage } from 'node:http';
import { AppError } from '../core/errors.ts';
import { canonicalAlias, type LockProbe } from '../files/locks.ts';
import type { ResolvedPath } from '../files/paths.ts';
import {
  DavConditionError,
  etagMatches,
  hrefOf,
  newLockToken,
  parseDepth,
  parseIf,
  parseLockTokenHeader,
  parseTimeout,
  LOCK_LIMITS,
  submittedTokens,
  type IfList,
} from './protocol.ts';
import {
  etagFor,
  hrefFor,
  locationOf,
  parentCollection,
  refuseReadOnly,
  statOf,
  type DavContext,
} from './resources.ts';
import type { DavStore, LockRow } from './store.ts';
import { child, elements, escapeText, isDav, serialize, XML_HEAD, type Element } from './xml.ts';

/** What a request is about to change: the resource, its members too, or its parent's membership. */
export interface Change {
  target: ResolvedPath;
  withBelow?: boolean;
  membership?: boolean;
}

export interface Preconditions {
  lists: IfList[] | null;
  tokens: Set<string>;
}

/**
 * A WebDAV client's exclusive locks as the other doors ask for them (files/locks.ts): the HTTP
 * API and the office editor honour them (423 LOCKED), also one taken before WebDAV was turned
 * off, until it expires or an administrator breaks it.
 */
export const davLockProbe =
  (store: DavStore): LockProbe =>
  (item, withBelow) =>
    item.space
      ? store
          .locksCovering(locationOf(item), { withBelow })
          .filter((l) => l.scope === 'exclusive')
          .map((l) => ({ kind: 'webdav' as const, userId: l.user_id }))
      : [];

/** Live locks that apply to a resolved path: by the name used, and at its canonical place when a symlink is on the way. */
function locksAt(ctx: DavContext, r: ResolvedPath, withBelow = false): LockRow[] {
  if (!r.space) return [];
  const rows = ctx.store.locksCovering(locationOf(r), { withBelow });
  const alias = canonicalAlias(r);
  if (alias)
    for (const l of ctx.store.locksCovering(locationOf(alias), { withBelow }))
      if (!rows.some((x) => x.token === l.token)) rows.push(l);
  return rows;
}

async function conditionState(
  ctx: DavContext,
  virtual: string,
): Promise<{ tokens: Set<string>; etag: string | null } | null> {
  let r: ResolvedPath;
  try {
    r = await ctx.resolver.resolve(ctx.caller, virtual);
  } catch {
    return null;
  }
  const etag = r.exists ? etagFor(await statOf(r)) : null;
  return { tokens: new Set(locksAt(ctx, r).map((l) => l.token)), etag };
}

// §10.4.1: "If the state of the resource does not match any of the specified state lists, then
// the request MUST fail with a 412 (Precondition Failed)." §10.4.2: a Condition "evaluates to true
// if the resource's state matches"; "Not" negates; a list is true when all its conditions are;
// the header is true when any list is. Untagged lists apply to the Request-URI.
export async function evaluateIf(
  ctx: DavContext,
  req: IncomingMessage,
  requestVirtual: string,
): Promise<Preconditions> {
  const lists = parseIf(req.headers.if, req.headers.host);
  if (!lists) return { lists: null, tokens: new Set() };
  const states = new Map<string, Awaited<ReturnType<typeof conditionState>>>();
  let any = false;
  for (const list of lists) {
    const at = list.resource ?? requestVirtual;
    if (!states.has(at)) states.set(at, at === '\0' ? null : await conditionState(ctx, at));
    const state = states.get(at)!;
    const holds = list.conditions.every((c) => {
      const matches =
        state !== null && (c.token !== undefined ? state.tokens.has(c.token) : etagMatches(c.etag!, state.etag));
      return c.not ? !matches : matches;
    });
    if (holds) any = true;
  }
  if (!any) throw new AppError('DAV_PRECONDITION', 'The If header does not match the current state of the resource.');
  return { lists, tokens: submittedTokens(lists) };
}

// §7: "A write lock MUST prevent a principal without the lock from successfully executing a
// PUT, POST, PROPPATCH, LOCK, UNLOCK, MOVE, DELETE, or MKCOL on the locked resource." §6.4: a lock
// belongs to the principal that created it, so its token counts only from the account that took
// it. §7.5: a lock on a collection protects its membership (a member added or removed is a
// change to it) and a depth-infinity lock covers every member. Shared locks on one resource are
// satisfied by any one of them.
export function checkLocks(ctx: DavContext, pre: Preconditions, changes: Change[]): void {
  const byRoot = new Map<string, LockRow[]>();
  const add = (l: LockRow) => {
    const key = `${l.space_root}\n${l.relative}`;
    const list = byRoot.get(key) ?? [];
    if (!list.some((x) => x.token === l.token)) list.push(l);
    byRoot.set(key, list);
  };
  for (const c of changes) {
    if (!c.target.space) continue;
    // An office editor's lock of another account holds against WebDAV too.
    ctx.locks.assertFree(ctx.caller, c.target, { withBelow: Boolean(c.withBelow), except: 'webdav' });
    if (c.target.exists) for (const l of locksAt(ctx, c.target, c.withBelow)) add(l);
    else for (const l of locksAt(ctx, c.target)) add(l);
    if (c.membership && c.target.relative !== '') {
      const parentRel = c.target.relative.includes('/')
        ? c.target.relative.slice(0, c.target.relative.lastIndexOf('/'))
        : '';
      for (const l of ctx.store.locksCovering({ root: c.target.space.root, relative: parentRel })) add(l);
    }
  }
  for (const locks of byRoot.values()) {
    const ok = locks.some((l) => pre.tokens.has(l.token) && l.user_id === ctx.caller.userId);
    if (!ok)
      throw new DavConditionError(
        'DAV_LOCKED',
        'The resource is locked; submit the lock token in the If header.',
        'lock-token-submitted',
      );
  }
}

/** Both checks, in the RFC's order. */
export async function preconditions(
  ctx: DavContext,
  req: IncomingMessage,
  requestVirtual: string,
  changes: Change[],
): Promise<Preconditions> {
  const pre = await evaluateIf(ctx, req, requestVirtual);
  checkLocks(ctx, pre, changes);
  return pre;
}

/** `<D:activelock>` of one lock, its root named for this caller. */
export function activeLock(l: LockRow, lockRootVirtual: string, isCollection: boolean): string {
  const left = Math.max(0, Math.round((l.expires_at - Date.now()) / 1000));
  return (
    '<D:activelock>' +
    '<D:locktype><D:write/></D:locktype>' +
    `<D:lockscope><D:${l.scope}/></D:lockscope>` +
    `<D:depth>${l.depth === -1 ? 'infinity' : '0'}</D:depth>` +
    (l.owner_xml ?? '') +
    `<D:timeout>Second-${left}</D:timeout>` +
    `<D:locktoken><D:href>${escapeText(l.token)}</D:href></D:locktoken>` +
    `<D:lockroot><D:href>${escapeText(hrefOf(lockRootVirtual, isCollection))}</D:href></D:lockroot>` +
    '</D:activelock>'
  );
}

/** The lockdiscovery value of a resource (locks on it and depth-infinity locks above it). */
export function lockDiscovery(ctx: DavContext, r: ResolvedPath): string {
  if (!r.space) return '';
  const spacePath = r.space.path;
  return locksAt(ctx, r)
    .map((l) =>
      activeLock(l, l.relative ? `${spacePath}/${l.relative}` : spacePath, l.relative !== r.relative || r.isDirectory),
    )
    .join('');
}

export const SUPPORTED_LOCK =
  '<D:lockentry><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockentry>' +
  '<D:lockentry><D:lockscope><D:shared/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockentry>';

interface LockAnswer {
  status: number;
  body: string;
  headers: Record<string, string>;
}

const lockBody = (inner: string) =>
  `${XML_HEAD}<D:prop xmlns:D="DAV:"><D:lockdiscovery>${inner}</D:lockdiscovery></D:prop>`;

// §9.10: LOCK. "A LOCK request to an unmapped URL MUST result in the creation of a locked
// (non-collection) resource with empty content." (§7.3) "Values other than 0 or infinity MUST NOT
// be used with the Depth header on a LOCK method." "A lock is refreshed by sending a LOCK
// request to the URL of a resource within the scope of the lock. This request MUST NOT have a
// body and it MUST specify which lock to refresh by using the 'If' header with a single lock
// token." §9.10.6: a conflicting lock is refused with 423 and 'no-conflicting-lock'.
export async function lock(
  ctx: DavContext,
  req: IncomingMessage,
  r: ResolvedPath,
  body: Element | null,
): Promise<LockAnswer> {
  if (!r.space) throw new AppError('TOP_LEVEL', 'The top of the mount cannot be locked.', { status: 403 });
  const timeout = parseTimeout(req.headers.timeout);
  if (!body) {
    const pre = await evaluateIf(ctx, req, r.virtualPath);
    const held = locksAt(ctx, r).filter((l) => pre.tokens.has(l.token));
    if (held.length !== 1)
      throw new AppError(
        'DAV_BAD_REFRESH',
        'A lock refresh names exactly one lock covering this resource in the If header.',
      );
    if (held[0]!.user_id !== ctx.caller.userId)
      throw new AppError('DAV_NOT_LOCK_OWNER', 'This lock belongs to another account.');
    const fresh = ctx.store.refreshLock(held[0]!.token, timeout);
    const rootVirtual = fresh.relative ? `${r.space.path}/${fresh.relative}` : r.space.path;
    return {
      status: 200,
      body: lockBody(activeLock(fresh, rootVirtual, r.isDirectory || fresh.relative !== r.relative)),
      headers: {},
    };
  }
  if (!isDav(body, 'lockinfo')) throw new AppError('DAV_BAD_XML', 'A LOCK body is a DAV:lockinfo element.');
  const scopeEl = child(body, 'lockscope');
  const scope = scopeEl && elements(scopeEl).find((e) => isDav(e, 'exclusive') || isDav(e, 'shared'))?.localName;
  const typeEl = child(body, 'locktype');
  if (scope !== 'exclusive' && scope !== 'shared')
    throw new AppError('DAV_BAD_XML', 'DAV:lockscope must be exclusive or shared.');
  if (!typeEl || !elements(typeEl).some((e) => isDav(e, 'write')))
    throw new AppError('DAV_BAD_XML', 'Only write locks exist.');
  const ownerEl = child(body, 'owner');
  const depth = parseDepth(req.headers.depth, 'infinity');
  if (depth === '1') throw new AppError('DAV_BAD_DEPTH', 'LOCK takes Depth 0 or infinity.');

  refuseReadOnly(r, 'lock this');
  const pre = await evaluateIf(ctx, req, r.virtualPath);
  ctx.locks.assertFree(ctx.caller, r, { withBelow: depth === 'infinity', except: 'webdav' });
  // A new lock conflicts with an exclusive one in its scope, and an exclusive one with any.
  const existing = locksAt(ctx, r, depth === 'infinity' && r.exists);
  if (existing.some((l) => l.scope === 'exclusive' || scope === 'exclusive')) {
    throw new DavConditionError('DAV_LOCKED', 'The resource is already locked.', 'no-conflicting-lock');
  }
  const createsResource = !r.exists;
  if (createsResource) {
    const parent = await parentCollection(ctx, r);
    refuseReadOnly(parent, 'create a file here');
    checkLocks(ctx, pre, [{ target: r, membership: true }]);
  }
  // The row first (counted against the account's limits in the same transaction), then the
  // empty file: two LOCKs at once cannot both pass a full count.
  const row = ctx.store.createLock(
    {
      token: newLockToken(),
      root: r.space.root,
      relative: r.relative,
      depth: depth === 'infinity' ? -1 : 0,
      scope,
      ownerXml: ownerEl ? serialize(ownerEl) : null,
      userId: ctx.caller.userId,
      timeoutSeconds: timeout,
      createsResource,
    },
    LOCK_LIMITS,
  );
  if (!row)
    throw new AppError(
      'DAV_TOO_MANY_LOCKS',
      createsResource
        ? `You hold ${LOCK_LIMITS.created} locks on files a LOCK created; unlock some first.`
        : `You hold ${LOCK_LIMITS.held} locks; unlock some first.`,
    );
  if (createsResource) {
    // No file made: the row goes too, and takes no room in the account's count.
    const fd = await withParentIn(r.space.root, r.realPath, (dir, name) => createFileAt(dir, name)).catch((err) => {
      ctx.store.removeLock(row.token);
      throw err.code === 'EEXIST' ? new AppError('EXISTS', 'The resource was created meanwhile; lock it again.') : err;
    });
    fs.closeSync(fd);
    ctx.changes.emit({ type: 'created', path: r.realPath, isDirectory: false });
  }
  return {
    status: createsResource ? 201 : 200,
    body: lockBody(activeLock(row, r.virtualPath, r.isDirectory)),
    headers: { 'Lock-Token': `<${row.token}>` },
  };
}

// §9.11: "The UNLOCK method removes the lock identified by the lock token in the Lock-Token
// request header. The Request-URI MUST identify a resource within the scope of the lock."
// §9.11.1: "409 (Conflict) [...] with 'lock-token-matches-request-uri'" when it does not.
// Only the account that took the lock, signed in with its password or a write token, or an
// administrator (who can also break it in Administration) lifts it: a read token cannot.
export function unlock(ctx: DavContext, req: IncomingMessage, r: ResolvedPath): void {
  const token = parseLockTokenHeader(req.headers['lock-token']);
  if (ctx.caller.tokenScope === 'read')
    throw new AppError('READ_ONLY', 'A read token cannot unlock; use the password or a write token.');
  const held = locksAt(ctx, r).find((l) => l.token === token);
  if (!held)
    throw new DavConditionError(
      'DAV_NO_SUCH_LOCK',
      'No lock with this token covers the resource.',
      'lock-token-matches-request-uri',
    );
  if (held.user_id !== ctx.caller.userId && !ctx.caller.isAdmin)
    throw new AppError('DAV_NOT_LOCK_OWNER', 'This lock belongs to another account.');
  ctx.store.removeLock(token);
}

export { hrefFor };

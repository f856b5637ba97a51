// What an activity row means as a notification: its kind, who may receive it, the paths it is
// about, and the words a person reads. Pure functions over the row; the service decides who
// actually receives it (their choices, and the access check on every path).
import { formatBytes } from '../uploads/staging.ts';
import type { EventKind } from './wire.ts';

/** The activity actions about files in a folder, by the kind of event they are. */
const FOLDER_ACTIONS: Record<string, EventKind> = {
  'files.upload': 'folder.uploaded',
  'dav.put': 'folder.uploaded',
  'files.create-folder': 'folder.changed',
  'files.create-file': 'folder.changed',
  'files.rename': 'folder.changed',
  'files.move': 'folder.changed',
  'files.copy': 'folder.changed',
  'editor.save': 'folder.changed',
  'office.save': 'folder.changed',
  'archive.extract': 'folder.changed',
  'archive.compress': 'folder.changed',
  'trash.restore': 'folder.changed',
  'dav.mkcol': 'folder.changed',
  'dav.copy': 'folder.changed',
  'dav.move': 'folder.changed',
  'files.delete': 'folder.deleted',
  'dav.delete': 'folder.deleted',
};

/**
 * The server's own events (no activity row: the outbox's `state` and `raise` write them), by
 * their action. A volume's return is told under the kind its loss was chosen by.
 */
export const SERVER_ACTIONS: Record<string, EventKind> = {
  'quota.nearly-full': 'quota.nearly-full',
  'disk.nearly-full': 'quota.nearly-full',
  'volume.missing': 'volume.missing',
  'volume.back': 'volume.missing',
  'job.failed': 'job.failed',
  'job.recovered': 'job.failed',
  'volume.read-only': 'volume.read-only',
  'volume.writable': 'volume.read-only',
};

/** The share of a quota past which its account (or, for a volume's, the administrators) is told. */
export const QUOTA_MARK = 0.9;

export interface ActivityFacts {
  action: string;
  outcome: string;
  userId: string | null;
  detail: Record<string, unknown> | null;
}

/** The kind of notification an activity row is, or null when it is none. */
export function kindOf(row: ActivityFacts): EventKind | null {
  if (row.action === 'share.file-request.received') return 'files.arrived';
  if (row.action === 'share.link.opened') return 'link.opened';
  if (row.action === 'share.link.downloaded') return 'link.downloaded';
  if (row.action === 'share.create' && row.outcome === 'success' && recipientsOf(row.detail).length)
    return 'share.received';
  if (row.action === 'auth.lockout') return 'signin.lockout';
  if (row.action === 'auth.login' && row.outcome === 'failure' && row.detail?.reason === 'wrong-totp-code')
    return 'signin.second-factor-failed';
  // A browser the account has not signed in from (auth/ decided, with its device cookie): one
  // notification even when the address is new too — it names the address, and says so.
  if (row.action === 'auth.login' && row.outcome === 'success' && row.detail?.device === 'new')
    return 'signin.new-device';
  if (row.action === 'auth.login' && row.outcome === 'success') return 'signin.new-address';
  if (row.action in SERVER_ACTIONS) return SERVER_ACTIONS[row.action]!;
  if (row.action === 'files.upload' && row.outcome === 'failure' && row.detail?.stage === 'placement')
    return 'upload.failed';
  if (row.outcome !== 'success') return null;
  return FOLDER_ACTIONS[row.action] ?? null;
}

/**
 * The kind under which an account's chosen kinds take this event, or null: a new device that is
 * a new address too is one notification, which also reaches an account that chose new addresses
 * only — as a new address (its e-mail switch and delivery mode are that kind's).
 */
export function takenAs(
  kinds: readonly string[],
  kind: EventKind,
  detail: Record<string, unknown> | null,
): EventKind | null {
  if (kinds.includes(kind)) return kind;
  return kind === 'signin.new-device' && detail?.newAddress === true && kinds.includes('signin.new-address')
    ? 'signin.new-address'
    : null;
}

/** Could this action ever become a notification (decided before the row is written)? */
export function mayNotify(action: string): boolean {
  return (
    action in FOLDER_ACTIONS ||
    action === 'share.file-request.received' ||
    action === 'share.create' ||
    action === 'share.link.opened' ||
    action === 'share.link.downloaded' ||
    action === 'auth.lockout' ||
    action === 'auth.login'
  );
}

/** The accounts a share names (a `users` share's creation). */
export function recipientsOf(detail: Record<string, unknown> | null): string[] {
  const r = detail?.recipients;
  return Array.isArray(r) ? r.filter((x): x is string => typeof x === 'string') : [];
}

export const isFolderKind = (kind: EventKind): boolean => kind.startsWith('folder.');

/** The paths a folder event names, as the actor sees them (WebDAV's rows carry the URL path). */
export function pathsOf(detail: Record<string, unknown> | null): string[] {
  if (!detail) return [];
  const out: string[] = [];
  const add = (v: unknown) => {
    if (typeof v !== 'string' || !v) return;
    const p = v.startsWith('/dav/') ? v.slice('/dav/'.length) : v;
    out.push(p.replace(/^\/+|\/+$/g, ''));
  };
  if (Array.isArray(detail.paths)) for (const p of detail.paths) add(p);
  add(detail.path);
  add(detail.to);
  return [...new Set(out)].filter(Boolean);
}

const VERBS: Record<string, string> = {
  'folder.uploaded': 'added',
  'folder.changed': 'changed',
  'folder.deleted': 'deleted',
};

const lastName = (p: string) => p.split('/').pop() ?? p;

/** The title and the sentence a person reads. */
export function wordsFor(
  kind: EventKind,
  facts: {
    actor: string | null;
    paths: string[];
    count: number;
    detail: Record<string, unknown> | null;
    /** The address a sign-in came from. */
    address?: string | null;
  },
): { title: string; text: string } {
  const who = facts.actor ?? 'Someone';
  const d = facts.detail ?? {};
  switch (kind) {
    case 'files.arrived': {
      const name = typeof d.name === 'string' ? d.name : 'A file';
      const label = typeof d.label === 'string' && d.label ? ` “${d.label}”` : '';
      return { title: 'Files arrived', text: `${name} arrived through your file request${label}.` };
    }
    case 'signin.new-address':
      return { title: 'Sign-in from a new address', text: `${who} signed in from an address not seen before.` };
    case 'signin.new-device': {
      const browser = typeof d.browser === 'string' && d.browser ? d.browser : 'an unknown browser';
      const where = facts.address ? ` at ${facts.address}` : '';
      const also = d.newAddress === true ? ', an address not seen before either' : '';
      return {
        title: 'Sign-in from a new device',
        text: `${who} signed in from a device not seen before: ${browser}${where}${also}.`,
      };
    }
    case 'signin.lockout':
      return { title: 'Account locked', text: `${who} was locked after too many failed sign-ins.` };
    case 'signin.second-factor-failed':
      return {
        title: 'A second-factor code was refused',
        text: `Someone gave the right password for ${who} but a wrong code.`,
      };
    case 'share.received': {
      const first = facts.paths[0] ?? (typeof d.path === 'string' ? d.path : '');
      return { title: 'Shared with you', text: `${who} shared “${lastName(first)}” with you.` };
    }
    case 'link.opened': {
      const name = lastName(typeof d.path === 'string' ? d.path : '');
      return { title: 'Your link was opened', text: `Your link to “${name}” was opened for the first time.` };
    }
    case 'link.downloaded': {
      const name = lastName(typeof d.path === 'string' ? d.path : '');
      const n = typeof d.count === 'number' ? d.count : 1;
      return {
        title: `${name} downloaded`,
        text: `“${name}” was downloaded through your link (${n} download${n === 1 ? '' : 's'} so far).`,
      };
    }
    case 'quota.nearly-full': {
      if (d.scope === 'disk') {
        const size = typeof d.sizeBytes === 'number' ? d.sizeBytes : 0;
        const free = typeof d.freeBytes === 'number' ? d.freeBytes : 0;
        const percent = size > 0 ? Math.floor(((size - free) / size) * 100) : 100;
        const names = typeof d.name === 'string' ? d.name : 'Burrow’s folders';
        return {
          title: `The disk of ${names} is nearly full`,
          text: `Only ${formatBytes(free)} of ${formatBytes(size)} are left on the disk holding ${names} (${percent}% used): uploads and changes there fail once it is full.`,
        };
      }
      const used = typeof d.usedBytes === 'number' ? d.usedBytes : 0;
      const limit = typeof d.limitBytes === 'number' ? d.limitBytes : 0;
      const percent = limit > 0 ? Math.floor((used / limit) * 100) : 100;
      const figures = `${formatBytes(used)} of ${formatBytes(limit)} (${percent}%)`;
      const name = typeof d.name === 'string' ? d.name : '';
      return d.scope === 'volume'
        ? { title: `The volume “${name}” is nearly full`, text: `The volume “${name}” holds ${figures} of its quota.` }
        : { title: 'Your storage is nearly full', text: `${name || who} uses ${figures} of the quota.` };
    }
    case 'volume.missing': {
      const label = typeof d.label === 'string' ? d.label : '';
      return d.back
        ? { title: `The volume “${label}” is back`, text: `The folder of the volume “${label}” can be read again.` }
        : {
            title: `The volume “${label}” is missing`,
            text: `The folder of the volume “${label}” cannot be read (${typeof d.reason === 'string' ? d.reason : 'gone'}): an unmounted disk? Its files are unavailable until it returns.`,
          };
    }
    case 'volume.read-only': {
      const label = typeof d.label === 'string' ? d.label : '';
      return d.back
        ? {
            title: `The volume “${label}” is writable again`,
            text: `Burrow can write in the folder of the volume “${label}” again.`,
          }
        : {
            title: `The volume “${label}” is read-only`,
            text: `Nothing can be written in the volume “${label}” (${typeof d.reason === 'string' ? d.reason : 'read-only'}): uploads and changes there are refused until it is writable again.`,
          };
    }
    case 'upload.failed': {
      const name = typeof d.name === 'string' ? d.name : 'A file';
      const folder = typeof d.folder === 'string' && d.folder ? d.folder : 'its folder';
      const reason = typeof d.reason === 'string' ? d.reason : 'it could not be placed.';
      return {
        title: `“${name}” could not be placed`,
        text: `“${name}” was uploaded but not placed in ${folder}: ${reason}`,
      };
    }
    case 'job.failed': {
      const label = typeof d.label === 'string' ? d.label : 'A background job';
      const job = typeof d.job === 'string' ? d.job : '';
      return d.recovered
        ? { title: `A background job works again: ${job}`, text: `${label} (${job}) ran without failing again.` }
        : {
            title: `A background job keeps failing: ${job}`,
            text: `${label} (${job}) failed ${typeof d.failures === 'number' ? d.failures : 'several'} times in a row: ${typeof d.error === 'string' && d.error ? d.error : 'no reason given'}. The server's log has each failure.`,
          };
    }
    case 'test':
      return { title: 'Test notification', text: 'Burrow can reach this destination.' };
    default: {
      const first = facts.paths[0] ?? '';
      const more = facts.count > 1 ? ` and ${facts.count - 1} more` : '';
      return {
        title: `${lastName(first) || 'Files'} ${VERBS[kind] ?? 'changed'}`,
        text: `${who} ${VERBS[kind] ?? 'changed'} ${first}${more}.`,
      };
    }
  }
}

/** What each kind is called where a person chooses it (Settings, a message's footer). */
export const KIND_LABELS: Record<EventKind, string> = {
  'files.arrived': 'Files arrived through a file request',
  'folder.uploaded': 'Uploads in watched folders',
  'folder.changed': 'Changes in watched folders',
  'folder.deleted': 'Deletions in watched folders',
  'signin.new-address': 'Sign-ins from a new address',
  'signin.new-device': 'Sign-ins from a new device',
  'signin.lockout': 'Accounts locked after failed sign-ins',
  'signin.second-factor-failed': 'Refused second-factor codes',
  'share.received': 'Something shared with me',
  'link.opened': 'My links opened',
  'link.downloaded': 'Downloads through my links',
  'quota.nearly-full': 'A quota or a disk nearly full',
  'volume.missing': 'A volume missing (and back)',
  'volume.read-only': 'A volume read-only (and writable again)',
  'upload.failed': 'An upload that could not be placed',
  'job.failed': 'A background job failing (and working again)',
  test: 'Test notifications',
  digest: 'Quiet hours and digests',
};

// An activity row in words: the action's name ("Rename", never `files.rename`), a sentence for
// its detail ("Moved 3 items into Files/Archive: Files/a.txt, Files/b.txt and 1 more", "Signed
// in with a password"), and for an action without one its fields as "name: value" pairs with
// the codes in words — never raw JSON or a code such as `local_password`.
import { formatBytes, formatDate } from '../util.ts';

type Detail = Record<string, unknown>;

/** A time as the screens show times ("Dec 24, 2026, 12:26 PM"), never the 24-character ISO form. */
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/;
const str = (v: unknown) => (typeof v === 'string' ? (ISO_TIME.test(v) ? formatDate(v) || v : v) : '');
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** "a, b and 3 more": the paths the row names, then how many it left out. */
function pathList(d: Detail): string {
  const paths = Array.isArray(d.paths) ? d.paths.filter((p): p is string => typeof p === 'string') : [];
  const more = Math.max(0, num(d.count) - paths.length);
  return paths.join(', ') + (more ? ` and ${more} more` : '');
}

function count(d: Detail, noun = 'item'): string {
  return plural(num(d.count) || (Array.isArray(d.paths) ? d.paths.length : 0), noun);
}

/** Each action's name as the log's Action column and filter show it. */
const ACTION_NAMES: Record<string, string> = {
  'auth.setup': 'Setup',
  'auth.login': 'Sign-in',
  'auth.logout': 'Sign-out',
  'auth.lockout': 'Account locked',
  'auth.password-change': 'Password changed',
  'auth.password-add': 'Password added',
  'auth.totp-enable': 'Second factor on',
  'auth.totp-disable': 'Second factor off',
  'auth.totp-recovery-codes': 'New recovery codes',
  'auth.passkey-add': 'Passkey added',
  'auth.passkey-remove': 'Passkey removed',
  'auth.passkey-clone-suspected': 'Passkey possibly copied',
  'auth.oidc-create': 'Account made by single sign-on',
  'auth.oidc-link': 'Single sign-on linked',
  'auth.oidc-role-change': 'Role set by single sign-on',
  'token.issue': 'API token issued',
  'token.rename': 'API token renamed',
  'token.revoke': 'API token revoked',
  'token.refused': 'API token refused',
  'admin.user-create': 'Account created',
  'admin.user-update': 'Account changed',
  'admin.user-delete': 'Account deleted',
  'admin.password-reset': 'Password reset',
  'admin.user-unlock': 'Account unlocked',
  'admin.role-restore': 'Administrator restored',
  'admin.settings-change': 'Settings changed',
  'admin.activity-clear': 'Log cleared',
  'admin.totp-remove': 'Second factor removed',
  'admin.passkeys-remove': 'Passkeys removed',
  'admin.lock-break': 'WebDAV lock broken',
  'terminal.start': 'Terminal opened',
  'terminal.end': 'Terminal closed',
  'dav.put': 'WebDAV upload',
  'dav.delete': 'WebDAV delete',
  'dav.mkcol': 'WebDAV new folder',
  'dav.copy': 'WebDAV copy',
  'dav.move': 'WebDAV move',
  'files.upload': 'Upload',
  'files.create-folder': 'New folder',
  'files.create-file': 'New file',
  'files.rename': 'Rename',
  'files.move': 'Move',
  'files.copy': 'Copy',
  'files.delete': 'Delete',
  'trash.restore': 'Restore',
  'trash.purge': 'Delete for good',
  'trash.empty': 'Empty trash',
  'editor.save': 'Edit',
  'office.save': 'Office edit',
  'archive.extract': 'Extract',
  'archive.compress': 'Compress',
  'share.create': 'Share',
  'share.update': 'Share changed',
  'share.delete': 'Share stopped',
  'share.file-request.received': 'File received',
};

/** `files.rename` → "Rename"; an action this screen does not know reads as its words ("office.lock" → "Office lock"). */
export function actionName(action: string): string {
  const known = ACTION_NAMES[action];
  if (known) return known;
  const text = action.replace(/[._-]+/g, ' ').trim();
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Codes that rows and the accounts table carry, in words. */
const CODES: Record<string, string> = {
  local_password: 'password',
  password: 'password',
  basic: 'password (WebDAV or a script)',
  passkey: 'passkey',
  oidc: 'single sign-on',
  'oidc-mobile': 'single sign-on (the app)',
  totp: 'authenticator code',
  'recovery-code': 'recovery code',
  'wrong-password': 'wrong password',
  'no-password': 'the account has no password',
  'unknown-account': 'no such account',
  'ambiguous-identifier': 'the name matches two accounts',
  'second-factor-needs-token': 'the account has a second factor: use an API token',
  'wrong-totp-code': 'wrong code',
  locked: 'the account is locked',
  'switched-off': 'switched off',
  'signed-out': 'signed out',
  exited: 'the shell ended',
  idle: 'no input for a while',
  shutdown: 'Burrow stopped',
  closed: 'the page closed it',
  tus: 'resumable',
  multipart: 'form upload',
  anyone: 'anyone with the link',
  users: 'chosen accounts',
  readonly: 'read only',
  readwrite: 'read and write',
  read: 'read only',
  write: 'read and write',
  admin: 'administrator',
  user: 'user',
};

/** A code in words (`local_password` → "password"); other text as it is. */
export function codeWords(value: string): string {
  return CODES[value] ?? value;
}

const SETTING_SECTIONS: Record<string, string> = {
  branding: 'name and logo',
  thumbnails: 'thumbnails',
  access: 'access rules',
  activity: 'activity log',
  folderSizes: 'folder sizes',
  terminal: 'terminal',
};

/** "wrong password" after a failed step, "with a passkey" after a method. */
function signIn(d: Detail, outcome: string): string {
  const method = typeof d.method === 'string' ? codeWords(d.method) : '';
  const reason = typeof d.reason === 'string' ? codeWords(d.reason) : '';
  if (outcome === 'failure' || (reason && !d.held))
    return `Sign-in refused${method ? ` (${method})` : ''}${reason ? `: ${reason}` : ''}`;
  const second = typeof d.secondFactor === 'string' ? ` and ${codeWords(d.secondFactor)}` : '';
  return `Signed in${method ? ` with ${method.startsWith('pass') ? 'a ' : ''}${method}` : ''}${second}${
    d.held ? ', waiting for the second factor' : ''
  }`;
}

const SENTENCES: Record<string, (d: Detail, outcome: string) => string> = {
  'auth.login': signIn,
  'auth.lockout': (d) => `Locked after failed sign-ins${d.until ? ` until ${str(d.until)}` : ''}`,
  'auth.passkey-add': (d) => `Added the passkey “${str(d.name)}”`,
  'auth.oidc-role-change': (d) =>
    `The identity provider made the account ${codeWords(str(d.to))}${d.from ? ` (was ${codeWords(str(d.from))})` : ''}`,
  'token.issue': (d) =>
    `Issued the API token “${str(d.name)}” (${codeWords(str(d.scope))}${d.expiresAt ? `, expires ${str(d.expiresAt)}` : ', no expiry'})`,
  'token.rename': (d) => `Renamed an API token from “${str(d.from)}” to “${str(d.to)}”`,
  'token.revoke': (d) => `Revoked the API token “${str(d.name)}”`,
  'token.refused': (d) => `Refused an API token${d.reason ? `: ${codeWords(str(d.reason))}` : ''}`,
  'admin.user-create': (d) =>
    `Created the account ${str(d.username)}` +
    (Array.isArray(d.roles) && d.roles.length ? ` (${d.roles.map((r) => codeWords(String(r))).join(', ')})` : ''),
  'admin.user-update': (d) =>
    `Changed an account` +
    (Array.isArray(d.changed) && d.changed.length ? `: ${d.changed.map((k) => words(String(k))).join(', ')}` : ''),
  'admin.user-delete': (d) => `Deleted the account ${str(d.username)}`,
  'admin.settings-change': (d) => {
    const value = (k: string) =>
      k === 'folderSizes' && typeof d.folderSizes === 'string'
        ? d.folderSizes
        : k === 'terminal' && typeof d.terminal === 'string'
          ? d.terminal
          : k === 'activity' && d.activity && typeof d.activity === 'object'
            ? (d.activity as Detail).enabled
              ? 'on'
              : 'off'
            : '';
    const sections = Array.isArray(d.sections) ? d.sections.map(String) : [];
    return `Changed the settings${sections.length ? ': ' : ''}${sections
      .map((k) => `${SETTING_SECTIONS[k] ?? words(k)}${value(k) ? ` (${value(k)})` : ''}`)
      .join(', ')}`;
  },
  'admin.activity-clear': (d) => `Cleared the log (${plural(num(d.removed), 'row')} removed)`,
  'admin.totp-remove': (d) => `Removed the second factor of ${str(d.username)}`,
  'admin.passkeys-remove': (d) => `Removed ${plural(num(d.removed), 'passkey')} of ${str(d.username)}`,
  'terminal.start': (d) => `Opened a terminal${d.shell ? ` (${str(d.shell)})` : ''}`,
  'terminal.end': (d) =>
    `Closed a terminal${d.reason ? `: ${codeWords(str(d.reason))}` : ''}` +
    (num(d.durationMs) ? ` after ${Math.max(1, Math.round(num(d.durationMs) / 60_000))} min` : ''),
  'files.upload': (d) =>
    `Uploaded ${count(d, 'file')}${d.bytes !== undefined ? ` (${formatBytes(num(d.bytes))})` : ''}` +
    `${d.method === 'tus' ? ' resumably' : ''}: ${pathList(d)}`,
  'files.create-folder': (d) => `Created the folder ${str(d.path)}`,
  'files.create-file': (d) => `Created the file ${str(d.path)}`,
  'files.rename': (d) => `Renamed ${str(d.path)} to ${str(d.to)}`,
  'files.move': (d) => `Moved ${count(d)} into ${str(d.destination)}: ${pathList(d)}`,
  'files.copy': (d) => `Copied ${count(d)} into ${str(d.destination)}: ${pathList(d)}`,
  'files.delete': (d) =>
    `Moved ${count(d)} to the trash: ${pathList(d)}` +
    (num(d.notDeleted) ? ` (${plural(num(d.notDeleted), 'item')} not deleted)` : ''),
  'trash.restore': (d) =>
    d.from && d.from !== d.path
      ? `Restored ${str(d.from)} from the trash as ${str(d.path)}`
      : `Restored ${str(d.path)} from the trash`,
  'trash.purge': (d) => `Deleted ${str(d.path)} from the trash for good`,
  'trash.empty': (d) => `Emptied the trash (${count(d)} deleted for good)`,
  'editor.save': (d) => `${d.created ? 'Created' : 'Saved'} ${str(d.path)} in the editor`,
  'office.save': (d) =>
    `Saved ${str(d.path)} in the office editor` + (d.as ? ` as a new file` : '') + (d.via ? ` (${str(d.via)})` : ''),
  'archive.extract': (d) =>
    `Extracted ${d.entries ? `${plural(num(d.entries), 'entry', 'entries')} of ` : ''}${str(d.path)} into ` +
    `${str(d.destination)} (${plural(num(d.files), 'file')}, ${formatBytes(num(d.bytes))})`,
  'archive.compress': (d) => `Compressed ${count(d)} into ${str(d.path)}: ${pathList(d)}`,
  'share.create': (d) =>
    `Shared ${str(d.path)}${d.fileRequest ? ' as a file request' : ''} with ${
      d.sharingType === 'users' ? 'chosen accounts' : 'anyone with the link'
    }` +
    [
      d.writable && !d.fileRequest ? 'may change files' : '',
      d.password ? 'password' : '',
      d.expiresAt ? `expires ${str(d.expiresAt)}` : '',
    ]
      .filter(Boolean)
      .map((s) => `, ${s}`)
      .join(''),
  'share.update': (d) =>
    `Changed the share of ${str(d.path)}` +
    (Array.isArray(d.changed) && d.changed.length ? `: ${d.changed.map((k) => words(String(k))).join(', ')}` : ''),
  'share.delete': (d) => `Stopped sharing ${str(d.path)}`,
  'share.file-request.received': (d) =>
    `Received ${str(d.name)} (${formatBytes(num(d.size))}) in ${str(d.path)} through a file request`,
};

/** camelCase → words. */
const words = (k: string) => k.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();

/** Fields as "name: value" pairs, codes in words. */
export function describeFields(detail: unknown): string {
  if (detail === undefined || detail === null) return '';
  if (typeof detail !== 'object') return codeWords(String(detail));
  return Object.entries(detail as Detail)
    .filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(
      ([k, v]) =>
        `${words(k)}: ${Array.isArray(v) ? v.map((x) => codeWords(String(x))).join(', ') : typeof v === 'object' ? Object.values(v as object).join(' ') : typeof v === 'string' ? codeWords(str(v)) : String(v)}`,
    )
    .join(' · ');
}

/** The row's detail in words: a sentence where the action has one, with the link or token it came through. */
export function describeActivity(action: string, detail: unknown, outcome = 'success'): string {
  const sentence = SENTENCES[action];
  if (!sentence || !detail || typeof detail !== 'object') return describeFields(detail);
  const d = detail as Detail;
  const through = [
    d.shareId && !action.startsWith('share.') ? `through share link ${str(d.shareId).slice(0, 8)}` : '',
    d.tokenId ? 'with an API token' : '',
  ].filter(Boolean);
  return sentence(d, outcome) + (through.length ? ` (${through.join(', ')})` : '');
}

// The detail of an activity row in words: a sentence for file operations and shares
// ("Moved 3 items into Files/Archive: Files/a.txt, Files/b.txt and 1 more"), and for every
// other action its fields as "name: value" pairs — never raw JSON.
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

const SENTENCES: Record<string, (d: Detail) => string> = {
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

/** Fields as "name: value" pairs. */
export function describeFields(detail: unknown): string {
  if (detail === undefined || detail === null) return '';
  if (typeof detail !== 'object') return String(detail);
  return Object.entries(detail as Detail)
    .filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(
      ([k, v]) =>
        `${words(k)}: ${Array.isArray(v) ? v.join(', ') : typeof v === 'object' ? Object.values(v as object).join(' ') : typeof v === 'string' ? str(v) : String(v)}`,
    )
    .join(' · ');
}

/** The row's detail in words: a sentence where the action has one, with the link or token it came through. */
export function describeActivity(action: string, detail: unknown): string {
  const sentence = SENTENCES[action];
  if (!sentence || !detail || typeof detail !== 'object') return describeFields(detail);
  const d = detail as Detail;
  const through = [
    d.shareId && !action.startsWith('share.') ? `through share link ${str(d.shareId).slice(0, 8)}` : '',
    d.tokenId ? 'with an API token' : '',
  ].filter(Boolean);
  return sentence(d) + (through.length ? ` (${through.join(', ')})` : '');
}

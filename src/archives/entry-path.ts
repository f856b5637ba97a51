// Entry names as archives store them, made into paths that can only land inside the
// destination. Backslashes count as separators everywhere (a Windows-made archive, or a tar
// crafted to escape on a Windows host). A name that is absolute, has a drive letter or a `..`
// step, or a step Burrow reserves for itself, is "outside": never listed, never written.
import { isReservedName } from '../files/names.ts';

const PLAIN = /^(?![a-zA-Z]:)(?:[^/\\\0.][^/\\\0]*\/)*[^/\\\0.][^/\\\0]*\/?$/;

/** The safe path of an entry (`a/b/c`, no leading or trailing slash), or null when it points outside. */
export function entryPath(stored: string): string | null {
  // Most names are a path already (no backslash, NUL, empty or dot-led step, drive letter,
  // leading slash), short enough that no step can pass 255 bytes: taken as they are.
  if (stored.length <= 85 && PLAIN.test(stored)) return stored.endsWith('/') ? stored.slice(0, -1) : stored;
  if (stored.includes('\0')) return null;
  const name = stored.replace(/\\/g, '/');
  if (name.startsWith('/') || /^[a-zA-Z]:/.test(name)) return null;
  const steps: string[] = [];
  for (const step of name.split('/')) {
    if (step === '' || step === '.') continue;
    if (step === '..' || isReservedName(step) || Buffer.byteLength(step) > 255) return null;
    steps.push(step);
  }
  return steps.length ? steps.join('/') : null;
}

/**
 * Where a link entry points, resolved against the link's own folder: null when the target
 * leaves the archive's tree (absolute, drive letter, or too many `..`).
 */
export function linkTargetInside(linkPath: string, target: string): string | null {
  const t = target.replace(/\\/g, '/');
  if (t.startsWith('/') || /^[a-zA-Z]:/.test(t) || t.includes('\0')) return null;
  const steps = linkPath.split('/').slice(0, -1);
  for (const step of t.split('/')) {
    if (step === '' || step === '.') continue;
    if (step === '..') {
      if (!steps.length) return null;
      steps.pop();
    } else steps.push(step);
  }
  return steps.join('/');
}

/** A query's position (`inside`, `entry`): the same rules, but a bad one is the caller's mistake. */
export function positionPath(value: string): string | null | 'bad' {
  if (value === '' || value === '/') return null;
  const p = entryPath(value);
  return p === null ? 'bad' : p;
}

/** `2024-05-01 13:45:07` in the server's local time, as `unzip -l` and `7z l` show it. */
export function formatModified(date: Date | null | undefined): string | null {
  if (!date || Number.isNaN(date.getTime())) return null;
  const p = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${p(date.getMonth() + 1)}-${p(date.getDate())} ${p(date.getHours())}:${p(date.getMinutes())}:${p(date.getSeconds())}`;
}

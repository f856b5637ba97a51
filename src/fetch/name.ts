// The name a fetched file gets: the one the person typed, else Content-Disposition's
// (`filename*` in RFC 8187's UTF-8 form over `filename`), else the address's last path segment,
// else the host's — each made a plain name (files/names.ts): separators and control characters
// become spaces, cut to 255 bytes keeping the extension, never a reserved or dot name.
import { assertPlainName, isPlainName, splitName } from '../files/names.ts';

/** `filename*=UTF-8''…` or `filename="…"` / `filename=token` of a Content-Disposition header. */
export function dispositionName(header: string | undefined): string | null {
  if (!header) return null;
  const star = /(?:^|;)\s*filename\*\s*=\s*([^']*)'[^']*'([^;]*)/i.exec(header);
  if (star) {
    const charset = star[1]!.trim().toLowerCase();
    try {
      if (charset === 'utf-8' || charset === '') return decodeURIComponent(star[2]!.trim());
      if (charset === 'iso-8859-1')
        return star[2]!.trim().replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
    } catch {
      /* a broken encoding: try the plain parameter */
    }
  }
  const quoted = /(?:^|;)\s*filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(header);
  if (quoted) return quoted[1]!.replace(/\\(.)/g, '$1');
  const token = /(?:^|;)\s*filename\s*=\s*([^;\s]+)/i.exec(header);
  return token ? token[1]! : null;
}

/** The last non-empty path segment of `url`, decoded. */
export function addressName(url: URL): string | null {
  const last = url.pathname.split('/').filter(Boolean).pop();
  if (!last) return null;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/** `text` as a plain file name, or null when nothing of it is left. */
export function plainName(text: string | null): string | null {
  if (text === null) return null;
  // eslint-disable-next-line no-control-regex
  let name = text
    .normalize('NFC')
    .replace(/[/\\\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  name = name.replace(/^\.+/, (dots) => (dots.length === name.length ? '' : dots));
  if (Buffer.byteLength(name) > 255) {
    const { stem, ext } = splitName(name);
    const room = 255 - Buffer.byteLength(ext);
    let cut = stem;
    while (Buffer.byteLength(cut) > room) cut = [...cut].slice(0, -1).join('');
    name = cut + ext;
  }
  return isPlainName(name) ? name : null;
}

/** The name a fetch lands under (before `name (1)` numbering). */
export function fetchedName(asked: string | undefined, disposition: string | undefined, url: URL): string {
  return (
    (asked ? assertPlainName(asked, 'file name') : null) ??
    plainName(dispositionName(disposition)) ??
    plainName(addressName(url)) ??
    plainName(url.hostname) ??
    'download'
  );
}

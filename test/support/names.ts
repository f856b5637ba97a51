// Names as people write them, and the clients that send them.
//
// NAMES is a home folder's worth of the names that break naive code: spaces, `+`, `&`, `#`,
// `%` (also followed by hex digits that are not UTF-8), `?`, quotes, accents in NFC and in NFD,
// emoji, a leading dot, a name of exactly 255 bytes, a pair told apart only by `+` against a
// space, and a folder chain 40 deep. `buildTree` writes them under one folder whose own name
// has a space, `+`, `&` and `#`.
//
// CLIENTS send a query string the way each real client does: a browser's URLSearchParams,
// Python's urllib.parse.urlencode (what `requests` uses; run in a real python3), curl's
// --data-urlencode (a real curl making the request), the native app's Foundation URLComponents
// (space `%20`, `+` and `/` left raw), and encodeURIComponent (`%20` for a space, `%2B` for a plus).
import { execFile, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const nfd = (t: string) => t.normalize('NFD');
export const nfc = (t: string) => t.normalize('NFC');

/** A name of exactly 255 UTF-8 bytes (the most a Linux file name holds), with a space and a `+`. */
export function name255(): string {
  const head = 'Long name + ';
  const ext = '.txt';
  let middle = '';
  while (Buffer.byteLength(head + middle + 'é' + ext) <= 255) middle += 'é';
  while (Buffer.byteLength(head + middle + ext) < 255) middle += 'x';
  const name = head + middle + ext;
  if (Buffer.byteLength(name) !== 255) throw new Error('name255 is not 255 bytes');
  return name;
}

export interface NamedFile {
  /** What the case is about. */
  label: string;
  name: string;
  /** A search term that finds it by name (at least 3 characters; `?` and `*` make a whole-name pattern). */
  term: string;
  /** A word only its content holds (content search). */
  word: string;
}

/** The folder every case lives in, inside the volume. */
export const VOLUME = 'Home Media';
export const FOLDER = 'Docs + Notes & #1';
export const DEEP_LEVELS = 40;

export const NAMES: NamedFile[] = [
  { label: 'spaces', name: 'Holiday 2025 plan.txt', term: 'Holiday 2025', word: 'zebrafinch' },
  { label: 'plus and spaces', name: 'Notes + ideas.txt', term: 'Notes + ideas', word: 'quokkanote' },
  { label: 'a plus only (its twin has a space)', name: 'a+b.txt', term: 'a+b', word: 'plustwin' },
  { label: 'a space only (its twin has a plus)', name: 'a b.txt', term: 'a b.t', word: 'spacetwin' },
  { label: 'ampersand', name: 'Tom & Jerry.txt', term: 'Tom & Jerry', word: 'cartoonish' },
  { label: 'hash', name: '#1 hit single.md', term: '#1 hit', word: 'chartsong' },
  { label: 'percent', name: '100% sure %E9 50%25 %zz.txt', term: '100% sure', word: 'percentile' },
  { label: 'question mark', name: 'Why? Because.txt', term: 'Why? Because.txt', word: 'curiosity' },
  { label: 'quotes', name: `He said "hi", it's fine.txt`, term: `said "hi", it's`, word: 'quotation' },
  { label: 'accents (NFC)', name: nfc('Café crème.txt'), term: nfc('Café crème'), word: 'espresso' },
  { label: 'accents (NFD)', name: nfd('Crème brûlée.txt'), term: nfd('brûlée'), word: 'caramel' },
  { label: 'emoji', name: '🎵 Playlist 🎉 2025.txt', term: '🎵 Playlist', word: 'dancefloor' },
  { label: 'leading dot', name: '.hidden notes + plans.txt', term: '.hidden notes', word: 'secretive' },
  { label: '255 bytes', name: name255(), term: 'Long name + éé', word: 'longhaul' },
];

/** The folder chain of the deep case, and its file. */
export const deepFolders = () => Array.from({ length: DEEP_LEVELS }, (_, i) => `Deep + level ${i + 1}`);
export const DEEP_FILE: NamedFile = {
  label: `a path ${DEEP_LEVELS} folders deep`,
  name: 'bottom + file.txt',
  term: 'bottom + file',
  word: 'abyssal',
};

/** Virtual path of a case (`Home Media/Docs + Notes & #1/…`). */
export function virtualOf(f: NamedFile): string {
  return f === DEEP_FILE ? [VOLUME, FOLDER, ...deepFolders(), f.name].join('/') : [VOLUME, FOLDER, f.name].join('/');
}
export const ALL = (): NamedFile[] => [...NAMES, DEEP_FILE];
export const contentOf = (f: NamedFile) => `This is ${f.name}.\nIt holds the word ${f.word} and nothing else.\n`;

/** Writes every case under `<volumes>/Home Media/Docs + Notes & #1/`. */
export function buildTree(volumes: string): string {
  const folder = path.join(volumes, VOLUME, FOLDER);
  fs.mkdirSync(path.join(folder, ...deepFolders()), { recursive: true });
  for (const f of ALL()) fs.writeFileSync(path.join(volumes, ...virtualOf(f).split('/')), contentOf(f));
  return folder;
}

export type Fields = [string, string][];

export interface Sent {
  status: number;
  contentType: string;
  body: Buffer;
  /** The query string as it went on the wire. */
  query: string;
}

export interface SendInit {
  method?: string;
  headers?: Record<string, string>;
  /** A multipart body: the one file's bytes (sent as field `filedata`). */
  file?: Buffer;
}

export interface QueryClient {
  name: string;
  /** `url` is the server address and route path; `fields` go in the query string. */
  send(url: string, fields: Fields, init?: SendInit): Promise<Sent>;
}

/** Foundation's URLComponents: RFC 3986 query characters stay (`/`, `?`, `+`, `=`…), `&` and the rest are escaped. */
function urlComponents(text: string): string {
  const keep = /[A-Za-z0-9\-._~!$'()*+,;=:@/?]/;
  let out = '';
  for (const ch of text) {
    if (keep.test(ch)) out += ch;
    else for (const b of Buffer.from(ch)) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

async function viaFetch(url: string, query: string, init: SendInit = {}): Promise<Sent> {
  let body: FormData | undefined;
  if (init.file) {
    body = new FormData();
    body.append('filedata', new Blob([new Uint8Array(init.file)]), 'upload.bin');
  }
  const res = await fetch(`${url}?${query}`, { method: init.method ?? 'GET', headers: init.headers, body });
  return {
    status: res.status,
    contentType: res.headers.get('content-type') ?? '',
    body: Buffer.from(await res.arrayBuffer()),
    query,
  };
}

function run(file: string, args: string[], input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(file, args, { encoding: 'utf8', maxBuffer: 64 << 20 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${file} failed: ${err.message}\n${stderr}`)) : resolve(stdout),
    );
    if (input !== undefined) child.stdin!.end(input);
  });
}

/**
 * Python's urlencode (the encoder `requests` uses for `params=`), in one python3 process kept
 * for the run: a line of JSON in, a line with the encoded text out.
 */
let python: { ask(line: string): Promise<string> } | undefined;
export async function pythonQuery(fields: Fields): Promise<string> {
  python ??= (() => {
    const script = [
      'import sys, json, urllib.parse',
      'for line in sys.stdin:',
      '    op, arg = json.loads(line)',
      "    out = urllib.parse.urlencode([tuple(p) for p in arg]) if op == 'urlencode' else urllib.parse.quote(arg)",
      '    print(out, flush=True)',
    ].join('\n');
    const child = spawn('python3', ['-c', script], { stdio: ['pipe', 'pipe', 'inherit'] });
    // Held only while an answer is awaited, so the run can end with the process still there.
    const handles = [child, child.stdout, child.stdin] as unknown as { ref(): void; unref(): void }[];
    const hold = (on: boolean) => handles.forEach((h) => (on ? h.ref() : h.unref()));
    hold(false);
    const waiting: ((line: string) => void)[] = [];
    createInterface({ input: child.stdout }).on('line', (line) => {
      waiting.shift()?.(line);
      if (waiting.length === 0) hold(false);
    });
    return {
      ask: (line: string) =>
        new Promise<string>((resolve) => {
          waiting.push(resolve);
          hold(true);
          child.stdin.write(line + '\n');
        }),
    };
  })();
  return python.ask(JSON.stringify(['urlencode', fields]));
}

/** Python's urllib.parse.quote of a path (`/` kept): what a script puts in a URL path. */
export async function pythonPath(text: string): Promise<string> {
  await pythonQuery([]);
  return python!.ask(JSON.stringify(['quote', text]));
}

/** A real curl: `-G --data-urlencode` for a GET, `--url-query` (the same encoding) with `-F` for an upload. */
async function viaCurl(url: string, fields: Fields, init: SendInit = {}): Promise<Sent> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burrow-curl-'));
  try {
    const out = path.join(dir, 'body');
    const args = ['-s', '-o', out, '-w', '%{http_code}\n%{content_type}\n%{url_effective}'];
    for (const [k, v] of Object.entries(init.headers ?? {})) args.push('-H', `${k}: ${v}`);
    if (init.file) {
      const upload = path.join(dir, 'upload.bin');
      fs.writeFileSync(upload, init.file);
      args.push('-F', `filedata=@${upload}`);
      for (const [k, v] of fields) args.push('--url-query', `${k}=${v}`);
    } else {
      args.push('-G');
      if (init.method && init.method !== 'GET') args.push('-X', init.method);
      for (const [k, v] of fields) args.push('--data-urlencode', `${k}=${v}`);
    }
    args.push(url);
    const [status, contentType, effective] = (await run('curl', args)).split('\n');
    return {
      status: Number(status),
      contentType: contentType ?? '',
      body: fs.existsSync(out) ? fs.readFileSync(out) : Buffer.alloc(0),
      query: (effective ?? '').split('?').slice(1).join('?'),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export const CLIENTS: QueryClient[] = [
  {
    name: 'browser URLSearchParams (space +)',
    send: (url, fields, init) => viaFetch(url, new URLSearchParams(fields).toString(), init),
  },
  {
    name: 'Python requests / urlencode (space +)',
    send: async (url, fields, init) => viaFetch(url, await pythonQuery(fields), init),
  },
  { name: 'curl --data-urlencode (space +)', send: viaCurl },
  {
    name: 'native app URLComponents (space %20, + raw)',
    send: (url, fields, init) =>
      viaFetch(url, fields.map(([k, v]) => `${urlComponents(k)}=${urlComponents(v)}`).join('&'), init),
  },
  {
    name: 'encodeURIComponent (space %20)',
    send: (url, fields, init) =>
      viaFetch(url, fields.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'), init),
  },
];

/** A path in a URL path, each segment escaped with encodeURIComponent (the browser's rule). */
export const encodeSegments = (p: string) => p.split('/').map(encodeURIComponent).join('/');

/** The native app's URL path (wire-shapes rule 3, URLComponents): `+`, `&`, `=`, `;`, `'`… stay raw. */
export function nativeSegments(p: string): string {
  const keep = /[A-Za-z0-9\-._~!$&'()*+,;=:@]/;
  return p
    .split('/')
    .map((segment) => {
      let out = '';
      for (const ch of segment) {
        if (keep.test(ch)) out += ch;
        else for (const b of Buffer.from(ch)) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
      }
      return out;
    })
    .join('/');
}

/** How each client writes a path into a URL path. */
export const PATH_ENCODERS: { name: string; encode(p: string): Promise<string> }[] = [
  { name: 'browser (encodeURIComponent per segment)', encode: async (p) => encodeSegments(p) },
  { name: 'native app (URLComponents path)', encode: async (p) => nativeSegments(p) },
  { name: 'Python urllib.parse.quote', encode: (p) => pythonPath(p) },
];

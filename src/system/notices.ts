// THIRD-PARTY-NOTICES.txt: the name, version, licence and licence files of every package that
// travels inside the executable, and Node's own licence. The build (build/build.ts) collects
// the packages and embeds the text as an asset; `burrow --licenses` prints it and
// GET /licenses.txt serves it. From a source checkout the text is made from the installed
// packages package.json depends on.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readEmbeddedAsset } from '../assets.ts';

export const NOTICES_ASSET = 'THIRD-PARTY-NOTICES.txt';

export interface NoticePackage {
  readonly name: string;
  readonly version: string;
  readonly license: string;
  /** The package's licence and notice files: LICENSE, COPYING, NOTICE, unRarLicense.txt… */
  readonly files: { readonly name: string; readonly text: string }[];
}

/** Packages whose licence field only points at a file: the licence their file states. */
const STATED: Record<string, string> = {
  '7z-wasm': 'LGPL-2.1-or-later with the unRAR licence restriction (License.txt, unRarLicense.txt)',
};

const LICENCE_FILE = /^(licen[cs]e|copying|notice)|licen[cs]e(\.\w+)?$/i;

/** The package folder a bundled file belongs to (`…/node_modules/@scope/name`), or null for our own code. */
export function packageDirOf(root: string, file: string): string | null {
  const parts = path.resolve(root, file).split(path.sep);
  const at = parts.lastIndexOf('node_modules');
  if (at < 0 || at + 1 >= parts.length) return null;
  const end = parts[at + 1]!.startsWith('@') ? at + 3 : at + 2;
  return parts.slice(0, end).join(path.sep) || null;
}

export function readPackage(dir: string): NoticePackage {
  const json = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    license?: string | { type?: string };
    licenses?: { type?: string }[];
  };
  const license =
    STATED[json.name] ??
    (typeof json.license === 'string' ? json.license : json.license?.type) ??
    json.licenses?.map((l) => l.type).join(' OR ') ??
    'UNKNOWN';
  // The package's own licence files, and those of its data folders one level down (pdf.js ships
  // its fonts, character maps and decoders, each under a licence of its own, in standard_fonts/,
  // cmaps/ and wasm/; the web interface carries them).
  const licenceFiles = (rel: string): string[] =>
    fs
      .readdirSync(path.join(dir, rel), { withFileTypes: true })
      .filter((e) => e.isFile() && LICENCE_FILE.test(e.name) && !/\.(d\.ts|js|json|map)$/i.test(e.name))
      .map((e) => (rel ? `${rel}/${e.name}` : e.name));
  const subfolders = fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name !== 'node_modules')
    .map((e) => e.name);
  const files = [...licenceFiles(''), ...subfolders.flatMap(licenceFiles)]
    .sort()
    .map((name) => ({ name, text: fs.readFileSync(path.join(dir, name), 'utf8').trim() }));
  return { name: json.name, version: json.version, license, files };
}

const LGPL_NOTE = `These components are under the GNU Lesser General Public License. You may replace them
with a modified version: Burrow's source is public; change or swap the package (or point
package.json at your build of it), then run \`npm ci && npm run build\` to make an executable
that carries your version. Their own source is available from the package registry and the
upstream projects named in their licence files.`;

/** Joins the packages (deduplicated by name@version, sorted) and Node's licence into one text. */
export function renderNotices(
  packages: readonly NoticePackage[],
  node: { version: string; text: string },
  product = 'Burrow',
): string {
  const seen = new Map<string, NoticePackage>();
  for (const p of packages) seen.set(`${p.name}@${p.version}`, p);
  const list = [...seen.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const lgpl = list.filter((p) => /LGPL|Lesser/i.test(p.license + p.files.map((f) => f.text.slice(0, 600)).join()));
  const rule = '='.repeat(78);
  const out = [
    `${product} is MIT-licensed (its LICENSE file). This executable also carries the third-party`,
    'software below, each under its own licence, reproduced here as those licences require.',
    '',
    `Node.js ${node.version}: MIT (and the licences of its bundled dependencies, below)`,
    ...list.map((p) => `${p.name} ${p.version}: ${p.license}`),
    '',
  ];
  if (lgpl.length) out.push(`LGPL components: ${lgpl.map((p) => p.name).join(', ')}`, LGPL_NOTE, '');
  out.push(rule, `Node.js ${node.version}`, 'License: MIT', rule, node.text.trim(), '');
  for (const p of list) {
    out.push(rule, `${p.name} ${p.version}`, `License: ${p.license}`, rule);
    if (!p.files.length) out.push(`(the package ships no licence file; its package.json says ${p.license})`);
    for (const f of p.files) out.push(...(p.files.length > 1 ? [`--- ${f.name} ---`] : []), f.text, '');
    out.push('');
  }
  return out.join('\n');
}

/** Node's LICENSE beside the running binary (a Node install or the `node` npm package), or null. */
export function runningNodeLicense(): string | null {
  let dir = path.dirname(fs.realpathSync(process.execPath));
  for (let i = 0; i < 3; i++, dir = path.dirname(dir)) {
    // A Node install (LICENSE beside bin/), the `node` npm package (its platform package), a distribution's copy.
    for (const name of [
      'LICENSE',
      `node_modules/node-${process.platform}-${process.arch}/LICENSE`,
      'share/doc/node/LICENSE',
      'share/doc/nodejs/copyright',
    ]) {
      const file = path.join(dir, name);
      if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8');
    }
  }
  return null;
}

/** From source only: made once from the installed packages (the executable's text is its asset). */
let fromSource: string | undefined;

/**
 * The notices of this executable (its asset, read each time: ~460 KB kept on the heap for a
 * page few open would undo the memory work), or, from source, those of the installed dependencies.
 */
export function thirdPartyNotices(): string {
  const embedded = readEmbeddedAsset(NOTICES_ASSET);
  if (embedded) return embedded.toString('utf8');
  if (fromSource !== undefined) return fromSource;
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  const deps = Object.keys(
    (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> })
      .dependencies ?? {},
  );
  const packages = deps
    .map((d) => path.join(root, 'node_modules', d))
    .filter((dir) => fs.existsSync(path.join(dir, 'package.json')))
    .map(readPackage);
  const nodeText =
    runningNodeLicense() ??
    'Node.js is licensed under the MIT license: https://github.com/nodejs/node/blob/main/LICENSE';
  return (fromSource = renderNotices(packages, { version: process.version.slice(1), text: nodeText }));
}

// WOPI discovery: the editing server's XML says, per file extension, which URL opens it for
// viewing and for editing. Fetched with a timeout and a size cap, cached for an hour; an
// unreachable server is a clear 502, retried at the next request (not remembered).
import { AppError } from '../../core/errors.ts';
import { rsaKey, type ProofKeys } from './proof.ts';

export interface DiscoveryAction {
  ext: string;
  name: string;
  urlsrc: string;
  app: string;
}
export interface Discovery {
  byExtension: Map<string, { view?: string; edit?: string }>;
  /** The editing server's proof keys, when it publishes them (then every call back must be signed). */
  proofKeys: ProofKeys | null;
  fetchedAt: number;
}

const CACHE_MS = 60 * 60 * 1000;
const REFRESH_MIN_MS = 60 * 1000;
const TIMEOUT_MS = 8000;
const MAX_BYTES = 4 * 1024 * 1024;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const decodeXml = (s: string) =>
  s.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_m, e: string) =>
    e[0] === '#'
      ? String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)))
      : ENTITIES[e.toLowerCase()]!,
  );

function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(/([A-Za-z_:][-\w:.]*)\s*=\s*("([^"]*)"|'([^']*)')/g))
    out[m[1]!] = decodeXml(m[3] ?? m[4] ?? '');
  return out;
}

/** The actions of a discovery document (elements and attributes only: its format is that flat). */
export function parseDiscovery(xml: string): DiscoveryAction[] {
  const out: DiscoveryAction[] = [];
  // <app name="writer"> … <action name="edit" ext="docx" urlsrc="…"/> … </app>
  for (const app of xml.matchAll(/<app\b([^>]*)>([\s\S]*?)<\/app>/g)) {
    const appName = attributes(app[1]!).name ?? '';
    for (const action of app[2]!.matchAll(/<action\b([^>]*?)\/?>/g)) {
      const a = attributes(action[1]!);
      if (a.ext && a.name && a.urlsrc)
        out.push({ ext: a.ext.toLowerCase(), name: a.name, urlsrc: a.urlsrc, app: appName });
    }
  }
  return out;
}

/** `<proof-key modulus exponent oldmodulus oldexponent …/>`, as keys; null when absent. */
export function parseProofKeys(xml: string): ProofKeys | null {
  const tag = /<proof-key\b([^>]*?)\/?>/.exec(xml);
  if (!tag) return null;
  const a = attributes(tag[1]!);
  const current = rsaKey(a.modulus, a.exponent);
  return current ? { current, old: rsaKey(a.oldmodulus, a.oldexponent) } : null;
}

export function indexActions(actions: readonly DiscoveryAction[]): Discovery['byExtension'] {
  const map = new Map<string, { view?: string; edit?: string }>();
  for (const a of actions) {
    const entry = map.get(a.ext) ?? {};
    if (a.name === 'edit') entry.edit ??= a.urlsrc;
    else if (a.name === 'view') entry.view ??= a.urlsrc;
    map.set(a.ext, entry);
  }
  return map;
}

/**
 * Resolves the optional `<name=PLACEHOLDER&>` parts of an urlsrc: the language ones get the
 * configured language, the others are dropped. Answers a URL ready for more query parameters.
 */
export function fillUrlsrc(urlsrc: string, lang: string): string {
  const filled = urlsrc.replace(/<([^=<>]+)=([^&<>]+)&?>/g, (_m, name: string, value: string) =>
    /^(UI_LLCC|DC_LLCC|UI_LLCC_LIST)$/.test(value) ? `${name}=${encodeURIComponent(lang)}&` : '',
  );
  if (!filled.includes('?')) return `${filled}?`;
  return /[?&]$/.test(filled) ? filled : `${filled}&`;
}

export interface DiscoveryClient {
  get(): Promise<Discovery>;
  /** Fetches again unless the cached document is younger than a minute (proof keys rotate). */
  refresh(): Promise<Discovery>;
  /** The cached discovery, if one was fetched (feature reports must not wait for the network). */
  cached(): Discovery | null;
}

export function createDiscoveryClient(
  url: string,
  fetchImpl: typeof fetch = fetch,
  now: () => number = Date.now,
): DiscoveryClient {
  let cache: Discovery | null = null;
  let inFlight: Promise<Discovery> | null = null;

  async function load(): Promise<Discovery> {
    let text: string;
    try {
      const res = await fetchImpl(url, { signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'follow' });
      if (!res.ok) throw new Error(`answered ${res.status}`);
      if (Number(res.headers.get('content-length') ?? 0) > MAX_BYTES) throw new Error('discovery document too large');
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        size += chunk.length;
        if (size > MAX_BYTES) throw new Error('discovery document too large');
        chunks.push(Buffer.from(chunk));
      }
      text = Buffer.concat(chunks).toString('utf8');
    } catch (err) {
      throw new AppError(
        'OFFICE_DISCOVERY_UNREACHABLE',
        `The office editing server could not be reached for its discovery document (${(err as Error).message}).`,
      );
    }
    const byExtension = indexActions(parseDiscovery(text));
    if (byExtension.size === 0)
      throw new AppError(
        'OFFICE_DISCOVERY_INVALID',
        'The office editing server answered a discovery document without any action.',
      );
    cache = { byExtension, proofKeys: parseProofKeys(text), fetchedAt: now() };
    return cache;
  }
  const fetchOnce = () =>
    (inFlight ??= load().finally(() => {
      inFlight = null;
    }));

  return {
    async get() {
      if (cache && now() - cache.fetchedAt < CACHE_MS) return cache;
      return fetchOnce();
    },
    async refresh() {
      if (cache && now() - cache.fetchedAt < REFRESH_MIN_MS) return cache;
      return fetchOnce();
    },
    cached: () => cache,
  };
}

import path from 'node:path';
// Typed readers for environment variables. Each reader knows its variable's name, its
// documented default and how to parse it, so the README table can be checked against the
// code (test/unit/config-readme.test.ts) and a bad value stops startup with one clear line.

export class ConfigError extends Error {}

export type Env = Record<string, string | undefined>;

export interface Variable<T> {
  readonly name: string;
  /** Default as written in the README table ("" when unset means "not set"). */
  readonly defaultText: string;
  readonly doc: string;
  read(env: Env, ctx: DefaultsContext): T;
}

/** Values the platform defaults depend on (per-user data/cache folders). */
export interface DefaultsContext {
  readonly dataDir: string;
  readonly cacheDir: string;
}

type Fallback<T> = T | ((ctx: DefaultsContext, env: Env) => T);

function fallback<T>(value: Fallback<T>, ctx: DefaultsContext, env: Env): T {
  return typeof value === 'function' ? (value as (c: DefaultsContext, e: Env) => T)(ctx, env) : value;
}

function raw(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function fail(name: string, value: string, accepts: string): never {
  throw new ConfigError(`${name}=${JSON.stringify(value)} is not valid: it accepts ${accepts}.`);
}

function variable<T>(
  name: string,
  defaultText: string,
  doc: string,
  parse: (value: string | undefined, ctx: DefaultsContext, env: Env) => T,
): Variable<T> {
  return { name, defaultText, doc, read: (env, ctx) => parse(raw(env, name), ctx, env) };
}

export function str(name: string, def: Fallback<string>, defaultText: string, doc: string): Variable<string> {
  return variable(name, defaultText, doc, (v, ctx, env) => v ?? fallback(def, ctx, env));
}

/** A folder; relative values are taken from the working directory. */
export function dir(name: string, def: Fallback<string>, defaultText: string, doc: string): Variable<string> {
  return variable(name, defaultText, doc, (v, ctx, env) => path.resolve(v ?? fallback(def, ctx, env)));
}

export function optionalStr(name: string, doc: string): Variable<string | null> {
  return variable(name, '', doc, (v) => v ?? null);
}

export function url(name: string, doc: string, defaultText = ''): Variable<string | null> {
  return variable(name, defaultText, doc, (v) => {
    if (v === undefined) return null;
    try {
      const parsed = new URL(v);
      if (!/^https?:$/.test(parsed.protocol)) fail(name, v, 'an http:// or https:// address');
      return v.replace(/\/+$/, '');
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      fail(name, v, 'an absolute http:// or https:// address');
    }
  });
}

export function int(name: string, def: number, doc: string, min = 0, max = Number.MAX_SAFE_INTEGER): Variable<number> {
  return variable(name, String(def), doc, (v) => {
    if (v === undefined) return def;
    if (!/^-?\d+$/.test(v)) fail(name, v, `a whole number from ${min} to ${max}`);
    const n = Number(v);
    if (n < min || n > max) fail(name, v, `a whole number from ${min} to ${max}`);
    return n;
  });
}

/** An integer whose default is another variable's value (e.g. subtree batch = reconcile batch). */
export function intOr(
  name: string,
  defaultText: string,
  doc: string,
  def: (env: Env) => number,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): Variable<number> {
  const inner = int(name, 0, doc, min, max);
  return variable(name, defaultText, doc, (v, ctx, env) => (v === undefined ? def(env) : inner.read(env, ctx)));
}

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);

export function bool(name: string, def: boolean, doc: string): Variable<boolean> {
  return variable(name, String(def), doc, (v) => {
    if (v === undefined) return def;
    const lower = v.toLowerCase();
    if (TRUE.has(lower)) return true;
    if (FALSE.has(lower)) return false;
    fail(name, v, 'true or false (also 1/0, yes/no, on/off)');
  });
}

export function oneOf<const T extends string>(name: string, values: readonly T[], def: T, doc: string): Variable<T> {
  return variable(name, def, doc, (v) => {
    if (v === undefined) return def;
    const lower = v.toLowerCase() as T;
    if (!values.includes(lower)) fail(name, v, values.join(', '));
    return lower;
  });
}

const UNITS: Record<string, number> = { '': 1, B: 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 };

/** Parses sizes such as `512M`, `64GB`, `1.5GiB`, `1048576` (units are powers of 1024). */
export function parseSize(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*([KMGT]?)(?:I?B)?$/i.exec(text.trim());
  if (!m) return null;
  const unit = UNITS[m[2]!.toUpperCase()]!;
  const value = Math.floor(Number(m[1]) * unit);
  return Number.isSafeInteger(value) ? value : null;
}

export function size(name: string, def: number, defaultText: string, doc: string): Variable<number> {
  return variable(name, defaultText, doc, (v) => {
    if (v === undefined) return def;
    const n = parseSize(v);
    if (n === null) fail(name, v, 'a size in bytes, optionally with a unit: 512K, 512M, 64G, 64GB, 1T');
    return n;
  });
}

/** Comma, space or newline separated list. */
export function list(
  name: string,
  def: readonly string[],
  defaultText: string,
  doc: string,
  separators = /[\s,]+/,
): Variable<readonly string[]> {
  return variable(name, defaultText, doc, (v) =>
    v === undefined
      ? def
      : v
          .split(separators)
          .map((s) => s.trim())
          .filter(Boolean),
  );
}

export function custom<T>(
  name: string,
  defaultText: string,
  doc: string,
  parse: (value: string | undefined, ctx: DefaultsContext, env: Env) => T,
): Variable<T> {
  return variable(name, defaultText, doc, parse);
}

export { fail as failVariable };

/** One entry of a directory's group map: the directory's group name (or DN) → a Burrow group. */
export interface GroupMapEntry {
  readonly from: string;
  readonly to: string;
}

/**
 * `directory group=Burrow group` pairs separated by `;` or new lines (names may hold spaces and
 * commas; a DN's commas too). The directory's side is matched case-insensitively.
 */
export function groupMap(name: string, doc: string): Variable<readonly GroupMapEntry[]> {
  return variable(name, '', doc, (v) => {
    if (v === undefined) return [];
    const out: GroupMapEntry[] = [];
    for (const part of v.split(/[;\n]+/)) {
      if (!part.trim()) continue;
      const at = part.lastIndexOf('=');
      const from = at > 0 ? part.slice(0, at).trim() : '';
      const to = at > 0 ? part.slice(at + 1).trim() : '';
      if (!from || !to)
        fail(name, part.trim(), 'pairs such as `staff=Staff; cn=parents,ou=groups,dc=example,dc=org=Family`');
      out.push({ from, to });
    }
    return out;
  });
}

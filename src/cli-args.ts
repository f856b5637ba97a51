// The command line of `burrow`, read the same way by main.ts and by the walker's early start
// (indexer/early.ts), which must tell a server start from the other modes before main runs.
import { parseArgs } from 'node:util';

const OPTIONS = {
  port: { type: 'string', short: 'p' },
  host: { type: 'string' },
  config: { type: 'string', short: 'c' },
  cache: { type: 'string' },
  volumes: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
  licenses: { type: 'boolean' },
  'self-check': { type: 'boolean' },
  'check-addons': { type: 'boolean' },
  json: { type: 'boolean' },
  'no-open': { type: 'boolean' },
  'log-file': { type: 'string' },
  /** Internal: this process draws thumbnails for the server (previews/picture-child.ts); the value is CACHE_DIR. */
  'picture-child': { type: 'string' },
} as const;

export interface CommandLine {
  /** `burrow service …` (its own arguments, read by service/cli.ts). */
  service: boolean;
  /** `burrow db …` (its own arguments, read by db/cli.ts). */
  db: boolean;
  doctor: boolean;
  /** `--help all` (or `burrow help all`): every environment variable, not only the short help. */
  helpAll: boolean;
  values: ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>['values'];
}

/** Throws parseArgs' error on an unknown or malformed option, and on a word it does not know. */
export function readCommandLine(argv: readonly string[]): CommandLine {
  if (argv[0] === 'service') return { service: true, db: false, doctor: false, helpAll: false, values: {} };
  if (argv[0] === 'db') return { service: false, db: true, doctor: false, helpAll: false, values: {} };
  const doctor = argv[0] === 'doctor';
  // `burrow help [all]` is `burrow --help [all]`.
  const args = doctor ? argv.slice(1) : argv[0] === 'help' ? ['--help', ...argv.slice(1)] : [...argv];
  const { values, positionals } = parseArgs({ args, options: OPTIONS, allowPositionals: true });
  const helpAll = Boolean(values.help) && positionals.length === 1 && positionals[0]!.toLowerCase() === 'all';
  if (positionals.length && !helpAll) throw new TypeError(`Unexpected argument '${positionals[0]}'`);
  return { service: false, db: false, doctor, helpAll, values };
}

/** Whether the command line starts the server (not the doctor, a service command, help, version, licences or a check). */
export function startsServer(line: CommandLine): boolean {
  const v = line.values;
  return (
    !line.service &&
    !line.db &&
    !line.doctor &&
    !v.help &&
    !v.version &&
    !v.licenses &&
    !v['self-check'] &&
    !v['check-addons'] &&
    v['picture-child'] === undefined
  );
}

/** The environment the server reads: the options that set variables applied over `env`. */
export function serverEnv(line: CommandLine, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const v = line.values;
  const out = { ...env };
  if (v.port !== undefined) out.PORT = v.port;
  if (v.host !== undefined) out.HOST = v.host;
  if (v.config !== undefined) out.CONFIG_DIR = v.config;
  if (v.volumes !== undefined) out.VOLUME_ROOT = v.volumes;
  if (v.cache !== undefined) out.CACHE_DIR = v.cache;
  return out;
}

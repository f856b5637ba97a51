// `burrow db copy [--to URL] [--config DIR]`: the embedded database's data into an empty
// PostgreSQL database (copy.ts). The target is --to, else DATABASE_URL.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.ts';
import { AppError } from '../core/errors.ts';
import { VERSION } from '../version.ts';
import { CopyError, copyToPostgres } from './copy.ts';
import { InstanceLockError } from './instance-lock.ts';
import { MigrationError } from './migrations.ts';
import { isPostgresUrl, PostgresError, redactUrl } from './postgres.ts';

const USAGE = `Usage: burrow db copy [--to postgres://user:password@host:5432/database] [--config DIR]

  Copies this installation's data from its embedded database (CONFIG_DIR/burrow.db) into an
  empty PostgreSQL database: every store's table in one transaction, each table's rows counted
  on both sides before it commits. burrow.db is only read. Stop Burrow first.

  --to URL          the PostgreSQL database (default: DATABASE_URL)
  -c, --config DIR  the installation's CONFIG_DIR

  Then start Burrow with DATABASE_URL set to it. The search index is rebuilt from the volumes;
  keep CONFIG_DIR/keys beside every instance (share links' addresses and second factors are
  sealed with them).
`;

export async function dbCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  out: (s: string) => void = (s) => process.stdout.write(s),
  err: (s: string) => void = (s) => process.stderr.write(s),
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        to: { type: 'string' },
        config: { type: 'string', short: 'c' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    err(`burrow db: ${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values: v, positionals } = parsed;
  if (v.help) {
    out(USAGE);
    return 0;
  }
  if (positionals[0] !== 'copy' || positionals.length > 1) {
    err(`burrow db: ${positionals.length ? `unknown command ${positionals.join(' ')}` : 'which command?'}\n${USAGE}`);
    return 2;
  }
  const withConfig = v.config !== undefined ? { ...env, CONFIG_DIR: v.config } : env;
  const url = (v.to ?? withConfig.DATABASE_URL ?? '').trim();
  if (!isPostgresUrl(url)) {
    err(
      `burrow db copy: name the PostgreSQL database with --to or DATABASE_URL (postgres://user:password@host:5432/database)\n`,
    );
    return 2;
  }
  let configDir: string;
  try {
    // DATABASE_URL is the target here, not where this configuration keeps its data.
    configDir = loadConfig({ ...withConfig, DATABASE_URL: '' }).storage.configDir;
  } catch (e) {
    err(`burrow db copy: ${(e as Error).message}\n`);
    return 2;
  }
  out(`Copying ${configDir}/burrow.db into ${redactUrl(url)} …\n`);
  try {
    const result = copyToPostgres({ configDir, url, release: VERSION, say: (line) => out(`${line}\n`) });
    const width = Math.max(...result.tables.map((t) => t.table.length));
    for (const t of result.tables) out(`  ${t.table.padEnd(width)}  ${t.rows}\n`);
    out(
      `Copied ${result.rows} row(s) in ${result.tables.length} tables; the row counts match. ${result.source} was not changed.\n` +
        `Start Burrow with DATABASE_URL=${result.target} (and this CONFIG_DIR's keys folder); the search index is rebuilt from the volumes.\n`,
    );
    return 0;
  } catch (e) {
    const reason =
      e instanceof CopyError ||
      e instanceof InstanceLockError ||
      e instanceof MigrationError ||
      e instanceof ConfigError
        ? e.message
        : e instanceof PostgresError
          ? `PostgreSQL refused it (${e.message}); the transaction was rolled back, nothing was changed`
          : e instanceof AppError && e.code === 'DATABASE_UNAVAILABLE'
            ? `${redactUrl(url)} cannot be reached (${(e.cause as Error | undefined)?.message ?? 'no answer'}); nothing was changed`
            : null;
    if (reason === null) throw e;
    err(`burrow db copy: ${reason}\n`);
    return 1;
  }
}

// What `burrow doctor` says of DATABASE_URL's PostgreSQL: whether it answers, its version
// against the oldest Burrow runs on, and this release's migrations applied or pending (or a
// newer Burrow's found). Asked with node-postgres directly, one short connection, read only.
import { loadMigrations } from './migrations.ts';
import { redactUrl } from './postgres.ts';

/**
 * The oldest PostgreSQL Burrow runs on: the migrations make NOCASE a nondeterministic ICU
 * collation (PostgreSQL 12) and identity columns (10).
 */
export const MIN_POSTGRES = 12;

export interface DatabaseCheck {
  name: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
}

export async function postgresChecks(url: string, timeoutMs = 5000): Promise<DatabaseCheck[]> {
  const where = redactUrl(url);
  // Loaded when doctor asks (issue 33: not on a server's heap that runs on SQLite).
  const { default: pg } = await import('pg');
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: timeoutMs,
    application_name: 'burrow doctor',
  });
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (err) {
    const e = err as Error & { code?: string };
    return [
      {
        name: 'database',
        status: 'fail',
        detail: `PostgreSQL at ${where} cannot be reached (${e.code ? `${e.code}: ` : ''}${e.message}): start it, or correct DATABASE_URL; Burrow answers 503 DATABASE_UNAVAILABLE until it can`,
      },
    ];
  }
  try {
    const checks: DatabaseCheck[] = [];
    const { version, num } = (
      await client.query<{ version: string; num: string }>(
        "SELECT current_setting('server_version') AS version, current_setting('server_version_num') AS num",
      )
    ).rows[0]!;
    const major = Math.floor(Number(num) / 10000);
    checks.push({ name: 'database', status: 'ok', detail: `PostgreSQL at ${where} answers` });
    checks.push(
      major >= MIN_POSTGRES
        ? { name: 'PostgreSQL', status: 'ok', detail: `version ${version} (${MIN_POSTGRES} or newer is needed)` }
        : {
            name: 'PostgreSQL',
            status: 'fail',
            detail: `version ${version} is too old: Burrow needs PostgreSQL ${MIN_POSTGRES} or newer`,
          },
    );
    const hasTable = (
      await client.query<{ name: string | null }>("SELECT to_regclass('schema_migrations')::text AS name")
    ).rows[0]!.name;
    const applied = hasTable
      ? (await client.query<{ id: string }>('SELECT id FROM schema_migrations')).rows.map((r) => r.id)
      : [];
    const known = loadMigrations().map((m) => m.id);
    const unknown = applied.filter((id) => !known.includes(id)).sort();
    const pending = known.filter((id) => !applied.includes(id)).length;
    checks.push(
      unknown.length
        ? {
            name: 'migrations',
            status: 'fail',
            detail: `the database was written by a newer Burrow (${unknown.slice(0, 3).join(', ')}${unknown.length > 3 ? ', …' : ''}): this release will not start on it`,
          }
        : !applied.length
          ? {
              name: 'migrations',
              status: 'ok',
              detail: `none applied yet: an empty database, its ${known.length} migrations run at the first start (or fill it with burrow db copy)`,
            }
          : pending
            ? {
                name: 'migrations',
                status: 'ok',
                detail: `${applied.length} applied, ${pending} pending: they run at the next start, once, by whichever instance starts first`,
              }
            : { name: 'migrations', status: 'ok', detail: `all ${applied.length} applied` },
    );
    return checks;
  } catch (err) {
    return [{ name: 'database', status: 'fail', detail: `PostgreSQL at ${where}: ${(err as Error).message}` }];
  } finally {
    await client.end().catch(() => undefined);
  }
}

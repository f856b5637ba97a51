// `burrow --help`: what a person needs to start — how to run it, the options, where the data
// lives, the doctor and the service — on one screen. `burrow --help all` adds every environment
// variable with its default (the README's Configuration table).
import { allVariables, loadConfig, platformDefaults } from './config.ts';
import { VERSION } from './version.ts';

/** The variables worth knowing on a first start, each with a line of why. */
const COMMON: [string, string][] = [
  ['PUBLIC_URL', 'the address people use (https://files.example.org): share links, passkeys, Secure cookies'],
  ['TRUST_PROXY', 'behind a reverse proxy: which peers may say who the visitor is'],
  ['AUTH_MODE', 'local, oidc, both (default) or disabled'],
  ['OIDC_ENABLED', 'sign in through your identity provider (with OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET)'],
  ['USER_DIR_ENABLED', 'a personal folder for every account'],
  ['UPLOAD_CHUNKED_ENABLED', 'resumable uploads'],
];

/** Where the data lives for this environment (the platform's folders when a variable is malformed). */
function dataFolders(env: NodeJS.ProcessEnv): { volumes: string; config: string; cache: string } {
  try {
    const { storage } = loadConfig(env);
    return { volumes: storage.volumeRoot, config: storage.configDir, cache: storage.cacheDir };
  } catch {
    const d = platformDefaults(env);
    return { volumes: `${d.dataDir}/volumes`, config: `${d.dataDir}/config`, cache: d.cacheDir };
  }
}

export function helpText(env: NodeJS.ProcessEnv, all: boolean): string {
  const where = dataFolders(env);
  const count = allVariables().length;
  const lines = [
    `Burrow ${VERSION}: a self-hosted web file manager.`,
    '',
    'Usage:',
    '  burrow [options]            start Burrow; open the address it prints (on a desktop the',
    '                              browser opens by itself at the first start)',
    '  burrow doctor [--json]      check this computer: data folders, port, add-ons, database',
    '  burrow service install      run Burrow at boot (also uninstall, status; burrow service --help)',
    "  burrow db copy --to URL     move this installation's data into an empty PostgreSQL database",
    '',
    'Options:',
    '  -p, --port N                port to listen on (PORT, default 3000)',
    '      --host ADDRESS          address to listen on (HOST, default 0.0.0.0: every device on the',
    '                              network; 127.0.0.1: this computer only)',
    '      --volumes DIR           folder whose folders are the volumes (VOLUME_ROOT)',
    '  -c, --config DIR            database, settings and secrets (CONFIG_DIR)',
    '      --cache DIR             thumbnails and other disposable files (CACHE_DIR)',
    '      --no-open               do not open the browser',
    '      --log-file FILE         append the log to FILE',
    '  -v, --version               print the version',
    '      --licenses              print the licences of the software inside (also at /licenses.txt)',
    `  -h, --help [all]            this help; with "all", every environment variable (${count})`,
    '',
    'Where the data lives:',
    `  Volumes                     ${where.volumes}`,
    `  Database and settings       ${where.config}`,
    `  Cache                       ${where.cache}`,
    '  Other folders of this computer are added in Administration → Volumes.',
    '',
    'Settings are environment variables; the common ones:',
    ...COMMON.map(([name, why]) => `  ${name.padEnd(26)}  ${why}`),
    '  Folder sizes, the terminal and the activity log are switched in Administration → Installation.',
  ];
  if (!all) {
    lines.push(`  burrow --help all lists all ${count} variables with their defaults.`, '');
    return lines.join('\n');
  }
  lines.push('', `All ${count} variables [default]:`);
  for (const v of allVariables())
    lines.push(`  ${v.name.padEnd(38)} ${v.defaultText ? `[${v.defaultText}] ` : ''}${v.doc}`);
  lines.push('');
  return lines.join('\n');
}

// The shell's environment: Burrow's own, minus every secret Burrow was started with. An
// administrator may of course read files the service account can read, but the signing keys
// of sessions and office tokens should not sit in `env` of every terminal (and its history,
// core dumps, child processes that log their environment).

const SECRET_NAMES = new Set(['SESSION_SECRET', 'AUTH_ADMIN_PASSWORD']);
const SECRET_PREFIXES = ['OIDC_', 'OFFICEEDITOR_', 'ONLYOFFICE_', 'COLLABORA_'];
const SECRET_SUFFIXES = [
  '_SECRET',
  '_TOKEN',
  '_PASSWORD',
  '_PASSWD',
  '_PASS',
  '_KEY',
  '_CREDENTIALS',
  '_SECRET_FILE',
  '_PASSWORD_FILE',
];

export function isSecretVariable(name: string): boolean {
  const upper = name.toUpperCase();
  if (SECRET_NAMES.has(upper)) return true;
  if (SECRET_PREFIXES.some((p) => upper.startsWith(p))) return true;
  return SECRET_SUFFIXES.some((s) => upper.endsWith(s));
}

/** The environment for a terminal's shell: `base` without secrets, plus what a terminal needs. */
export function terminalEnvironment(
  base: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined || isSecretVariable(name)) continue;
    out[name] = value;
  }
  if (platform !== 'win32') {
    out.TERM = 'xterm-256color';
    out.COLORTERM = 'truecolor';
    out.LANG ??= 'C.UTF-8';
  }
  out.BURROW_TERMINAL = '1';
  return out;
}

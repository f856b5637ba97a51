// The announced name as the address Burrow gives out — the banner, `burrow doctor`, links made at
// localhost or at a numeric address — while PUBLIC_URL names none: https://burrow.local:3443 (or
// http:// and the HTTP port with HTTPS off). The running server keeps it in CONFIG_DIR/announced
// (one line, written when announced, removed when withdrawn) for `burrow doctor`, another process.
import fs from 'node:fs';
import path from 'node:path';

export const ANNOUNCED_FILE = 'announced';

/** `https://<name>:<https port>`, else `http://<name>:<http port>`, else null. */
export function announcedOrigin(name: string | null, httpsPort: number | null, httpPort: number | null): string | null {
  if (!name) return null;
  if (httpsPort) return `https://${name}:${httpsPort}`;
  return httpPort ? `http://${name}:${httpPort}` : null;
}

export function recordAnnounced(configDir: string, origin: string | null): void {
  const file = path.join(configDir, ANNOUNCED_FILE);
  if (origin === null) {
    fs.rmSync(file, { force: true });
    return;
  }
  const temp = `${file}.${process.pid}`;
  fs.writeFileSync(temp, `${origin}\n`);
  fs.renameSync(temp, file);
}

/** What the running server announced, or null (none, or no server). */
export function readAnnounced(configDir: string): string | null {
  try {
    const origin = fs.readFileSync(path.join(configDir, ANNOUNCED_FILE), 'utf8').trim();
    return /^https?:\/\/[a-z0-9.-]+\.local:\d+$/i.test(origin) ? origin : null;
  } catch {
    return null;
  }
}

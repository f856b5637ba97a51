// The secrets an installation signs and seals with. Embedded (SQLite): files in CONFIG_DIR as
// before (session-secret, keys/*). On PostgreSQL every instance must sign and seal alike, so
// each secret is generated once into the database (cluster_secrets) — the first instance's own
// files when it has them, so an installation copied to PostgreSQL keeps its sessions, second
// factors and links — sealed under the cluster key (CLUSTER_KEY, or CONFIG_DIR/keys/cluster-key),
// which is never in the database: a copy of the database still opens nothing.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Database } from '../db/database.ts';
import { loadOrCreateSecret } from '../db/instance-lock.ts';
import { KEYS_DIR, SecretBox } from '../db/secret-box.ts';
import { createSecretStore } from './store.ts';

export interface InstallationSecrets {
  /** The session signing secret (SESSION_SECRET when given). */
  readonly sessionSecret: string;
  /** The seal box kept under `name` (totp-key, link-key, notify-key). */
  box(name: string): SecretBox;
}

export class ClusterKeyError extends Error {}

export interface SecretsOptions {
  readonly db: Database;
  readonly configDir: string;
  readonly sessionSecret: string | null;
  readonly clusterKey: string | null;
}

/** A value the instance already keeps in a file (not made when missing). */
function existing(file: string): string | null {
  try {
    const text = fs.readFileSync(file, 'utf8').trim();
    return text || null;
  } catch {
    return null;
  }
}

function boxOf(text: string, name: string): SecretBox {
  const key = Buffer.from(text, 'base64url');
  if (key.length !== 32)
    throw new Error(`${name} is not a 32-byte key; remove it only if no second factor or link needs it`);
  return new SecretBox(key);
}

export function openSecrets(options: SecretsOptions): InstallationSecrets {
  const { db, configDir } = options;
  if (db.dialect === 'sqlite') {
    return {
      sessionSecret: loadOrCreateSecret(configDir, 'session-secret', options.sessionSecret),
      box: (name) => SecretBox.fromConfigDir(configDir, name),
    };
  }
  const keys = path.join(configDir, KEYS_DIR);
  fs.mkdirSync(keys, { recursive: true, mode: 0o700 });
  const clusterText = loadOrCreateSecret(keys, 'cluster-key', options.clusterKey);
  const wrap = new SecretBox(createHash('sha256').update(clusterText, 'utf8').digest());
  const store = createSecretStore(db);

  function shared(name: string, local: () => string | null): string {
    const context = `cluster-secret:${name}`;
    const sealed =
      store.get(name) ??
      store.claim(name, wrap.seal(local() ?? randomBytes(32).toString('base64url'), context), new Date().toISOString());
    try {
      return wrap.open(sealed, context);
    } catch {
      throw new ClusterKeyError(
        `the secrets in the database were sealed under another cluster key: give every instance the same CLUSTER_KEY, or copy CONFIG_DIR/${KEYS_DIR}/cluster-key from the instance that started first`,
      );
    }
  }

  const boxes = new Map<string, SecretBox>();
  return {
    sessionSecret:
      options.sessionSecret ?? shared('session-secret', () => existing(path.join(configDir, 'session-secret'))),
    box(name) {
      let box = boxes.get(name);
      if (!box) {
        const text = shared(name, () => existing(path.join(keys, name)) ?? existing(path.join(configDir, name)));
        box = boxOf(text, name);
        boxes.set(name, box);
      }
      return box;
    },
  };
}

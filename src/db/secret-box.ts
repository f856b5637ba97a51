// Secrets that must be read back (TOTP seeds, link tokens for their owner) are sealed with
// AES-256-GCM under a key that lives in CONFIG_DIR/keys (mode 0700), not in the database nor in
// CONFIG_DIR/backups: a copy of the database or of its backups reveals no seed and opens no link.
// What to back up (README): the database (or a snapshot in backups/) and, kept apart, keys/.
// The context (an account id, a share id) is the associated data, so a sealed value moved to
// another row fails.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { loadOrCreateSecret } from './instance-lock.ts';

/** The folder of CONFIG_DIR that holds the sealing keys. */
export const KEYS_DIR = 'keys';

const VERSION = 'v1';

export class SecretBox {
  private readonly key: Buffer;
  private readonly macKey: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('the sealing key must be 32 bytes');
    // One key file, two independent keys: sealing and hashing never share key material.
    this.key = Buffer.from(hkdfSync('sha256', key, '', 'burrow secret-box seal', 32));
    this.macKey = Buffer.from(hkdfSync('sha256', key, '', 'burrow secret-box mac', 32));
  }

  /**
   * The key file `name` in CONFIG_DIR/keys, made (mode 0600) on first use. A key an earlier
   * release kept beside the database is moved there (a rename: the same key, nothing re-sealed).
   */
  static fromConfigDir(configDir: string, name: string): SecretBox {
    const dir = path.join(configDir, KEYS_DIR);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const old = path.join(configDir, name);
    if (fs.existsSync(old) && !fs.existsSync(path.join(dir, name))) fs.renameSync(old, path.join(dir, name));
    const text = loadOrCreateSecret(dir, name, null);
    const key = Buffer.from(text, 'base64url');
    if (key.length !== 32)
      throw new Error(
        `${name} in CONFIG_DIR/keys is not a 32-byte key; remove it only if no second factor or link needs it`,
      );
    return new SecretBox(key);
  }

  seal(plain: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [
      VERSION,
      iv.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
      body.toString('base64url'),
    ].join('.');
  }

  /** Throws when the value was altered, sealed for another context or under another key. */
  open(sealed: string, context: string): string {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || body === undefined) throw new Error('not a sealed value');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }

  /** A keyed hash (for values only ever compared, such as recovery codes). */
  mac(value: string): string {
    return createHmac('sha256', this.macKey).update(value).digest('hex');
  }
}

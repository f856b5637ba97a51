// Secrets that must be read back (TOTP seeds) are sealed with AES-256-GCM under a key that
// lives in CONFIG_DIR, not in the database: a copy of the database alone reveals no seed.
// The account id is the associated data, so a sealed value moved to another account fails.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { loadOrCreateSecret } from '../db/instance-lock.ts';

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

  /** The key file `name` in CONFIG_DIR, made (mode 0600) on first use. */
  static fromConfigDir(configDir: string, name: string): SecretBox {
    const text = loadOrCreateSecret(configDir, name, null);
    const key = Buffer.from(text, 'base64url');
    if (key.length !== 32)
      throw new Error(`${name} in the config folder is not a 32-byte key; remove it only if no second factor needs it`);
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

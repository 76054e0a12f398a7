import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** A secret set in the environment, or one generated on first start and kept in DATA_DIR so restarts keep it. */
export function readOrCreateSecret(dataDir: string, name: string, fromEnv: string | undefined): string {
  if (fromEnv) return fromEnv;
  const file = path.join(dataDir, name);
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    fs.mkdirSync(dataDir, { recursive: true });
    const secret = crypto.randomBytes(48).toString('base64url');
    // 'wx' fails if another process wrote it first; then read theirs.
    try {
      fs.writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
      return secret;
    } catch {
      return fs.readFileSync(file, 'utf8').trim();
    }
  }
}

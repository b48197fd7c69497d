import { createHash, randomBytes } from 'node:crypto';

/** A new API key: `bp_live_` + 32 random bytes in base64url. Only its sha256 is ever stored. */
export function newApiKey(): { key: string; hash: string; prefix: string } {
  const key = `bp_live_${randomBytes(32).toString('base64url')}`;
  return { key, hash: hashKey(key), prefix: key.slice(0, 12) };
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

import { createHash } from 'node:crypto';

/** Escaped parts longer than this are hashed, so a hostile megabyte-long id cannot make a megabyte-long key. */
const MAX_ESCAPED_LENGTH = 128;
const SAFE_CHARACTER = /^[A-Za-z0-9_.-]$/;

/**
 * Turns any string into a key segment that contains no `:` and never equals the segment of a
 * different string. Each UTF-16 code unit outside `[A-Za-z0-9_.-]` becomes `%` plus four hex
 * digits: a fixed width makes the escaping injective, and working on code units (not UTF-8)
 * keeps lone surrogates distinct instead of collapsing them all into U+FFFD. Long results are
 * replaced by a SHA-256 of the code units; the `=` / `#` marker keeps the two forms apart
 * (neither character survives escaping).
 */
export function encodeKeyPart(value: string): string {
  let escaped = '=';
  for (let index = 0; index < value.length; index += 1) {
    const char = value.charAt(index);
    escaped += SAFE_CHARACTER.test(char) ? char : `%${value.charCodeAt(index).toString(16).padStart(4, '0')}`;
    if (escaped.length > MAX_ESCAPED_LENGTH) {
      return `#${createHash('sha256').update(Buffer.from(value, 'utf16le')).digest('base64url')}`;
    }
  }
  return escaped;
}

/** The Redis key names of one store: `<prefix><kind>:<encoded name>`. */
export interface RedisKeys {
  group(groupKey: string): string;
  lock(name: string): string;
  hit(key: string): string;
  budget(key: string): string;
}

/** A non-string from plain JavaScript would escape to the same `=` as the empty string. */
const part = (what: string, value: string) => {
  if (typeof value !== 'string') throw new TypeError(`${what} must be a string`);
  return encodeKeyPart(value);
};

export function redisKeys(prefix: string): RedisKeys {
  return {
    group: (groupKey) => `${prefix}group:${part('groupKey', groupKey)}`,
    lock: (name) => `${prefix}lock:${part('lock name', name)}`,
    hit: (key) => `${prefix}hit:${part('hit key', key)}`,
    budget: (key) => `${prefix}budget:${part('budget key', key)}`,
  };
}

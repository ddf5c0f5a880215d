import { sha256 as sha256Bytes } from '@noble/hashes/sha2.js';
import { createNoMetrics } from '../observability/no-metrics.js';

/** Runtimes without Node's modules (Workers, the Next.js edge runtime). See `types.ts`. */
const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '');

/** SHA-256 in JavaScript (@noble/hashes): the same digest as node:crypto's, for the same UTF-8. */
export const sha256 = (text: string, encoding: 'hex' | 'base64url'): string => {
  const digest = sha256Bytes(new TextEncoder().encode(text));
  return encoding === 'hex' ? hex(digest) : base64url(digest);
};
export const defaultMetrics = createNoMetrics;

const needsNode =
  (what: string, instead: string) =>
  (..._args: unknown[]): never => {
    throw new TypeError(`${what} needs Node.js, which this runtime is not; ${instead}`);
  };
export const createBffMetrics = needsNode('createBffMetrics (prom-client)', 'leave `metrics` out: the BFF then keeps none here, and its logs are the record');
export const createBffNodeListener = needsNode('createBffNodeListener (node:http)', 'hand `app.fetch` to the runtime instead');

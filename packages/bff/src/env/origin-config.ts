import { commaList, httpUrl, show, type ConfigGet } from './values.js';

/*
 * Configuration step 1 of 5 (environment text -> options; ARCHITECTURE §2.1): the origin rule's keys.
 */

/**
 * The origin rule's keys (ARCHITECTURE §4, "Origin rule"): `EMBED_ALLOWED_ORIGINS`,
 * `EMBED_PUBLIC_ORIGIN` and `EMBED_TRUST_PROXY`, on every runtime.
 */
export interface OriginConfig {
  allowedOrigins: string[];
  /** The BFF's own origin as browsers reach it; unset = from the proxy's headers or the request URL. */
  publicOrigin: string | undefined;
  /** Take the public origin from `Forwarded` / `X-Forwarded-*`; only for a proxy that sets them. */
  trustProxy: boolean;
}

export const ORIGIN_CONFIG_KEYS = ['EMBED_ALLOWED_ORIGINS', 'EMBED_PUBLIC_ORIGIN', 'EMBED_TRUST_PROXY'] as const;
type OriginKey = (typeof ORIGIN_CONFIG_KEYS)[number];

const isOrigin = (value: string): boolean => httpUrl(value)?.origin === value;

const BOOLEANS: Readonly<Record<string, boolean>> = { true: true, '1': true, false: false, '0': false };

/** Reads the three keys, adding one line per problem to `problems`. */
export function parseOriginConfig(get: ConfigGet<OriginKey>, problems: string[]): OriginConfig {
  const allowedOrigins = commaList(get('EMBED_ALLOWED_ORIGINS')) ?? [];
  for (const origin of allowedOrigins) {
    if (!isOrigin(origin)) problems.push(`EMBED_ALLOWED_ORIGINS: ${show(origin)} is not an origin like https://app.example.com`);
  }
  const publicOrigin = get('EMBED_PUBLIC_ORIGIN');
  if (publicOrigin !== undefined && !isOrigin(publicOrigin)) {
    problems.push(`EMBED_PUBLIC_ORIGIN must be the origin browsers reach this BFF at, like https://app.example.com (got ${show(publicOrigin)})`);
  }
  const trustText = get('EMBED_TRUST_PROXY') ?? 'false';
  const trustProxy = BOOLEANS[trustText.toLowerCase()];
  if (trustProxy === undefined) problems.push(`EMBED_TRUST_PROXY must be true or false (got ${show(trustText)})`);
  return { allowedOrigins, publicOrigin, trustProxy: trustProxy ?? false };
}

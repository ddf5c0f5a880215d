import { ENVIRONMENTS, UPSTREAM_APIS, type DataSourceMapping, type Environment, type UpstreamApiName } from '@embedded-dashboard/protocol';
import type { LogLevel } from '../observability/logger.js';
import { DEFAULT_CLAIM_NAMES, isDataSourceMapping } from '../session/claims.js';
import type { SessionOptions } from '../session/session-verifier.js';
import type { EmbedTokenOptions } from '../explo/embed-token/options.js';
import { EMBED_TOKEN_CONFIG_KEYS, parseDashboardIds, parseEmbedTokenConfig } from './embed-token-config.js';
import { ORIGIN_CONFIG_KEYS, parseOriginConfig, type OriginConfig } from './origin-config.js';
import { commaList, httpUrl, show, type ConfigGet } from './values.js';
import { parseSupersetConfig, SUPERSET_CONFIG_KEYS, SUPERSET_SECRET_KEYS, type SupersetConfig } from '../superset/config.js';
import { METABASE_CONFIG_KEYS, METABASE_SECRET_KEYS, parseMetabaseConfig, type MetabaseConfig } from '../metabase/config.js';

/*
 * Configuration step 1 of 5 (environment text -> options; ARCHITECTURE §2.1): the keys every runtime
 * shares, validated into a `BffConfig`.
 */

/**
 * The configuration every runtime shares (CLI, Cloudflare Worker, AWS Lambda), once validated:
 * the vendor, the sessions, the token policy, the origins, the limits. Where the BFF listens
 * and which store it uses are the runtime's own keys.
 */
export interface BffConfig extends OriginConfig {
  /** `EMBED_VENDOR`: whose dashboards (default `explo`). */
  vendor: EmbedVendorName;
  upstreamUrl: string;
  /** Which vendor API the client speaks (`EMBED_UPSTREAM_API`). */
  upstreamApi: UpstreamApiName;
  /** Explo's API token; empty with another vendor. */
  apiToken: string;
  /** With `EMBED_VENDOR=superset`: its keys, validated. */
  superset: SupersetConfig | undefined;
  /** With `EMBED_VENDOR=metabase`: its keys, validated. */
  metabase: MetabaseConfig | undefined;
  session: SessionOptions;
  tokenTtlSeconds: number;
  /** Seconds a synced group's token is served before the next request re-checks it with the vendor. */
  revalidateAfterSeconds: number;
  expectEnvironment: Environment | undefined;
  logLevel: LogLevel;
  /** `/token` requests per minute per session; 0 disables the limits. */
  rateLimitPerMinute: number;
  /** Vendor calls per minute for the vendor account across the fleet; 0 turns the budget off. */
  upstreamRatePerMinute: number;
  /** Vendor calls the budget admits at once; unset = 10 seconds' worth. */
  upstreamBurst: number | undefined;
  /** Prefix of every store key; unset = environment and vendor account fingerprint. */
  keyPrefix: string | undefined;
  /** Embed tokens (`EMBED_JWT_KEY_ID`, `EMBED_JWT_KEY`, `EMBED_DASHBOARDS`); unset = customer tokens. */
  embedToken: EmbedTokenOptions | undefined;
  /** `EMBED_DASHBOARDS` with Explo's customer tokens: the dashboards timings reports may name. */
  timingDashboards: string[] | undefined;
}

/**
 * `EMBED_UPSTREAM_RATE`'s default: below the vendor's documented 180 requests a minute
 * (https://docs.explo.co/security/rate-limits), with room for the bursts the budget allows.
 */
export const DEFAULT_UPSTREAM_RATE = 150;

/** The keys of {@link BffConfig}, read the same way on every runtime. */
export const BFF_CONFIG_KEYS = [
  'EMBED_VENDOR',
  'EMBED_UPSTREAM_URL',
  'EMBED_UPSTREAM_API',
  'EMBED_API_TOKEN',
  'EMBED_SESSION_SECRET',
  'EMBED_SESSION_JWKS_URL',
  'EMBED_SESSION_ISSUER',
  'EMBED_SESSION_AUDIENCE',
  'EMBED_SESSION_COOKIE',
  'EMBED_CLAIM_GROUP_ID',
  'EMBED_CLAIM_GROUP_NAME',
  'EMBED_CLAIM_PROPERTIES',
  'EMBED_CLAIM_MAPPING',
  'EMBED_MAPPING',
  'EMBED_TOKEN_TTL',
  'EMBED_REVALIDATE_AFTER',
  ...ORIGIN_CONFIG_KEYS,
  'EMBED_EXPECT_ENVIRONMENT',
  'EMBED_LOG_LEVEL',
  'EMBED_RATE_LIMIT',
  'EMBED_UPSTREAM_RATE',
  'EMBED_UPSTREAM_BURST',
  'EMBED_KEY_PREFIX',
  ...EMBED_TOKEN_CONFIG_KEYS,
  ...SUPERSET_CONFIG_KEYS,
  ...METABASE_CONFIG_KEYS,
] as const;
export type BffConfigKey = (typeof BFF_CONFIG_KEYS)[number];

/** Of {@link BFF_CONFIG_KEYS}, the secrets: refused with surrounding whitespace, never quoted back. */
export const BFF_SECRET_KEYS: readonly BffConfigKey[] = [
  'EMBED_API_TOKEN',
  'EMBED_SESSION_SECRET',
  'EMBED_JWT_KEY',
  ...SUPERSET_SECRET_KEYS,
  ...METABASE_SECRET_KEYS,
];

/** The vendors `EMBED_VENDOR` names. */
export const EMBED_VENDORS = ['explo', 'superset', 'metabase'] as const;
export type EmbedVendorName = (typeof EMBED_VENDORS)[number];

/** Keys that only Explo reads: with another vendor, setting one is a mistake worth a line. */
const EXPLO_ONLY_KEYS = [
  'EMBED_API_TOKEN',
  'EMBED_UPSTREAM_API',
  'EMBED_EXPECT_ENVIRONMENT',
  'EMBED_CLAIM_PROPERTIES',
  'EMBED_CLAIM_MAPPING',
  'EMBED_MAPPING',
  'EMBED_REVALIDATE_AFTER',
  'EMBED_JWT_KEY_ID',
  'EMBED_JWT_KEY',
  'EMBED_JWT_MINT',
  'EMBED_DISABLE_EDITABLE_SECTION_EDITING',
] as const satisfies readonly BffConfigKey[];

const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];
const COOKIE_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,128}$/;
const utf8Length = (text: string) => new TextEncoder().encode(text).byteLength;

/**
 * Validates the shared keys, adding one line per problem to `problems`, naming the key; secret
 * values are never quoted back. Returns the configuration when these keys had no problem.
 */
export function parseBffConfig(get: ConfigGet<BffConfigKey>, problems: string[]): BffConfig | undefined {
  const before = problems.length;
  const vendor = (get('EMBED_VENDOR') ?? 'explo') as EmbedVendorName;
  if (!EMBED_VENDORS.includes(vendor)) {
    problems.push(`EMBED_VENDOR must be ${EMBED_VENDORS.slice(0, -1).join(', ')} or ${EMBED_VENDORS.at(-1)!} (got ${show(vendor)})`);
    return undefined;
  }
  const upstreamUrl = get('EMBED_UPSTREAM_URL');
  if (upstreamUrl === undefined) problems.push('EMBED_UPSTREAM_URL is required (the vendor base URL, e.g. http://127.0.0.1:8790)');
  else if (httpUrl(upstreamUrl) === undefined) problems.push(`EMBED_UPSTREAM_URL must be an http(s) URL (got ${show(upstreamUrl)})`);
  const explo = vendor === 'explo';
  if (vendor !== 'superset') for (const key of SUPERSET_CONFIG_KEYS) if (get(key) !== undefined) problems.push(`${key} needs EMBED_VENDOR=superset`);
  if (vendor !== 'metabase') for (const key of METABASE_CONFIG_KEYS) if (get(key) !== undefined) problems.push(`${key} needs EMBED_VENDOR=metabase`);
  if (!explo) for (const key of EXPLO_ONLY_KEYS) if (get(key) !== undefined) problems.push(`${key} is Explo's: unset it with EMBED_VENDOR=${vendor}`);
  const superset = vendor === 'superset' ? parseSupersetConfig(get, problems) : undefined;
  const metabase = vendor === 'metabase' ? parseMetabaseConfig(get, problems) : undefined;

  const apiToken = get('EMBED_API_TOKEN');
  if (!explo) {
    // Checked above: another vendor's keys replace it.
  } else if (apiToken === undefined) problems.push('EMBED_API_TOKEN is required (the vendor API token)');
  else if (apiToken.length < 8 || /\s/.test(apiToken)) problems.push('EMBED_API_TOKEN must be at least 8 characters without spaces (value not shown)');

  const secret = get('EMBED_SESSION_SECRET');
  const jwksUrl = get('EMBED_SESSION_JWKS_URL');
  if (secret === undefined && jwksUrl === undefined) problems.push('EMBED_SESSION_SECRET or EMBED_SESSION_JWKS_URL is required (how sessions are verified)');
  if (secret !== undefined && jwksUrl !== undefined) problems.push('set only one of EMBED_SESSION_SECRET and EMBED_SESSION_JWKS_URL');
  if (secret !== undefined && utf8Length(secret) < 32) problems.push('EMBED_SESSION_SECRET must be at least 32 bytes (value not shown)');
  if (jwksUrl !== undefined && httpUrl(jwksUrl) === undefined) problems.push(`EMBED_SESSION_JWKS_URL must be an http(s) URL (got ${show(jwksUrl)})`);

  const cookie = get('EMBED_SESSION_COOKIE');
  if (cookie !== undefined && !COOKIE_NAME.test(cookie)) problems.push(`EMBED_SESSION_COOKIE must be a cookie name (got ${show(cookie)})`);

  let staticMapping: DataSourceMapping | undefined;
  const mappingText = get('EMBED_MAPPING');
  if (mappingText !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(mappingText);
    } catch {
      parsed = undefined;
    }
    if (isDataSourceMapping(parsed)) staticMapping = parsed;
    else problems.push('EMBED_MAPPING must be a JSON object whose values are strings, e.g. {"schema":"datasource"}');
  }

  const ttlText = (explo ? get('EMBED_TOKEN_TTL') : undefined) ?? '3600';
  if (!/^\d+$/.test(ttlText)) problems.push(`EMBED_TOKEN_TTL must be a whole number of seconds, 0 to disable (got ${show(ttlText)})`);

  const revalidateText = get('EMBED_REVALIDATE_AFTER') ?? '300';
  if (!/^\d+$/.test(revalidateText) || Number(revalidateText) > 31_536_000) {
    problems.push(`EMBED_REVALIDATE_AFTER must be a whole number of seconds, at most a year (got ${show(revalidateText)})`);
  }

  const origins = parseOriginConfig(get, problems);

  const environment = get('EMBED_EXPECT_ENVIRONMENT');
  if (environment !== undefined && !(ENVIRONMENTS as readonly string[]).includes(environment)) {
    problems.push(`EMBED_EXPECT_ENVIRONMENT must be ${ENVIRONMENTS.join(' or ')} (got ${show(environment)})`);
  }

  const upstreamApi = get('EMBED_UPSTREAM_API') ?? 'user-group-service';
  if (!(UPSTREAM_APIS as readonly string[]).includes(upstreamApi)) {
    problems.push(`EMBED_UPSTREAM_API must be ${UPSTREAM_APIS.join(' or ')} (got ${show(upstreamApi)})`);
  } else if (upstreamApi === 'explo-customer' && environment !== undefined) {
    // The Customer API never states Customer/Testing, so the check could only fail every request.
    problems.push(
      'EMBED_EXPECT_ENVIRONMENT cannot be checked with EMBED_UPSTREAM_API=explo-customer (the Customer API does not state an environment); unset it',
    );
  }

  const logLevel = (get('EMBED_LOG_LEVEL') ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`EMBED_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got ${show(logLevel)})`);

  const rateText = get('EMBED_RATE_LIMIT') ?? '60';
  if (!/^\d+$/.test(rateText)) problems.push(`EMBED_RATE_LIMIT must be a whole number of requests per minute, 0 to disable (got ${show(rateText)})`);

  const upstreamRateText = get('EMBED_UPSTREAM_RATE') ?? String(DEFAULT_UPSTREAM_RATE);
  if (!/^\d+$/.test(upstreamRateText) || Number(upstreamRateText) > 1_000_000) {
    problems.push(`EMBED_UPSTREAM_RATE must be a whole number of vendor calls per minute, 0 to turn the budget off (got ${show(upstreamRateText)})`);
  }
  const upstreamBurstText = get('EMBED_UPSTREAM_BURST');
  if (upstreamBurstText !== undefined && (!/^\d+$/.test(upstreamBurstText) || Number(upstreamBurstText) < 1 || Number(upstreamBurstText) > 1_000_000)) {
    problems.push(`EMBED_UPSTREAM_BURST must be a whole number of vendor calls, at least 1 (got ${show(upstreamBurstText)})`);
  }

  const keyPrefix = get('EMBED_KEY_PREFIX');
  if (keyPrefix !== undefined && !/^[A-Za-z0-9._:-]{1,64}$/.test(keyPrefix)) {
    problems.push(`EMBED_KEY_PREFIX must be 1 to 64 of A-Z a-z 0-9 . _ : - (got ${show(keyPrefix)})`);
  }

  // EMBED_DASHBOARDS is every vendor's; the other embed-token keys are Explo's (refused above otherwise).
  const embedToken = explo ? parseEmbedTokenConfig(get, { tokenTtlSeconds: Number(ttlText), upstreamApi }, problems) : undefined;
  const timingDashboards = explo && embedToken === undefined ? parseDashboardIds(get('EMBED_DASHBOARDS'), problems) : undefined;

  if (problems.length > before) return undefined;
  return {
    vendor,
    upstreamUrl: upstreamUrl!,
    upstreamApi: upstreamApi as UpstreamApiName,
    apiToken: apiToken ?? '',
    superset,
    metabase,
    session: {
      ...(secret !== undefined ? { secret } : { jwksUrl: jwksUrl! }),
      issuer: commaList(get('EMBED_SESSION_ISSUER')),
      audience: commaList(get('EMBED_SESSION_AUDIENCE')),
      cookie,
      claims: {
        groupId: get('EMBED_CLAIM_GROUP_ID') ?? DEFAULT_CLAIM_NAMES.groupId,
        groupName: get('EMBED_CLAIM_GROUP_NAME') ?? DEFAULT_CLAIM_NAMES.groupName,
        properties: get('EMBED_CLAIM_PROPERTIES') ?? DEFAULT_CLAIM_NAMES.properties,
        mapping: get('EMBED_CLAIM_MAPPING') ?? DEFAULT_CLAIM_NAMES.mapping,
      },
      staticMapping,
    },
    tokenTtlSeconds: Number(ttlText),
    revalidateAfterSeconds: Number(revalidateText),
    ...origins,
    expectEnvironment: environment as Environment | undefined,
    logLevel,
    rateLimitPerMinute: Number(rateText),
    upstreamRatePerMinute: Number(upstreamRateText),
    upstreamBurst: upstreamBurstText === undefined ? undefined : Number(upstreamBurstText),
    keyPrefix,
    embedToken,
    timingDashboards,
  };
}

import { SupersetClient, type SupersetClientOptions } from '@embedded-dashboard/client/superset';
import { isSupersetEmbeddedUuid } from '@embedded-dashboard/protocol';
import type { BffVendor } from '../vendor/vendor-adapter.js';
import { resolveSupersetSettings, SUPERSET_GUEST_TOKEN_TTL_SECONDS, type SupersetRlsRuleTemplate, type SupersetVendorOptions } from './options.js';
import { supersetVendor } from './superset-vendor.js';

/*
 * Configuration step 1 for the Superset vendor (environment text -> options; ARCHITECTURE §2.1):
 * its keys, on every runtime (CLI and `--config FILE`, Worker bindings, Lambda environment).
 */

/** The Superset keys, read with `EMBED_VENDOR=superset`. */
export const SUPERSET_CONFIG_KEYS = [
  'EMBED_SUPERSET_USERNAME',
  'EMBED_SUPERSET_PASSWORD',
  'EMBED_SUPERSET_GUEST_SECRET',
  'EMBED_SUPERSET_AUDIENCE',
  'EMBED_SUPERSET_RLS',
  'EMBED_SUPERSET_RLS_DISABLED',
] as const;
type SupersetKey = (typeof SUPERSET_CONFIG_KEYS)[number] | 'EMBED_DASHBOARDS' | 'EMBED_TOKEN_TTL';

/** Of {@link SUPERSET_CONFIG_KEYS}, the secrets: never quoted back. */
export const SUPERSET_SECRET_KEYS = ['EMBED_SUPERSET_PASSWORD', 'EMBED_SUPERSET_GUEST_SECRET'] as const;

/** The Superset configuration, validated: `supersetVendorOf` makes it the vendor. */
export interface SupersetConfig {
  dashboards: string[];
  rls: string | SupersetRlsRuleTemplate[] | false;
  mint: { kind: 'vendor'; username: string; password: string } | { kind: 'local'; secret: string; audience: string; ttlSeconds: number };
}

/**
 * Reads the Superset keys, one line per problem in `problems` (naming the key, never quoting a
 * secret). `EMBED_SUPERSET_RLS` is one clause template, or a JSON list of `{clause, dataset?}`;
 * no row-level security at all must be said with `EMBED_SUPERSET_RLS_DISABLED=true`.
 */
export function parseSupersetConfig(get: (key: SupersetKey) => string | undefined, problems: string[]): SupersetConfig | undefined {
  const before = problems.length;
  const username = get('EMBED_SUPERSET_USERNAME');
  const password = get('EMBED_SUPERSET_PASSWORD');
  const secret = get('EMBED_SUPERSET_GUEST_SECRET');
  const audience = get('EMBED_SUPERSET_AUDIENCE');
  const ttlText = get('EMBED_TOKEN_TTL');
  const minted = username !== undefined || password !== undefined;
  if (minted && secret !== undefined) {
    problems.push(
      'set EMBED_SUPERSET_USERNAME/EMBED_SUPERSET_PASSWORD (Superset mints guest tokens) or EMBED_SUPERSET_GUEST_SECRET (the BFF signs them), not both',
    );
  } else if (!minted && secret === undefined) {
    problems.push(
      'EMBED_VENDOR=superset needs EMBED_SUPERSET_USERNAME and EMBED_SUPERSET_PASSWORD (the service account) or EMBED_SUPERSET_GUEST_SECRET and EMBED_SUPERSET_AUDIENCE',
    );
  } else if (minted) {
    if (username === undefined) problems.push('EMBED_SUPERSET_USERNAME is required with EMBED_SUPERSET_PASSWORD (the service account)');
    if (password === undefined) problems.push('EMBED_SUPERSET_PASSWORD is required with EMBED_SUPERSET_USERNAME (value not shown)');
    if (audience !== undefined)
      problems.push('EMBED_SUPERSET_AUDIENCE goes with EMBED_SUPERSET_GUEST_SECRET: Superset sets the audience of the tokens it mints');
    if (ttlText !== undefined)
      problems.push('EMBED_TOKEN_TTL goes with EMBED_SUPERSET_GUEST_SECRET: Superset sets the lifetime of the tokens it mints (GUEST_TOKEN_JWT_EXP_SECONDS)');
  } else {
    if (new TextEncoder().encode(secret).length < 32)
      problems.push('EMBED_SUPERSET_GUEST_SECRET must be at least 32 bytes, as GUEST_TOKEN_JWT_SECRET in superset_config.py (value not shown)');
    if (audience === undefined) problems.push("EMBED_SUPERSET_AUDIENCE is required with EMBED_SUPERSET_GUEST_SECRET: Superset's GUEST_TOKEN_JWT_AUDIENCE");
    if (ttlText !== undefined && (!/^\d+$/.test(ttlText) || Number(ttlText) < 30 || Number(ttlText) > 86_400)) {
      problems.push(
        `EMBED_TOKEN_TTL must be a whole number of seconds from 30 to 86400 for Superset guest tokens (got ${JSON.stringify(ttlText.slice(0, 40))})`,
      );
    }
  }

  const dashboardsText = get('EMBED_DASHBOARDS');
  const dashboards = (dashboardsText ?? '')
    .split(',')
    .map((d) => d.trim())
    .filter((d) => d !== '');
  const bad = dashboards.filter((d): boolean => !isSupersetEmbeddedUuid(d));
  if (dashboards.length === 0)
    problems.push("EMBED_DASHBOARDS is required with EMBED_VENDOR=superset: the embedded dashboards' UUIDs (Superset's Embed dialog), comma-separated");
  else if (bad.length > 0)
    problems.push(`EMBED_DASHBOARDS must be embedded dashboard UUIDs, lower-case (not ${bad.map((d) => JSON.stringify(d.slice(0, 40))).join(', ')})`);

  const rlsText = get('EMBED_SUPERSET_RLS');
  const disabledText = get('EMBED_SUPERSET_RLS_DISABLED');
  if (disabledText !== undefined && disabledText !== 'true' && disabledText !== 'false') {
    problems.push(`EMBED_SUPERSET_RLS_DISABLED must be true or false (got ${JSON.stringify(disabledText.slice(0, 40))})`);
  }
  let rls: SupersetConfig['rls'] = false;
  if (rlsText === undefined && disabledText !== 'true') {
    problems.push(
      'EMBED_SUPERSET_RLS is required (e.g. customer_id = {org_id}): without it every guest sees every row; set EMBED_SUPERSET_RLS_DISABLED=true to embed without row-level security on purpose',
    );
  } else if (rlsText !== undefined && disabledText === 'true') {
    problems.push('EMBED_SUPERSET_RLS and EMBED_SUPERSET_RLS_DISABLED=true contradict each other: unset one');
  } else if (rlsText !== undefined) {
    rls = rlsText;
    if (rlsText.startsWith('[')) {
      try {
        rls = JSON.parse(rlsText) as SupersetRlsRuleTemplate[];
      } catch {
        problems.push('EMBED_SUPERSET_RLS starts with "[" but is not JSON: a list of {"clause": "...", "dataset": <id>} or a single clause template');
      }
    }
    try {
      resolveSupersetSettings({ dashboards: ['00000000-0000-0000-0000-000000000000'], rls, guestTokenSecret: 'x'.repeat(32), audience: 'check' });
    } catch (error) {
      problems.push(`EMBED_SUPERSET_RLS: ${(error as Error).message.replace(/^supersetVendor: rls:? ?/, '')}`);
    }
  }

  if (problems.length > before) return undefined;
  return {
    dashboards,
    rls,
    mint: minted
      ? { kind: 'vendor', username: username!, password: password! }
      : { kind: 'local', secret: secret!, audience: audience!, ttlSeconds: Number(ttlText ?? SUPERSET_GUEST_TOKEN_TTL_SECONDS) },
  };
}

/**
 * The vendor for a validated configuration: with the service account a `SupersetClient` of
 * Superset's base URL (`clientOptions`: a transport of the runtime's, say), else the BFF's own signer.
 */
export function supersetVendorOf(config: SupersetConfig, upstreamUrl: string, clientOptions: Partial<SupersetClientOptions> = {}): BffVendor {
  const { mint } = config;
  const options: SupersetVendorOptions = { dashboards: config.dashboards, rls: config.rls };
  if (mint.kind === 'vendor') {
    return supersetVendor({
      ...options,
      client: new SupersetClient({ ...clientOptions, baseUrl: upstreamUrl, username: mint.username, password: mint.password }),
    });
  }
  return supersetVendor({ ...options, guestTokenSecret: mint.secret, audience: mint.audience, ttlSeconds: mint.ttlSeconds });
}

import { EXPLO_EMBED_KEY_BYTES, isDashboardId, isExploEmbedKeyId, type UpstreamApiName } from '@embedded-dashboard/protocol';
import type { EmbedTokenOptions } from '../explo/embed-token/options.js';
import type { ConfigGet } from './values.js';

/*
 * Configuration step 1 of 5 (environment text -> options; ARCHITECTURE §2.1): the embed-token keys.
 */

/** The embed-token keys (ARCHITECTURE §4), on every runtime: a group of their own beside the rest of `bff-config.ts`. */
export const EMBED_TOKEN_CONFIG_KEYS = [
  'EMBED_JWT_KEY_ID',
  'EMBED_JWT_KEY',
  'EMBED_DASHBOARDS',
  'EMBED_JWT_MINT',
  'EMBED_DISABLE_EDITABLE_SECTION_EDITING',
] as const;
type EmbedTokenKey = (typeof EMBED_TOKEN_CONFIG_KEYS)[number];

/**
 * `embedToken` from the configuration, or `undefined` when embed tokens are off; every problem
 * is added to `problems`, naming the key and never quoting the secret's value.
 */
export function parseEmbedTokenConfig(
  get: ConfigGet<EmbedTokenKey>,
  context: { tokenTtlSeconds: number; upstreamApi: string },
  problems: string[],
): EmbedTokenOptions | undefined {
  const keyId = get('EMBED_JWT_KEY_ID');
  const key = get('EMBED_JWT_KEY');
  const dashboardsText = get('EMBED_DASHBOARDS');
  const mint = get('EMBED_JWT_MINT') ?? 'local';
  const desText = get('EMBED_DISABLE_EDITABLE_SECTION_EDITING');
  if (keyId === undefined) {
    // EMBED_DASHBOARDS alone names the dashboards of the timings reports (customer tokens are for every dashboard).
    for (const other of ['EMBED_JWT_KEY', 'EMBED_JWT_MINT', 'EMBED_DISABLE_EDITABLE_SECTION_EDITING'] as const) {
      if (get(other) !== undefined) problems.push(`${other} needs EMBED_JWT_KEY_ID (the embed secret's id): embed tokens are off without it`);
    }
    return undefined;
  }
  if (!isExploEmbedKeyId(keyId)) problems.push('EMBED_JWT_KEY_ID must be the embed secret id: 1 to 128 visible ASCII characters without spaces or ":"');
  if (mint !== 'local' && mint !== 'vendor') problems.push(`EMBED_JWT_MINT must be local or vendor (got ${JSON.stringify(mint.slice(0, 40))})`);
  if (mint === 'vendor' && context.upstreamApi !== ('explo-customer' satisfies UpstreamApiName)) {
    problems.push("EMBED_JWT_MINT=vendor needs EMBED_UPSTREAM_API=explo-customer (the vendor mints embed tokens through the Customer API's generate_jwt)");
  }
  if (key === undefined && mint !== 'vendor')
    problems.push('EMBED_JWT_KEY is required with EMBED_JWT_KEY_ID (the embed secret value; not needed with EMBED_JWT_MINT=vendor)');
  if (key !== undefined && new TextEncoder().encode(key).length !== EXPLO_EMBED_KEY_BYTES) {
    problems.push(`EMBED_JWT_KEY must be ${EXPLO_EMBED_KEY_BYTES} bytes in UTF-8, the A256GCM key (value not shown)`);
  }
  const dashboards = parseDashboardIds(dashboardsText, problems);
  if (desText !== undefined && desText !== 'true' && desText !== 'false') {
    problems.push(`EMBED_DISABLE_EDITABLE_SECTION_EDITING must be true or false (got ${JSON.stringify(desText.slice(0, 40))})`);
  }
  if (context.tokenTtlSeconds === 0) problems.push('EMBED_TOKEN_TTL must be above 0 with EMBED_JWT_KEY_ID: an embed token always expires');
  return {
    keyId,
    ...(key !== undefined && { key }),
    ...(dashboards !== undefined && { dashboards }),
    ...(mint === 'vendor' && { mint }),
    ...((desText === 'true' || desText === 'false') && { disableEditableSectionEditing: desText === 'true' }),
  };
}

/** `EMBED_DASHBOARDS` as dashboard ids (a problem when it is empty or names a malformed one), or `undefined` when unset. */
export function parseDashboardIds(text: string | undefined, problems: string[]): string[] | undefined {
  if (text === undefined) return undefined;
  const dashboards = text
    .split(',')
    .map((d) => d.trim())
    .filter((d) => d !== '');
  const bad = dashboards.filter((d): boolean => !isDashboardId(d));
  if (dashboards.length === 0 || bad.length > 0) {
    problems.push(
      `EMBED_DASHBOARDS must be a comma list of dashboard ids, 1 to 128 of A-Z a-z 0-9 _ - (not ${bad.map((d) => JSON.stringify(d.slice(0, 40))).join(', ') || 'empty'})`,
    );
  }
  return dashboards;
}

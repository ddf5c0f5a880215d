import { ENVIRONMENTS, EXPLO_EMBED_KEY_BYTES, isExploEmbedKeyId, type Environment } from '@embedded-dashboard/protocol';
import { DEFAULT_CLI_RATE_LIMIT_PER_MINUTE } from '../options.js';
import type { StartEmulatorOptions } from '../server.js';
import { type CliCommand, METABASE_FLAGS, SUPERSET_FLAGS, VALUE_FLAGS, embedOrigins, integer, listenOptions, singleValue } from './arg-values.js';
import { parseMetabaseArgs } from './metabase-args.js';
import { parseSupersetArgs } from './superset-args.js';

export type { CliCommand } from './arg-values.js';

export const USAGE = `Usage: embedded-dashboard-emulator [options]

A local stand-in for the dashboard vendor: /api/user and an embeddable dashboard host.

Options:
  --port PORT                listen port; 0 picks a free one        (default 8790)
  --host HOST                listen address                         (default 127.0.0.1)
  --api-key TOKEN:ENV        accepted API key and its environment, Customer or Testing;
                             repeatable (default dev-customer-key:Customer, dev-testing-key:Testing)
  --data FILE                persist groups to FILE (atomic writes)  (default: in memory)
  --token-ttl SEC            tokens stop working SEC s after issue; 0 never (default 0)
  --rotation-grace SEC       a rotated-out token keeps working SEC s (default 0)
  --embed-origin ORIGIN      origin allowed to frame dashboards, port may be *; repeatable
                             (default http://localhost:*, http://127.0.0.1:*)
  --dashboard-refresh SEC    how often a dashboard page re-fetches its data and so notices
                             a dead token (default 15)
  --rate-limit N             requests a minute each API key may make (token bucket);
                             over it 429 with Retry-After; 0 no limit (default 180, the vendor's)
  --rate-limit-burst N       requests a quiet key may make at once (default: the rate)
  --embed-secret ID:VALUE    an embed secret (Customer environment): dashboards accept embed
                             tokens (JWE, dir + A256GCM, kid ID) encrypted with VALUE's UTF-8
                             bytes (exactly 32), and generate_jwt encrypts with it; repeatable
  --admin                    enable the /__emulator/* admin routes  (default off)
  --help                     print this help

  --vendor explo|superset|metabase  which vendor to emulate         (default explo)
With --vendor superset (Apache Superset 6.1.0's login, CSRF, guest-token and chart-data routes and
its /embedded/<uuid> page; --port, --host, --admin and --embed-origin, as frame-ancestors, apply):
  --superset-user NAME:PASSWORD  a service account (may mint guest tokens); repeatable
                             (default embed-service:embed-service-password)
  --guest-secret SECRET      GUEST_TOKEN_JWT_SECRET (default Superset's test-guest-secret-change-me)
  --guest-audience AUD       GUEST_TOKEN_JWT_AUDIENCE (default embedded-dashboard-emulator)
  --guest-token-ttl SEC      GUEST_TOKEN_JWT_EXP_SECONDS (default 300)
With --vendor metabase (Metabase guest embeds: /embed/dashboard/<jwt>, /embed/question/<jwt> and the
/api/embed/* routes they call; --port, --host, --admin and --embed-origin, as frame-ancestors, apply):
  --metabase-secret HEX      the embedding secret key, 64 hex characters (default the emulator's
                             development key, DEFAULT_METABASE_SECRET)
  --metabase-item SPEC       a published item, KIND:ID[:SLUG=KIND,...] with KIND dashboard or question
                             and each parameter's kind locked, enabled or disabled (slugs customer_id,
                             region, product); repeatable, replaces the sample items
                             (e.g. dashboard:1:customer_id=locked,region=enabled)`;

/**
 * Parses the CLI's arguments. Collects every problem (one line each) instead of stopping at
 * the first, so one run shows them all.
 */
export function parseArgs(argv: readonly string[]): { command?: CliCommand; problems: string[] } {
  const problems: string[] = [];
  const values = new Map<string, string[]>();
  let admin = false;
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const flag = arg.startsWith('--') && eq !== -1 ? arg.slice(0, eq) : arg;
    if (flag === '--help' || flag === '-h') help = true;
    else if (flag === '--admin') {
      if (eq !== -1) problems.push('--admin takes no value');
      admin = true;
    } else if (VALUE_FLAGS.has(flag)) {
      const value = eq !== -1 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined || (eq === -1 && value.startsWith('--'))) {
        problems.push(`${flag} needs a value`);
        if (value !== undefined) i--;
        continue;
      }
      values.set(flag, [...(values.get(flag) ?? []), value]);
    } else problems.push(`unknown argument ${JSON.stringify(arg)}; see --help`);
  }
  if (help) return { command: { kind: 'help' }, problems: [] };
  const vendors = values.get('--vendor') ?? [];
  if (vendors.length > 1) problems.push('--vendor given more than once');
  if (vendors[0] !== undefined && vendors[0] !== 'explo' && vendors[0] !== 'superset' && vendors[0] !== 'metabase')
    problems.push('--vendor must be explo, superset or metabase');
  if (vendors[0] !== 'metabase') for (const flag of METABASE_FLAGS) if (values.has(flag)) problems.push(`${flag} is a --vendor metabase option`);
  if (vendors[0] === 'superset') return parseSupersetArgs(values, admin, problems);
  if (vendors[0] === 'metabase') return parseMetabaseArgs(values, admin, problems);
  for (const flag of SUPERSET_FLAGS) if (values.has(flag)) problems.push(`${flag} is a --vendor superset option`);

  const single = singleValue(values, problems);
  const options: StartEmulatorOptions = { admin, ...listenOptions(single, problems) };
  const data = single('--data');
  if (data !== undefined) {
    if (data === '') problems.push('--data must be a file path');
    else options.dataFile = data;
  }
  const ttl = single('--token-ttl');
  if (ttl !== undefined) options.tokenTtlSeconds = integer('--token-ttl', ttl, 31_536_000, problems);
  const grace = single('--rotation-grace');
  if (grace !== undefined) options.rotationGraceSeconds = integer('--rotation-grace', grace, 31_536_000, problems);

  const refresh = single('--dashboard-refresh');
  if (refresh !== undefined) options.dashboardRefreshSeconds = integer('--dashboard-refresh', refresh, 86_400, problems);
  if (options.dashboardRefreshSeconds === 0) problems.push('--dashboard-refresh must be at least 1');

  const rateLimit = single('--rate-limit');
  options.rateLimitPerMinute = rateLimit === undefined ? DEFAULT_CLI_RATE_LIMIT_PER_MINUTE : integer('--rate-limit', rateLimit, 1_000_000, problems);
  const rateLimitBurst = single('--rate-limit-burst');
  if (rateLimitBurst !== undefined) {
    options.rateLimitBurst = integer('--rate-limit-burst', rateLimitBurst, 1_000_000, problems);
    if (options.rateLimitBurst === 0 || options.rateLimitPerMinute === 0) problems.push('--rate-limit-burst must be at least 1, with a --rate-limit above 0');
  }

  const keys = values.get('--api-key');
  if (keys) {
    const seen = new Set<string>();
    options.apiKeys = [];
    for (const spec of keys) {
      const colon = spec.lastIndexOf(':');
      const token = spec.slice(0, colon);
      const environment = spec.slice(colon + 1);
      if (colon <= 0 || !(ENVIRONMENTS as readonly string[]).includes(environment)) {
        problems.push(`--api-key must be TOKEN:ENV with ENV one of ${ENVIRONMENTS.join(', ')}`);
      } else if (!/^[\x21-\x7e]+$/.test(token)) {
        problems.push('--api-key TOKEN must be printable ASCII without spaces');
      } else if (seen.has(token)) {
        problems.push('--api-key repeats a TOKEN');
      } else {
        seen.add(token);
        options.apiKeys.push({ token, environment: environment as Environment });
      }
    }
  }
  const secrets = values.get('--embed-secret');
  if (secrets) {
    options.embedSecrets = [];
    for (const spec of secrets) {
      // The id has no ':'; the value (which may) is the rest. Problems never repeat the value.
      const colon = spec.indexOf(':');
      const id = spec.slice(0, colon);
      const value = spec.slice(colon + 1);
      if (colon <= 0 || !isExploEmbedKeyId(id)) problems.push('--embed-secret must be ID:VALUE with ID 1-128 visible ASCII characters without spaces or ":"');
      else if (new TextEncoder().encode(value).length !== EXPLO_EMBED_KEY_BYTES)
        problems.push(`--embed-secret ${id}: VALUE must be ${EXPLO_EMBED_KEY_BYTES} bytes in UTF-8 (an A256GCM key)`);
      else if (options.embedSecrets.some((secret) => secret.id === id)) problems.push(`--embed-secret repeats the ID ${id}`);
      else options.embedSecrets.push({ id, value });
    }
  }
  const origins = embedOrigins(values, problems);
  if (origins) options.embedOrigins = origins;
  return problems.length > 0 ? { problems } : { command: { kind: 'start', options }, problems };
}

import {
  ENVIRONMENTS,
  EXPLO_EMBED_KEY_BYTES,
  isExploEmbedKeyId,
  isMetabaseSecret,
  type Environment,
  type MetabaseParameterKind,
} from '@embedded-dashboard/protocol';
import { DEFAULT_CLI_RATE_LIMIT_PER_MINUTE } from '../options.js';
import { parseItems } from '../metabase/options.js';
import { METABASE_SAMPLE_ITEMS } from '../metabase/sample-data.js';
import type { StartEmulatorOptions, StartMetabaseEmulatorOptions, StartSupersetEmulatorOptions } from '../server.js';

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

export type CliCommand =
  | { kind: 'help' }
  | { kind: 'start'; options: StartEmulatorOptions }
  | { kind: 'start-superset'; options: StartSupersetEmulatorOptions }
  | { kind: 'start-metabase'; options: StartMetabaseEmulatorOptions };

const SUPERSET_FLAGS = new Set(['--superset-user', '--guest-secret', '--guest-audience', '--guest-token-ttl']);
const METABASE_FLAGS = new Set(['--metabase-secret', '--metabase-item']);
const EXPLO_ONLY_FLAGS = [
  '--api-key',
  '--data',
  '--token-ttl',
  '--rotation-grace',
  '--dashboard-refresh',
  '--rate-limit',
  '--rate-limit-burst',
  '--embed-secret',
];

const VALUE_FLAGS = new Set([
  '--port',
  '--host',
  '--api-key',
  '--data',
  '--token-ttl',
  '--rotation-grace',
  '--embed-origin',
  '--dashboard-refresh',
  '--rate-limit',
  '--rate-limit-burst',
  '--embed-secret',
  '--vendor',
  ...SUPERSET_FLAGS,
  ...METABASE_FLAGS,
]);
const ORIGIN = /^https?:\/\/(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:(\d{1,5}|\*))?$/;

function integer(flag: string, text: string, max: number, problems: string[]): number | undefined {
  if (!/^\d+$/.test(text) || Number(text) > max) {
    problems.push(`${flag} must be an integer from 0 to ${max}, got ${JSON.stringify(text)}`);
    return undefined;
  }
  return Number(text);
}

/** The one value of a flag that may be given once; a second one is a problem. */
function singleValue(values: Map<string, string[]>, problems: string[]): (flag: string) => string | undefined {
  return (flag) => {
    const list = values.get(flag);
    if (list && list.length > 1) problems.push(`${flag} given more than once`);
    return list?.[0];
  };
}

/** `--port` and `--host`, the same for every vendor. */
function listenOptions(single: (flag: string) => string | undefined, problems: string[]): { port?: number; host?: string } {
  const options: { port?: number; host?: string } = {};
  const port = single('--port');
  if (port !== undefined) options.port = integer('--port', port, 65_535, problems);
  const host = single('--host');
  if (host !== undefined) {
    if (host.trim() === '' || /\s/.test(host)) problems.push('--host must be a host name or address');
    else options.host = host;
  }
  return options;
}

/** `--embed-origin`, each an origin (port `*` allowed); the list as given, or undefined when none. */
function embedOrigins(values: Map<string, string[]>, problems: string[]): string[] | undefined {
  const origins = values.get('--embed-origin');
  for (const origin of origins ?? []) {
    if (!ORIGIN.test(origin)) problems.push(`--embed-origin must be an origin like http://localhost:5174 or http://localhost:*, got ${JSON.stringify(origin)}`);
  }
  return origins;
}

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

/** `--vendor superset`: its own options; Explo's are refused, one line each. */
function parseSupersetArgs(values: Map<string, string[]>, admin: boolean, problems: string[]): { command?: CliCommand; problems: string[] } {
  for (const flag of EXPLO_ONLY_FLAGS) if (values.has(flag)) problems.push(`${flag} is an Explo option; not with --vendor superset`);
  const single = singleValue(values, problems);
  const options: StartSupersetEmulatorOptions = { admin, ...listenOptions(single, problems) };
  const users = values.get('--superset-user');
  if (users) {
    options.users = [];
    for (const spec of users) {
      const colon = spec.indexOf(':');
      const username = spec.slice(0, colon);
      if (colon <= 0 || colon === spec.length - 1 || !/^[\x21-\x7e]+$/.test(username))
        problems.push('--superset-user must be NAME:PASSWORD, NAME visible ASCII');
      else if (options.users.some((user) => user.username === username)) problems.push(`--superset-user repeats ${username}`);
      else options.users.push({ username, password: spec.slice(colon + 1), grantGuestToken: true });
    }
  }
  const secret = single('--guest-secret');
  if (secret !== undefined) {
    if (secret === '') problems.push('--guest-secret must not be empty');
    else options.guestTokenSecret = secret;
  }
  const audience = single('--guest-audience');
  if (audience !== undefined) {
    if (audience === '') problems.push('--guest-audience must not be empty');
    else options.guestTokenAudience = audience;
  }
  const ttl = single('--guest-token-ttl');
  if (ttl !== undefined) {
    options.guestTokenSeconds = integer('--guest-token-ttl', ttl, 31_536_000, problems);
    if (options.guestTokenSeconds === 0) problems.push('--guest-token-ttl must be at least 1');
  }
  const origins = embedOrigins(values, problems);
  if (origins) options.frameAncestors = origins;
  return problems.length > 0 ? { problems } : { command: { kind: 'start-superset', options }, problems };
}

/** `--vendor metabase`: its own options; Explo's and Superset's are refused, one line each. Problems never repeat the secret. */
function parseMetabaseArgs(values: Map<string, string[]>, admin: boolean, problems: string[]): { command?: CliCommand; problems: string[] } {
  for (const flag of EXPLO_ONLY_FLAGS) if (values.has(flag)) problems.push(`${flag} is an Explo option; not with --vendor metabase`);
  for (const flag of SUPERSET_FLAGS) if (values.has(flag)) problems.push(`${flag} is a --vendor superset option`);
  const single = singleValue(values, problems);
  const options: StartMetabaseEmulatorOptions = { admin, ...listenOptions(single, problems) };
  const secret = single('--metabase-secret');
  if (secret !== undefined) {
    if (!isMetabaseSecret(secret)) problems.push('--metabase-secret must be 64 hexadecimal characters');
    else options.secretKey = secret;
  }
  const specs = values.get('--metabase-item');
  if (specs) {
    const items: NonNullable<StartMetabaseEmulatorOptions['items']> = [];
    for (const spec of specs) {
      const match = /^(dashboard|question):([1-9]\d{0,8})(?::(.*))?$/.exec(spec);
      if (!match) {
        problems.push(`--metabase-item must be KIND:ID[:SLUG=KIND,...], got ${JSON.stringify(spec.slice(0, 80))}`);
        continue;
      }
      const parameters: Record<string, MetabaseParameterKind> = {};
      let bad = false;
      for (const pair of match[3] ? match[3].split(',') : []) {
        const [slug, kind, extra] = pair.split('=');
        if (!slug || !kind || extra !== undefined || !['locked', 'enabled', 'disabled'].includes(kind)) bad = true;
        else parameters[slug] = kind as MetabaseParameterKind;
      }
      if (bad) problems.push(`--metabase-item ${match[1]}:${match[2]}: each parameter must be SLUG=locked|enabled|disabled`);
      else {
        const kind = match[1] as 'dashboard' | 'question';
        const id = Number(match[2]);
        const title = `${kind === 'dashboard' ? 'Dashboard' : 'Question'} ${id}`;
        // A dashboard gets the sample cards; a question is its own one card.
        const cards = kind === 'dashboard' ? METABASE_SAMPLE_ITEMS[0]!.cards : [{ id, name: title, display: 'table' as const }];
        items.push({ kind, id, title, parameters, cards });
      }
    }
    options.items = items;
  }
  const origins = embedOrigins(values, problems);
  if (origins) options.frameAncestors = origins;
  if (problems.length === 0 && options.items) {
    try {
      parseItems(options.items);
    } catch (error) {
      problems.push(`--metabase-item: ${(error as Error).message}`);
    }
  }
  return problems.length > 0 ? { problems } : { command: { kind: 'start-metabase', options }, problems };
}

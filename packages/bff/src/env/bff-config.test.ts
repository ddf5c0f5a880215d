import { describe, expect, it } from 'vitest';
import { appOptions, clientOptions } from './app-options.js';
import { BFF_CONFIG_KEYS, BFF_SECRET_KEYS, parseBffConfig } from './bff-config.js';
import { configReader } from './values.js';

const SECRET = 'record-session-secret-0123456789abcdef-LEAKCHECK';
const TOKEN = 'LEAKCHECK-record-api-token-31c9';
const minimal = { EMBED_UPSTREAM_URL: 'http://127.0.0.1:8790', EMBED_API_TOKEN: TOKEN, EMBED_SESSION_SECRET: SECRET };

/** What a Worker, a Lambda or the CLI does with its record. */
const parse = (record: Record<string, unknown>) => {
  const problems: string[] = [];
  const config = parseBffConfig(configReader(record, BFF_CONFIG_KEYS, BFF_SECRET_KEYS, problems), problems);
  return { config: problems.length === 0 ? config : undefined, problems };
};

describe('the shared configuration, read from a plain record (a Worker’s bindings, a Lambda’s environment)', () => {
  it('reads numbers and booleans (JSON variables) as their text, and ignores bindings that are not its keys', () => {
    const { config, problems } = parse({ ...minimal, EMBED_RATE_LIMIT: 30, EMBED_TOKEN_TTL: 0, EMBED_STORE: { idFromName() {} }, ASSETS: {} });
    expect(problems).toEqual([]);
    expect(config).toMatchObject({ rateLimitPerMinute: 30, tokenTtlSeconds: 0, upstreamApi: 'user-group-service' });
  });

  it('names a key bound to something that is not text, one line each', () => {
    const { config, problems } = parse({ ...minimal, EMBED_ALLOWED_ORIGINS: ['https://a.example'], EMBED_MAPPING: { a: 'b' }, EMBED_LOG_LEVEL: null });
    expect(config).toBeUndefined();
    expect(problems).toEqual([
      'EMBED_MAPPING must be a text value (a variable or a secret), not object',
      'EMBED_ALLOWED_ORIGINS must be a text value (a variable or a secret), not an array',
      'EMBED_LOG_LEVEL must be a text value (a variable or a secret), not null',
    ]);
  });

  it('counts the session secret in UTF-8 bytes without Node’s Buffer, and never quotes a secret', () => {
    expect(parse({ ...minimal, EMBED_SESSION_SECRET: 'é'.repeat(16) }).problems).toEqual([]);
    expect(parse({ ...minimal, EMBED_SESSION_SECRET: 'é'.repeat(15) }).problems).toEqual(['EMBED_SESSION_SECRET must be at least 32 bytes (value not shown)']);
    const { problems } = parse({ ...minimal, EMBED_API_TOKEN: ` ${TOKEN}`, EMBED_SESSION_SECRET: `${SECRET}\n` });
    expect(problems).toEqual([
      expect.stringMatching(/^EMBED_API_TOKEN has leading or trailing whitespace/),
      expect.stringMatching(/^EMBED_SESSION_SECRET has leading or trailing whitespace/),
    ]);
    expect(problems.join('\n')).not.toMatch(/LEAKCHECK/);
  });

  it('makes the client’s and the app’s options: one attempt per call under a budget, the secrets for redaction', () => {
    const { config } = parse({ ...minimal, EMBED_UPSTREAM_API: 'explo-customer', EMBED_RATE_LIMIT: '10' });
    expect(clientOptions(config!)).toEqual({ baseUrl: 'http://127.0.0.1:8790', apiToken: TOKEN, api: 'explo-customer', maxAttempts: 1 });
    expect(clientOptions(parse({ ...minimal, EMBED_UPSTREAM_RATE: '0' }).config!)).not.toHaveProperty('maxAttempts');
    const options = appOptions(config!, ['redis-password']);
    expect(options.secrets).toEqual([TOKEN, SECRET, 'redis-password']);
    expect(options.rateLimit).toEqual({
      token: { limit: 10, windowSeconds: 60 },
      // A fifth of 10 is 2, but ten holders of hour-long tokens may each renew within one minute.
      rotate: { limit: 10, windowSeconds: 60 },
      timings: { limit: 10, windowSeconds: 60 },
    });
    expect(appOptions(parse({ ...minimal, EMBED_RATE_LIMIT: '0' }).config!).rateLimit).toBe(false);
  });
});

describe('EMBED_RATE_LIMIT with the token lifetime: /rotate gets a fifth, or what ten holders renewing on schedule need', () => {
  const rotateOf = (record: Record<string, unknown>) => {
    const { config, problems } = parse(record);
    expect(problems).toEqual([]);
    const { rateLimit } = appOptions(config!);
    if (!rateLimit) throw new Error('rate limits off');
    return rateLimit.rotate;
  };
  const GUEST = 'env-config-guest-secret-0123456789abcdef';
  const superset = {
    EMBED_VENDOR: 'superset',
    EMBED_UPSTREAM_URL: 'http://127.0.0.1:9',
    EMBED_SESSION_SECRET: SECRET,
    EMBED_DASHBOARDS: '0f1e2d3c-4b5a-4978-8796-a5b4c3d2e1f0',
    EMBED_SUPERSET_RLS: 'customer_id = {org_id}',
  };
  const metabase = {
    EMBED_VENDOR: 'metabase',
    EMBED_UPSTREAM_URL: 'http://127.0.0.1:9',
    EMBED_SESSION_SECRET: SECRET,
    EMBED_METABASE_SECRET: 'ab'.repeat(32),
    EMBED_METABASE_PARAMS: '{}',
    EMBED_DASHBOARDS: '1',
  };

  it("follows Explo's EMBED_TOKEN_TTL: 120 a minute at 15 s, 60 at 30 s, the fifth of 60 (12) from three minutes on", () => {
    expect(rotateOf({ ...minimal, EMBED_TOKEN_TTL: '15' })).toEqual({ limit: 120, windowSeconds: 60 });
    expect(rotateOf({ ...minimal, EMBED_TOKEN_TTL: '30' })).toEqual({ limit: 60, windowSeconds: 60 });
    expect(rotateOf({ ...minimal, EMBED_TOKEN_TTL: '180' })).toEqual({ limit: 12, windowSeconds: 60 });
    expect(rotateOf(minimal)).toEqual({ limit: 12, windowSeconds: 60 });
    expect(rotateOf({ ...minimal, EMBED_TOKEN_TTL: '86400' })).toEqual({ limit: 12, windowSeconds: 60 });
  });

  it('keeps a fifth of EMBED_RATE_LIMIT when that is more, and a customer token that never expires takes only the fifth', () => {
    expect(rotateOf({ ...minimal, EMBED_TOKEN_TTL: '15', EMBED_RATE_LIMIT: '1000' })).toEqual({ limit: 200, windowSeconds: 60 });
    expect(rotateOf({ ...minimal, EMBED_TOKEN_TTL: '15', EMBED_RATE_LIMIT: '1' })).toEqual({ limit: 120, windowSeconds: 60 });
    expect(rotateOf({ ...minimal, EMBED_TOKEN_TTL: '0', EMBED_RATE_LIMIT: '5' })).toEqual({ limit: 1, windowSeconds: 60 });
    expect(rotateOf({ ...minimal, EMBED_TOKEN_TTL: '0' })).toEqual({ limit: 12, windowSeconds: 60 });
  });

  it("follows the vendor's lifetime: Superset's signed tokens' EMBED_TOKEN_TTL, the 300 s it assumes of the tokens Superset mints, Metabase's", () => {
    expect(rotateOf({ ...superset, EMBED_SUPERSET_GUEST_SECRET: GUEST, EMBED_SUPERSET_AUDIENCE: 'superset', EMBED_TOKEN_TTL: '30' })).toEqual({
      limit: 60,
      windowSeconds: 60,
    });
    expect(rotateOf({ ...superset, EMBED_SUPERSET_GUEST_SECRET: GUEST, EMBED_SUPERSET_AUDIENCE: 'superset', EMBED_TOKEN_TTL: '60' })).toEqual({
      limit: 30,
      windowSeconds: 60,
    });
    expect(rotateOf({ ...superset, EMBED_SUPERSET_USERNAME: 'svc', EMBED_SUPERSET_PASSWORD: 'pw' })).toEqual({ limit: 12, windowSeconds: 60 });
    expect(rotateOf({ ...superset, EMBED_SUPERSET_USERNAME: 'svc', EMBED_SUPERSET_PASSWORD: 'pw', EMBED_RATE_LIMIT: '20' })).toEqual({
      limit: 10,
      windowSeconds: 60,
    });
    expect(rotateOf({ ...metabase, EMBED_TOKEN_TTL: '30' })).toEqual({ limit: 60, windowSeconds: 60 });
    expect(rotateOf(metabase)).toEqual({ limit: 12, windowSeconds: 60 });
  });
});

import { describe, expect, it } from 'vitest';
import { parseConfig } from './env.js';

const SECRET = 'cli-session-secret-0123456789abcdef-LEAKCHECK';
const TOKEN = 'LEAKCHECK-cli-api-token-31c9';
const minimal = { EMBED_UPSTREAM_URL: 'http://127.0.0.1:8790', EMBED_API_TOKEN: TOKEN, EMBED_SESSION_SECRET: SECRET };

describe('parseConfig', () => {
  it('applies the documented defaults', () => {
    const { config, problems } = parseConfig(minimal);
    expect(problems).toEqual([]);
    expect(config).toMatchObject({
      port: 8787,
      host: '127.0.0.1',
      tokenTtlSeconds: 3600,
      revalidateAfterSeconds: 300,
      allowedOrigins: [],
      expectEnvironment: undefined,
      upstreamApi: 'user-group-service',
      redisUrl: undefined,
      session: {
        secret: SECRET,
        cookie: undefined,
        staticMapping: undefined,
        claims: { groupId: 'org_id', groupName: 'org_name', properties: 'embed_properties', mapping: 'embed_mapping' },
      },
    });
  });

  it('reads every key', () => {
    const { config, problems } = parseConfig({
      ...minimal,
      EMBED_PORT: '0',
      EMBED_HOST: '0.0.0.0',
      EMBED_SESSION_ISSUER: 'https://auth.example',
      EMBED_SESSION_AUDIENCE: 'embed,other',
      EMBED_SESSION_COOKIE: 'sid',
      EMBED_CLAIM_GROUP_ID: 'tenant',
      EMBED_CLAIM_GROUP_NAME: 'tenant_name',
      EMBED_CLAIM_PROPERTIES: 'props',
      EMBED_CLAIM_MAPPING: 'map',
      EMBED_MAPPING: '{"schema":"ds"}',
      EMBED_TOKEN_TTL: '0',
      EMBED_REVALIDATE_AFTER: '60',
      EMBED_ALLOWED_ORIGINS: 'https://a.example, http://localhost:5174',
      EMBED_EXPECT_ENVIRONMENT: 'Testing',
      EMBED_REDIS_URL: 'redis://127.0.0.1:6379',
      EMBED_KEY_PREFIX: 'staging-eu:',
    });
    expect(problems).toEqual([]);
    expect(config?.keyPrefix).toBe('staging-eu:');
    expect(config).toMatchObject({
      port: 0,
      host: '0.0.0.0',
      tokenTtlSeconds: 0,
      revalidateAfterSeconds: 60,
      allowedOrigins: ['https://a.example', 'http://localhost:5174'],
      expectEnvironment: 'Testing',
      redisUrl: 'redis://127.0.0.1:6379',
      session: {
        issuer: ['https://auth.example'],
        audience: ['embed', 'other'],
        cookie: 'sid',
        staticMapping: { schema: 'ds' },
        claims: { groupId: 'tenant', groupName: 'tenant_name', properties: 'props', mapping: 'map' },
      },
    });
  });

  it('names every problem on its own line and never quotes a secret', () => {
    const { config, problems } = parseConfig({
      EMBED_API_TOKEN: 'short',
      EMBED_SESSION_SECRET: 'LEAKCHECK-tooshort',
      EMBED_PORT: '70000',
      EMBED_UPSTREAM_URL: 'ftp://x',
      EMBED_MAPPING: '{"a":1}',
      EMBED_TOKEN_TTL: '-5',
      EMBED_REVALIDATE_AFTER: '5m',
      EMBED_ALLOWED_ORIGINS: 'https://a.example/path',
      EMBED_EXPECT_ENVIRONMENT: 'Production',
      EMBED_REDIS_URL: 'http://user:LEAKCHECK-redis-pass@host',
      EMBED_SESSION_COOKIE: 'bad cookie',
    });
    expect(config).toBeUndefined();
    const keys = [
      'EMBED_API_TOKEN',
      'EMBED_SESSION_SECRET',
      'EMBED_PORT',
      'EMBED_UPSTREAM_URL',
      'EMBED_MAPPING',
      'EMBED_TOKEN_TTL',
      'EMBED_REVALIDATE_AFTER',
      'EMBED_ALLOWED_ORIGINS',
      'EMBED_EXPECT_ENVIRONMENT',
      'EMBED_REDIS_URL',
      'EMBED_SESSION_COOKIE',
    ];
    for (const key of keys) expect(problems.some((p) => p.startsWith(key) || p.includes(`${key}:`))).toBe(true);
    expect(problems.join('\n')).not.toMatch(/LEAKCHECK|short"/);
  });

  it('reads a Redis Cluster or a Sentinel group next to EMBED_REDIS_URL', () => {
    const redis = { ...minimal, EMBED_REDIS_URL: 'redis://:pw@10.0.0.1:7000' };
    expect(parseConfig(redis).config?.redisTopology).toEqual({});
    expect(parseConfig({ ...redis, EMBED_REDIS_CLUSTER_NODES: '10.0.0.2:7000, [::1]:7001,redis-3.internal:7002' }).config?.redisTopology).toEqual({
      clusterNodes: ['10.0.0.2:7000', '[::1]:7001', 'redis-3.internal:7002'],
    });
    expect(parseConfig({ ...redis, EMBED_REDIS_SENTINELS: '10.0.0.5:26379,10.0.0.6:26379' }).config?.redisTopology).toEqual({
      sentinels: ['10.0.0.5:26379', '10.0.0.6:26379'],
      sentinelMasterName: 'mymaster',
    });
    expect(parseConfig({ ...redis, EMBED_REDIS_SENTINELS: '10.0.0.5:26379', EMBED_REDIS_SENTINEL_MASTER: 'embed' }).config?.redisTopology).toMatchObject({
      sentinelMasterName: 'embed',
    });
  });

  it.each([
    [{ EMBED_REDIS_CLUSTER_NODES: '10.0.0.2:7000' }, /^EMBED_REDIS_CLUSTER_NODES needs EMBED_REDIS_URL/],
    [{ EMBED_REDIS_URL: 'redis://h:1', EMBED_REDIS_CLUSTER_NODES: '10.0.0.2' }, /^EMBED_REDIS_CLUSTER_NODES must be a comma list of host:port/],
    [{ EMBED_REDIS_URL: 'redis://h:1', EMBED_REDIS_SENTINELS: 'a:99999' }, /^EMBED_REDIS_SENTINELS must be a comma list of host:port/],
    [{ EMBED_REDIS_URL: 'redis://h:1', EMBED_REDIS_SENTINEL_MASTER: 'm' }, /^EMBED_REDIS_SENTINEL_MASTER needs EMBED_REDIS_SENTINELS/],
    [
      { EMBED_REDIS_URL: 'redis://h:1', EMBED_REDIS_SENTINELS: 'a:1', EMBED_REDIS_SENTINEL_MASTER: 'my master' },
      /^EMBED_REDIS_SENTINEL_MASTER must be a master name/,
    ],
    [{ EMBED_REDIS_URL: 'redis://h:1/2', EMBED_REDIS_CLUSTER_NODES: 'a:1' }, /^EMBED_REDIS_URL must not name a database with EMBED_REDIS_CLUSTER_NODES/],
    [
      { EMBED_REDIS_URL: 'redis://h:1', EMBED_REDIS_CLUSTER_NODES: 'a:1', EMBED_REDIS_SENTINELS: 'b:2' },
      /^EMBED_REDIS_CLUSTER_NODES and EMBED_REDIS_SENTINELS exclude each other/,
    ],
  ])('refuses a bad Redis topology: %j', (env, problem) => {
    expect(parseConfig({ ...minimal, ...env }).problems).toEqual([expect.stringMatching(problem)]);
  });

  it('EMBED_KEY_PREFIX is unset by default and refuses odd characters', () => {
    expect(parseConfig(minimal).config?.keyPrefix).toBeUndefined();
    for (const bad of ['a b', 'x'.repeat(65), 'pre{fix}', 'é']) {
      expect(parseConfig({ ...minimal, EMBED_KEY_PREFIX: bad }).problems).toEqual([expect.stringMatching(/^EMBED_KEY_PREFIX must be/)]);
    }
  });

  it('serves metrics only with EMBED_METRICS_PORT, on loopback unless told otherwise', () => {
    expect(parseConfig(minimal).config?.metrics).toBeUndefined();
    expect(parseConfig({ ...minimal, EMBED_METRICS_PORT: '9464' }).config?.metrics).toEqual({ port: 9464, host: '127.0.0.1' });
    expect(parseConfig({ ...minimal, EMBED_METRICS_PORT: '9464', EMBED_METRICS_HOST: '10.0.0.5' }).config?.metrics).toEqual({ port: 9464, host: '10.0.0.5' });
    expect(parseConfig({ ...minimal, EMBED_METRICS_PORT: 'on' }).problems).toEqual([expect.stringMatching(/^EMBED_METRICS_PORT must be an integer/)]);
    expect(parseConfig({ ...minimal, EMBED_METRICS_HOST: '0.0.0.0' }).problems).toEqual([
      expect.stringMatching(/^EMBED_METRICS_HOST needs EMBED_METRICS_PORT/),
    ]);
    expect(parseConfig({ ...minimal, EMBED_METRICS_PORT: '8787' }).problems).toEqual([expect.stringMatching(/^EMBED_METRICS_PORT must differ/)]);
  });

  it('reads the origin rule: EMBED_PUBLIC_ORIGIN and EMBED_TRUST_PROXY (off by default)', () => {
    expect(parseConfig(minimal).config).toMatchObject({ publicOrigin: undefined, trustProxy: false });
    expect(parseConfig({ ...minimal, EMBED_PUBLIC_ORIGIN: 'https://app.example.com', EMBED_TRUST_PROXY: 'true' }).config).toMatchObject({
      publicOrigin: 'https://app.example.com',
      trustProxy: true,
    });
    for (const [text, value] of [
      ['1', true],
      ['TRUE', true],
      ['0', false],
      ['false', false],
    ] as const) {
      expect(parseConfig({ ...minimal, EMBED_TRUST_PROXY: text }).config?.trustProxy).toBe(value);
    }
    expect(parseConfig({}, { ...minimal, EMBED_TRUST_PROXY: true }).config?.trustProxy).toBe(true);
    for (const bad of ['https://app.example.com/', 'app.example.com', 'https://app.example.com:443', 'ws://app.example.com', 'https://APP.example.com']) {
      expect(parseConfig({ ...minimal, EMBED_PUBLIC_ORIGIN: bad }).problems).toEqual([
        expect.stringMatching(/^EMBED_PUBLIC_ORIGIN must be the origin browsers reach this BFF at/),
      ]);
    }
    for (const bad of ['yes', 'on', 'trusted']) {
      expect(parseConfig({ ...minimal, EMBED_TRUST_PROXY: bad }).problems).toEqual([`EMBED_TRUST_PROXY must be true or false (got "${bad}")`]);
    }
  });

  it('refuses secrets with surrounding whitespace instead of trimming them, quoting nothing', () => {
    for (const [key, value] of [
      ['EMBED_API_TOKEN', `${TOKEN}\n`],
      ['EMBED_SESSION_SECRET', ` ${SECRET}`],
      ['EMBED_REDIS_URL', 'redis://:LEAKCHECK@127.0.0.1:6379 '],
    ] as const) {
      const { problems, config } = parseConfig({ ...minimal, [key]: value });
      expect(config).toBeUndefined();
      expect(problems).toContain(`${key} has leading or trailing whitespace (value not shown): remove it, secrets are used exactly as given`);
      expect(problems.join('\n')).not.toMatch(/LEAKCHECK/);
    }
    expect(parseConfig({}, { ...minimal, EMBED_API_TOKEN: `${TOKEN} ` }).problems).toEqual([
      expect.stringMatching(/^EMBED_API_TOKEN has leading or trailing whitespace/),
    ]);
  });

  it('requires the upstream, the API token and a session verifier, and refuses two verifiers', () => {
    expect(parseConfig({}).problems).toHaveLength(3);
    expect(parseConfig({ ...minimal, EMBED_SESSION_JWKS_URL: 'https://a.example/jwks' }).problems).toEqual([
      'set only one of EMBED_SESSION_SECRET and EMBED_SESSION_JWKS_URL',
    ]);
  });

  it('reads a config file with the same keys, the environment winning, and refuses unknown keys', () => {
    const file = { ...minimal, EMBED_PORT: 9000, EMBED_MAPPING: { s: 'd' }, EMBED_ALLOWED_ORIGINS: ['https://a.example'] };
    expect(parseConfig({ EMBED_PORT: '9001' }, file).config).toMatchObject({
      port: 9001,
      session: { staticMapping: { s: 'd' } },
      allowedOrigins: ['https://a.example'],
    });
    expect(parseConfig({}, { ...minimal, EMBED_PROT: '1' }).problems).toEqual(['config file: unknown key "EMBED_PROT"']);
    expect(parseConfig({}, ['x']).problems[0]).toMatch(/JSON object/);
  });
});

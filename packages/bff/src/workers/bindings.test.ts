import { describe, expect, it } from 'vitest';
import { API_TOKEN, SESSION_SECRET } from '../../test/support/fixtures.js';
import { parseWorkerBindings } from './bindings.js';

const namespace = { idFromName: (name: string) => name, get: () => ({}) };
const bindings = {
  EMBED_UPSTREAM_URL: 'https://vendor.example',
  EMBED_UPSTREAM_API: 'explo-customer',
  EMBED_API_TOKEN: API_TOKEN,
  EMBED_SESSION_SECRET: SESSION_SECRET,
  EMBED_STORE: namespace,
};

describe('parseWorkerBindings', () => {
  it('reads the CLI’s keys from the bindings, and the store binding', () => {
    const { config, problems } = parseWorkerBindings({ ...bindings, EMBED_RATE_LIMIT: 30, EMBED_ALLOWED_ORIGINS: 'https://app.example' });
    expect(problems).toEqual([]);
    expect(config).toMatchObject({ upstreamApi: 'explo-customer', rateLimitPerMinute: 30, allowedOrigins: ['https://app.example'], store: namespace });
  });

  it('refuses the user group service API (set or by default), naming why, one line per problem with the CLI’s own', () => {
    const { config, problems } = parseWorkerBindings({ ...bindings, EMBED_UPSTREAM_API: 'user-group-service', EMBED_TOKEN_TTL: 'soon' });
    expect(config).toBeUndefined();
    expect(problems).toEqual([
      'EMBED_TOKEN_TTL must be a whole number of seconds, 0 to disable (got "soon")',
      "EMBED_UPSTREAM_API must be explo-customer on Workers: the user group service's get-or-create is a GET with a JSON body, which fetch refuses to send, and a Worker has no other HTTP client",
    ]);
    expect(parseWorkerBindings({ ...bindings, EMBED_UPSTREAM_API: undefined }).problems).toEqual([expect.stringContaining('(unset means user-group-service)')]);
  });

  it('refuses a missing or wrong store binding and the CLI’s listener, Redis and metrics keys', () => {
    const { problems } = parseWorkerBindings({ ...bindings, EMBED_STORE: 'a-kv-namespace-id', EMBED_REDIS_URL: 'redis://x:6379', EMBED_METRICS_PORT: '9464' });
    expect(problems).toEqual([
      expect.stringMatching(/^EMBED_REDIS_URL is not used on Workers: the Worker's store is the Durable Object binding EMBED_STORE; remove it$/),
      expect.stringMatching(/^EMBED_METRICS_PORT is not used on Workers/),
      expect.stringMatching(/^EMBED_STORE must be the Durable Object binding of the EmbedStore class/),
    ]);
    expect(parseWorkerBindings({ ...bindings, EMBED_STORE: undefined }).problems).toHaveLength(1);
  });

  it('never quotes a secret, and names a secret bound with whitespace', () => {
    const { problems } = parseWorkerBindings({ ...bindings, EMBED_API_TOKEN: `${API_TOKEN}\n`, EMBED_SESSION_SECRET: 'LEAKCHECK' });
    expect(problems).toEqual([
      expect.stringMatching(/^EMBED_API_TOKEN has leading or trailing whitespace/),
      'EMBED_SESSION_SECRET must be at least 32 bytes (value not shown)',
    ]);
    expect(problems.join('\n')).not.toMatch(/LEAKCHECK/);
  });
});

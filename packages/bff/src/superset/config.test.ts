import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { createBffApp } from '../app.js';
import { appOptions, vendorOptions } from '../env/app-options.js';
import { BFF_CONFIG_KEYS, BFF_SECRET_KEYS, parseBffConfig } from '../env/bff-config.js';
import { configReader } from '../env/values.js';
import { call, session, SESSION_SECRET, tokenRequest } from '../../test/support/fixtures.js';
import { startHostileSuperset, SUPERSET_PASSWORD, SUPERSET_USER, type HostileSuperset } from '../../../client/test/support/hostile-superset.js';

const DASHBOARD = '0f1e2d3c-4b5a-4978-8796-a5b4c3d2e1f0';
const GUEST = 'LEAKCHECK-config-guest-secret-0123456789abcdef';

let superset: HostileSuperset;
beforeAll(async () => {
  superset = await startHostileSuperset({ dashboards: [DASHBOARD] });
});
afterAll(() => superset.close());

const base = () => ({
  EMBED_VENDOR: 'superset',
  EMBED_UPSTREAM_URL: superset.url,
  EMBED_SESSION_SECRET: SESSION_SECRET,
  EMBED_DASHBOARDS: DASHBOARD,
  EMBED_SUPERSET_RLS: 'customer_id = {org_id}',
});
const local = () => ({ ...base(), EMBED_SUPERSET_GUEST_SECRET: GUEST, EMBED_SUPERSET_AUDIENCE: 'superset' });

const parse = (record: Record<string, unknown>) => {
  const problems: string[] = [];
  const config = parseBffConfig(configReader(record, BFF_CONFIG_KEYS, BFF_SECRET_KEYS, problems), problems);
  return { config: problems.length === 0 ? config : undefined, problems };
};

describe('EMBED_VENDOR=superset configuration', () => {
  it('signing locally: the app answers guest tokens and sends Superset no request, at start or per view', async () => {
    const { config, problems } = parse({ ...local(), EMBED_TOKEN_TTL: '120' });
    expect(problems).toEqual([]);
    const before = { ...superset.calls };
    const app = createBffApp({ ...appOptions(config!), ...vendorOptions(config!), logLevel: 'silent' });
    const jwt = await session({ org_id: 'acme' });
    for (let i = 0; i < 5; i++) {
      const res = await call(app, '/embed/token', tokenRequest(jwt, { dashboard: DASHBOARD }));
      expect(res.status).toBe(200);
      const claims = decodeJwt((res.body as { token: string }).token);
      expect(claims.exp! - claims.iat!).toBe(120);
    }
    expect(superset.calls).toEqual(before);
  });

  it('minting at Superset: the service account signs in at the first view, not at start', async () => {
    const { config, problems } = parse({ ...base(), EMBED_SUPERSET_USERNAME: SUPERSET_USER, EMBED_SUPERSET_PASSWORD: SUPERSET_PASSWORD });
    expect(problems).toEqual([]);
    const before = { ...superset.calls };
    const options = appOptions(config!);
    expect(options.secrets).toContain(SUPERSET_PASSWORD);
    const app = createBffApp({ ...options, ...vendorOptions(config!), logLevel: 'silent' });
    expect(superset.calls).toEqual(before);
    const res = await call(app, '/embed/token', tokenRequest(await session({ org_id: 'acme' }), { dashboard: DASHBOARD }));
    expect(res.status).toBe(200);
    expect(superset.calls.login - before.login).toBe(1);
    expect(superset.calls.guest - before.guest).toBe(1);
  });

  it.each([
    [{ EMBED_VENDOR: 'metabse' }, ['EMBED_VENDOR must be explo, superset or metabase (got "metabse")']],
    [{ EMBED_SUPERSET_GUEST_SECRET: undefined }, [expect.stringMatching(/^EMBED_VENDOR=superset needs EMBED_SUPERSET_USERNAME and EMBED_SUPERSET_PASSWORD/)]],
    [{ EMBED_SUPERSET_USERNAME: SUPERSET_USER, EMBED_SUPERSET_PASSWORD: SUPERSET_PASSWORD }, [expect.stringMatching(/not both/)]],
    [
      { EMBED_SUPERSET_GUEST_SECRET: 'LEAKCHECK-short' },
      ['EMBED_SUPERSET_GUEST_SECRET must be at least 32 bytes, as GUEST_TOKEN_JWT_SECRET in superset_config.py (value not shown)'],
    ],
    [{ EMBED_SUPERSET_AUDIENCE: undefined }, [expect.stringMatching(/^EMBED_SUPERSET_AUDIENCE is required/)]],
    [{ EMBED_TOKEN_TTL: '5' }, [expect.stringMatching(/^EMBED_TOKEN_TTL must be a whole number of seconds from 30 to 86400/)]],
    [{ EMBED_DASHBOARDS: undefined }, [expect.stringMatching(/^EMBED_DASHBOARDS is required with EMBED_VENDOR=superset/)]],
    [{ EMBED_DASHBOARDS: 'sales-overview' }, ['EMBED_DASHBOARDS must be embedded dashboard UUIDs, lower-case (not "sales-overview")']],
    [{ EMBED_SUPERSET_RLS: undefined }, [expect.stringMatching(/^EMBED_SUPERSET_RLS is required .* EMBED_SUPERSET_RLS_DISABLED=true/)]],
    [{ EMBED_SUPERSET_RLS_DISABLED: 'true' }, [expect.stringMatching(/contradict/)]],
    [{ EMBED_SUPERSET_RLS_DISABLED: 'yes' }, ['EMBED_SUPERSET_RLS_DISABLED must be true or false (got "yes")']],
    [{ EMBED_SUPERSET_RLS: "customer_id = '{org_id}'" }, [expect.stringMatching(/^EMBED_SUPERSET_RLS: \{org_id\} is inside quotes/)]],
    [{ EMBED_SUPERSET_RLS: 'customer_id = 1' }, [expect.stringMatching(/^EMBED_SUPERSET_RLS: reads no session claim/)]],
    [{ EMBED_SUPERSET_RLS: '[{"clause": 1}' }, [expect.stringMatching(/is not JSON/), expect.stringMatching(/^EMBED_SUPERSET_RLS:/)]],
    [{ EMBED_SUPERSET_RLS: '[{"clause": "c = {org_id}", "dataset": "x"}]' }, [expect.stringMatching(/dataset must be a dataset id/)]],
    [
      { EMBED_API_TOKEN: 'LEAKCHECK-explo-token', EMBED_JWT_KEY_ID: 'k1' },
      ["EMBED_API_TOKEN is Explo's: unset it with EMBED_VENDOR=superset", "EMBED_JWT_KEY_ID is Explo's: unset it with EMBED_VENDOR=superset"],
    ],
  ])('refuses %j, one line per problem', (change, expected) => {
    const record: Record<string, unknown> = { ...local(), ...change };
    for (const [key, value] of Object.entries(change)) if (value === undefined) delete record[key];
    const { config, problems } = parse(record);
    expect(config).toBeUndefined();
    expect(problems).toEqual(expected);
    expect(problems.join('\n')).not.toContain('LEAKCHECK');
  });

  it('EMBED_SUPERSET_RLS_DISABLED=true is the one way to go without row-level security', () => {
    const record: Record<string, unknown> = { ...local(), EMBED_SUPERSET_RLS_DISABLED: 'true' };
    delete record.EMBED_SUPERSET_RLS;
    expect(parse(record).config?.superset?.rls).toBe(false);
  });

  it('takes rules for several datasets as JSON', () => {
    const { config } = parse({ ...local(), EMBED_SUPERSET_RLS: '[{"clause": "customer_id = {org_id}", "dataset": 3}, {"clause": "region = {region}"}]' });
    expect(config?.superset?.rls).toEqual([{ clause: 'customer_id = {org_id}', dataset: 3 }, { clause: 'region = {region}' }]);
  });

  it('Superset keys without EMBED_VENDOR=superset are a problem for Explo', () => {
    const { problems } = parse({
      EMBED_UPSTREAM_URL: superset.url,
      EMBED_API_TOKEN: 'LEAKCHECK-explo-token-1',
      EMBED_SESSION_SECRET: SESSION_SECRET,
      EMBED_SUPERSET_RLS: 'c = {org_id}',
    });
    expect(problems).toEqual(['EMBED_SUPERSET_RLS needs EMBED_VENDOR=superset']);
  });
});

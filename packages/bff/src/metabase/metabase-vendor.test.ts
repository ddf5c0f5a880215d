import { decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MetabaseEmbedError } from '@embedded-dashboard/protocol';
import { DEFAULT_METABASE_SECRET, startMetabaseEmulator, type RunningMetabaseEmulator } from '@embedded-dashboard/emulator';
import { createBffApp } from '../app.js';
import { appOptions, vendorOptions } from '../env/app-options.js';
import { BFF_CONFIG_KEYS, BFF_SECRET_KEYS, parseBffConfig } from '../env/bff-config.js';
import { configReader } from '../env/values.js';
import { createMemoryStore } from '../store/memory.js';
import type { TokenStore } from '../store/types.js';
import { acme, call, captureLogs, emitted, record, session, SESSION_SECRET, tokenRequest } from '../../test/support/fixtures.js';
import { socketBffs } from '../../test/support/socket-bffs.js';
import { metabaseVendor } from './metabase-vendor.js';
import type { MetabaseVendorOptions } from './options.js';

// The BFF's Metabase adapter against the emulator's Metabase mode over real sockets: the token the
// BFF signs is one Metabase accepts, for the session's customer's rows only; and the adapter's
// own rules (allow-list, locked parameters from the session only, the cache, hostile input, config).

const SECRET = DEFAULT_METABASE_SECRET;
const globex = { org_id: 'globex', org_name: 'Globex' };

let mb: RunningMetabaseEmulator;
beforeAll(async () => {
  mb = await startMetabaseEmulator({ port: 0 });
});
afterAll(() => mb.close());

const bffs = socketBffs();
afterEach(async () => {
  await bffs.closeAll();
  expect(emitted.filter((line) => line.includes(SECRET))).toEqual([]);
});

const base = (): Record<string, string> => ({
  EMBED_VENDOR: 'metabase',
  EMBED_UPSTREAM_URL: mb.url,
  EMBED_SESSION_SECRET: SESSION_SECRET,
  EMBED_METABASE_SECRET: SECRET,
  EMBED_METABASE_PARAMS: '{"customer_id": "{org_id}"}',
  EMBED_DASHBOARDS: '1',
  EMBED_METABASE_QUESTIONS: '3,salesRowsQuestion0001',
});
const parse = (record: Record<string, unknown>) => {
  const problems: string[] = [];
  const config = parseBffConfig(configReader(record, BFF_CONFIG_KEYS, BFF_SECRET_KEYS, problems), problems);
  return { config: problems.length === 0 ? config : undefined, problems };
};

/** A BFF from environment text (the CLI's, Worker's and Lambda's path), on a real socket. */
async function bffFrom(env: Record<string, string>, store?: TokenStore) {
  const { config, problems } = parse(env);
  expect(problems).toEqual([]);
  const logs = captureLogs();
  const app = createBffApp({ ...appOptions(config!), ...vendorOptions(config!), logger: logs.logger, ...(store && { store }) });
  const url = await bffs.serve(app);
  const post = async (path: string, jwt: string | undefined, body: unknown) => record(await fetch(url + path, tokenRequest(jwt, body, { origin: url })));
  return { url, logs, post };
}

const rowsOf = async (token: string, query = '') => {
  const answer = await fetch(`${mb.url}/api/embed/dashboard/${token}/dashcard/1/card/1${query}`);
  return answer.ok
    ? { status: answer.status, customers: ((await answer.json()) as { data: { rows: unknown[][] } }).data.rows.map((r) => r[0]) }
    : { status: answer.status, text: await answer.text() };
};

describe('Metabase: the BFF signs guest-embed tokens Metabase accepts', () => {
  it('a token for the session’s customer shows only its rows; the page cannot unlock the locked parameter; no call to Metabase', async () => {
    const before = mb.emulator.stats().requests;
    const bff = await bffFrom({ ...base(), EMBED_TOKEN_TTL: '120' });
    const acmeRes = await bff.post('/embed/token', await session(acme), { dashboard: '1' });
    expect(acmeRes.status).toBe(200);
    const { token, expiresAt } = acmeRes.body as { token: string; expiresAt: number };
    // Signed as Metabase's documented example signs: HS256 over the secret's text.
    const { payload } = await jwtVerify(token, new TextEncoder().encode(SECRET), { algorithms: ['HS256'] });
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(payload).toEqual({ resource: { dashboard: 1 }, params: { customer_id: ['acme'] }, exp: expect.any(Number) as number });
    expect(expiresAt).toBe(payload.exp! * 1000);
    expect(payload.exp! - Math.floor(Date.now() / 1000)).toBeGreaterThan(110);
    expect(payload.exp! - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(120);
    // No request reached Metabase to make it.
    expect(mb.emulator.stats().requests).toEqual(before);

    expect(await rowsOf(token)).toEqual({ status: 202, customers: ['acme', 'acme', 'acme'] });
    const globexToken = ((await bff.post('/embed/token', await session(globex), { dashboard: '1' })).body as { token: string }).token;
    expect(await rowsOf(globexToken)).toEqual({ status: 202, customers: ['globex', 'globex'] });
    // The page's query string cannot choose or widen the locked parameter: Metabase refuses it.
    expect(await rowsOf(token, '?customer_id=globex')).toEqual({ status: 400, text: MetabaseEmbedError.lockedFromPage('customer_id') });
    // An editable one the page may set.
    expect((await rowsOf(token, '?region=north')).customers).toEqual(['acme', 'acme']);

    const question = await bff.post('/embed/token', await session(acme), { chart: 'salesRowsQuestion0001' });
    expect(decodeJwt((question.body as { token: string }).token)).toMatchObject({
      resource: { question: 'salesRowsQuestion0001' },
      params: { customer_id: ['acme'] },
    });
    const byId = (await bff.post('/embed/token', await session(acme), { chart: '3' })).body as { token: string };
    const data = (await (await fetch(`${mb.url}/api/embed/card/${byId.token}/query`)).json()) as { data: { rows: unknown[][] } };
    expect(data.data.rows.map((r) => r[0])).toEqual(['acme', 'acme', 'acme']);
    expect(bff.logs.lines.join('\n')).not.toContain(SECRET);
  });

  it('caches one token per customer and item through the shared store until shortly before exp; renewal of a stale token answers the current one', async () => {
    const store = createMemoryStore();
    const [one, two] = [await bffFrom(base(), store), await bffFrom(base(), store)];
    const first = (await one.post('/embed/token', await session(acme), { dashboard: '1' })).body as { token: string };
    // Another session of the same customer, on another BFF process sharing the store: the same token.
    const again = (await two.post('/embed/token', await session({ ...acme, sub: 'someone-else' }), { dashboard: '1' })).body as { token: string };
    expect(again.token).toBe(first.token);
    const other = (await one.post('/embed/token', await session(globex), { dashboard: '1' })).body as { token: string };
    expect(other.token).not.toBe(first.token);
    const question = (await one.post('/embed/token', await session(acme), { chart: '3' })).body as { token: string };
    expect(question.token).not.toBe(first.token);
    // A holder of an older token asking to renew gets the current one; the current one's holder is throttled (a fresh one each time would defeat the cache).
    const stale = await two.post('/embed/token/rotate', await session(acme), { dashboard: '1', token: 'eyJold.token.value' });
    expect((stale.body as { token: string }).token).toBe(first.token);
    const throttled = await two.post('/embed/token/rotate', await session(acme), { dashboard: '1', token: first.token });
    expect(throttled.status).toBe(429);
  });
});

function app(options: Partial<MetabaseVendorOptions> = {}) {
  return createBffApp({
    session: { secret: SESSION_SECRET },
    logger: captureLogs().logger,
    vendor: metabaseVendor({ secret: SECRET, params: { customer_id: '{org_id}' }, dashboards: [1], questions: [3], ...options }),
  });
}
const ask = async (claims: Record<string, unknown>, body: unknown, options: Partial<MetabaseVendorOptions> = {}) =>
  call(app(options), '/embed/token', tokenRequest(await session(claims), body));

describe('Metabase: hostile claims and requests', () => {
  it.each([
    ['an array (widening to several customers)', ['acme', 'globex']],
    ['an object', { $ne: 1 }],
    ['empty', ''],
    ['over 256 characters', 'x'.repeat(1_000)],
    ['a control character', 'acme\u0000'],
    ['a boolean', true],
    ['null', null],
  ])('a locked parameter’s claim that is %s is refused with no token', async (_name, value) => {
    const res = await ask({ ...acme, tenant: value }, { dashboard: '1' }, { params: { customer_id: '{tenant}' } });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: { code: 'forbidden' } });
    expect(res.text).not.toMatch(/eyJ/);
  });

  it('a missing claim is 403; a number stays a number; text around a placeholder renders as text', async () => {
    expect((await ask(acme, { dashboard: '1' }, { params: { customer_id: '{tenant}' } })).status).toBe(403);
    const number = await ask({ ...acme, tenant: 42 }, { dashboard: '1' }, { params: { customer_id: '{tenant}' } });
    expect(decodeJwt((number.body as { token: string }).token).params).toEqual({ customer_id: [42] });
    const text = await ask(acme, { dashboard: '1' }, { params: { customer_id: 'org-{org_id}', region: '{org_id}' } });
    expect(decodeJwt((text.body as { token: string }).token).params).toEqual({ customer_id: ['org-acme'], region: ['acme'] });
  });

  it.each([
    [{ dashboard: '2' }, 403],
    [{ dashboard: '01' }, 403],
    [{ chart: '1' }, 403],
    [{ dashboard: '__proto__' }, 403],
    [{ dashboard: '1', chart: '3' }, 400],
    [{}, 400],
    [{ dashboard: 1 }, 400],
    [{ dashboard: { $gt: '' } }, 400],
    [{ dashboard: '1', params: { customer_id: 'globex' } }, 400],
    [{ dashboard: '1', customer_id: 'globex' }, 400],
    [{ dashboard: 'x'.repeat(200) }, 400],
  ])('the request %j is refused (%i) with no token', async (body, status) => {
    const res = await ask(acme, body);
    expect(res.status).toBe(status);
    expect(res.text).not.toMatch(/eyJ/);
  });

  it('refuses bad library options with a TypeError that never shows the secret', () => {
    const cases: [Partial<MetabaseVendorOptions>, RegExp][] = [
      [{ secret: 'LEAKCHECK-not-hex' }, /secret must be/],
      [{ secret: SECRET.toUpperCase().slice(0, 63) }, /secret must be/],
      [{ params: undefined }, /params is required/],
      [{ params: ['x'] as never }, /params must be an object/],
      [{ params: JSON.parse('{"__proto__": "{org_id}"}') as Record<string, string> }, /not a parameter slug/],
      [{ params: { Customer: '{org_id}' } }, /not a parameter slug/],
      [{ params: { customer_id: 'constant' } }, /reads no session claim/],
      [{ params: { customer_id: '{constructor}' } }, /not a claim name/],
      [{ dashboards: [0] }, /dashboards must be ids/],
      [{ dashboards: ['../1'] }, /dashboards must be ids/],
      [{ dashboards: [], questions: [] }, /name the dashboards/],
      [{ ttlSeconds: 10 }, /ttlSeconds/],
    ];
    for (const [options, message] of cases) {
      const make = () => metabaseVendor({ secret: SECRET, params: { customer_id: '{org_id}' }, dashboards: [1], ...options });
      expect(make, JSON.stringify(options)).toThrow(message);
      try {
        make();
      } catch (error) {
        expect((error as Error).message).not.toContain('LEAKCHECK');
        expect((error as Error).message).not.toContain(SECRET);
      }
    }
  });
});

describe('Metabase: configuration keys', () => {
  it('reports each problem on one line, never the secret', () => {
    const { problems } = parse({
      ...base(),
      EMBED_METABASE_SECRET: 'LEAKCHECK-short-secret',
      EMBED_METABASE_PARAMS: '{"customer_id": "{org_id"}',
      EMBED_DASHBOARDS: '1,abc',
      EMBED_TOKEN_TTL: '5',
      EMBED_API_TOKEN: 'explo-token-1234',
      EMBED_SUPERSET_RLS: 'x = {y}',
    });
    expect(problems).toEqual([
      'EMBED_SUPERSET_RLS needs EMBED_VENDOR=superset',
      "EMBED_API_TOKEN is Explo's: unset it with EMBED_VENDOR=metabase",
      'EMBED_METABASE_SECRET must be 64 hexadecimal characters, as Metabase generates it (value not shown)',
      'EMBED_METABASE_PARAMS: .customer_id: a "{" without its "}" at character 1',
      `EMBED_DASHBOARDS must be Metabase ids, comma-separated: the number in the item's URL or its 21-character entity id (not "abc")`,
      'EMBED_TOKEN_TTL must be a whole number of seconds from 30 to 86400 for Metabase tokens (got "5")',
    ]);
    expect(problems.join('\n')).not.toContain('LEAKCHECK');
  });

  it('requires the secret, the locked parameters (or {} on purpose) and an item; its keys need EMBED_VENDOR=metabase', () => {
    const { EMBED_METABASE_SECRET: _s, EMBED_METABASE_PARAMS: _p, EMBED_DASHBOARDS: _d, EMBED_METABASE_QUESTIONS: _q, ...rest } = base();
    expect(parse(rest).problems).toEqual([
      "EMBED_VENDOR=metabase needs EMBED_METABASE_SECRET: the embedding secret key (Metabase's Admin > Embedding)",
      'EMBED_METABASE_PARAMS is required: the locked parameters from the session, e.g. {"customer_id": "{org_id}"} ({} to embed without locked parameters on purpose)',
      'EMBED_DASHBOARDS (and/or EMBED_METABASE_QUESTIONS) is required with EMBED_VENDOR=metabase: the ids of the items this BFF embeds',
    ]);
    expect(parse({ ...base(), EMBED_METABASE_PARAMS: '[]' }).problems).toEqual([
      'EMBED_METABASE_PARAMS must be a JSON object from parameter slug to a template over session claims, e.g. {"customer_id": "{org_id}"}',
    ]);
    expect(parse({ ...base(), EMBED_METABASE_PARAMS: '{"customer_id": {"nested": "{org_id}"}}' }).problems).toHaveLength(1);
    expect(parse({ ...base(), EMBED_METABASE_PARAMS: '{}' }).problems).toEqual([]);
    const { EMBED_VENDOR: _v, EMBED_DASHBOARDS: _e, ...explo } = base();
    expect(parse({ ...explo, EMBED_API_TOKEN: 'explo-token-1234' }).problems).toEqual([
      'EMBED_METABASE_SECRET needs EMBED_VENDOR=metabase',
      'EMBED_METABASE_PARAMS needs EMBED_VENDOR=metabase',
      'EMBED_METABASE_QUESTIONS needs EMBED_VENDOR=metabase',
    ]);
    expect(parse({ ...base(), EMBED_VENDOR: 'looker' }).problems).toEqual(['EMBED_VENDOR must be explo, superset or metabase (got "looker")']);
  });
});

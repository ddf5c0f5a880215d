import { decodeProtectedHeader, jwtDecrypt } from 'jose';
import { describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { createEmulator } from '../emulator.js';
import type { EmulatorEnv } from '../http/body.js';
import { CUSTOMER_KEY, TESTING_KEY } from '../../test/support/call-api.js';
import { parseIsoDuration } from './validate-generate-jwt.js';

const VALUE = 's'.repeat(32);
const NOW = 1_790_000_000_000;
const PATH = '/api/generate_jwt/';

async function call(app: Hono<EmulatorEnv>, body: unknown, options: { key?: string | null; path?: string; method?: string; raw?: string } = {}) {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  const key = options.key === undefined ? CUSTOMER_KEY : options.key;
  if (key !== null) headers['Explo-Authorization'] = `Token ${key}`;
  const method = options.method ?? 'POST';
  const response = await app.request(options.path ?? PATH, { method, headers, ...(method !== 'GET' && { body: options.raw ?? JSON.stringify(body) }) });
  return { status: response.status, body: await response.json() };
}

async function withCustomer(options: Parameters<typeof createEmulator>[0] = {}) {
  const emulator = createEmulator({ now: () => NOW, embedSecrets: [{ id: 'key-1', value: VALUE }], ...options });
  const headers = { 'Content-Type': 'application/json', 'Explo-Authorization': `Token ${CUSTOMER_KEY}` };
  await emulator.app.request('/api/create_customer/', { method: 'POST', headers, body: JSON.stringify({ provided_id: 'acme', name: 'Acme' }) });
  return emulator;
}

const decrypt = (jwt: string, value = VALUE) => jwtDecrypt(jwt, new TextEncoder().encode(value), { currentDate: new Date(NOW) });

describe('POST /api/generate_jwt/ (the Customer API)', () => {
  it('answers { success: 1, jwt } that the secret decrypts to exactly the documented claims', async () => {
    const { app, stats } = await withCustomer();
    const { status, body } = await call(app, {
      provided_id: 'acme',
      embed_id: 'sales-overview',
      key_id: 'key-1',
      expiration: 'PT1H',
      embed_origin: 'https://app.example.com/',
    });
    expect(status).toBe(200);
    expect(body).toEqual({ success: 1, jwt: expect.any(String) });
    expect(decodeProtectedHeader(body.jwt)).toEqual({ alg: 'dir', enc: 'A256GCM', kid: 'key-1' });
    const { payload } = await decrypt(body.jwt);
    expect(payload).toEqual({ cst: 'acme', dsh: 'sales-overview', exp: NOW / 1000 + 3600, iss: 'https://app.example.com/' });
    expect(stats().requests.generateJwt).toBe(1);
  });

  it("takes chart_id naming a chart of the dashboard: the token carries it (the emulator's own cht claim) and its data holds that chart alone", async () => {
    const { app } = await withCustomer();
    const { status, body } = await call(app, { provided_id: 'acme', embed_id: 'sales-overview', key_id: 'key-1', chart_id: 'orders-by-month' });
    expect(status).toBe(200);
    expect((await decrypt(body.jwt)).payload).toMatchObject({ cst: 'acme', dsh: 'sales-overview', cht: 'orders-by-month' });
    const data = await app.request('/iframe-data/sales-overview', { headers: { Authorization: `Bearer ${body.jwt}` } });
    expect(data.status).toBe(200);
    const json = (await data.json()) as { chart: string; kpis: unknown[]; charts: Array<{ id: string }> };
    expect(json.chart).toBe('orders-by-month');
    expect(json.kpis).toEqual([]);
    expect(json.charts.map((chart) => chart.id)).toEqual(['orders-by-month']);
    const whole = (await call(app, { provided_id: 'acme', embed_id: 'sales-overview', key_id: 'key-1' })).body.jwt as string;
    const wholeData = (await (await app.request('/iframe-data/sales-overview', { headers: { Authorization: `Bearer ${whole}` } })).json()) as {
      charts: Array<{ id: string }>;
    };
    expect(wholeData).not.toHaveProperty('chart');
    expect(wholeData.charts.map((chart) => chart.id)).toEqual(['revenue-by-month', 'orders-by-month']);
  });

  it('expires in 24 hours by default, and carries rbc and des when asked', async () => {
    const { app } = await withCustomer();
    const plain = await call(app, { provided_id: 'acme', embed_id: 'sales-overview', key_id: null, expiration: null, embed_origin: null });
    expect((await decrypt(plain.body.jwt)).payload).toEqual({ cst: 'acme', dsh: 'sales-overview', exp: NOW / 1000 + 86_400 });
    const builder = await call(app, {
      provided_id: 'acme',
      embed_id: 'support-metrics',
      rb_allowed_features: ['flt', 'srt'],
      disable_editable_section_editing: true,
      chart_id: null,
    });
    expect((await decrypt(builder.body.jwt)).payload).toMatchObject({ dsh: 'support-metrics', rbc: ['flt', 'srt'], des: true });
  });

  it('encrypts with a secret of its own without key_id, which its dashboards accept', async () => {
    const emulator = await withCustomer({ embedSecrets: [] });
    const { body } = await call(emulator.app, { provided_id: 'acme', embed_id: 'sales-overview' });
    expect(decodeProtectedHeader(body.jwt).kid).toBe('emulator-generated-customer');
    const page = await emulator.app.request(`/iframe/${body.jwt}`);
    expect(page.status).toBe(200);
  });

  it.each([
    ['no customer with that provided_id', { provided_id: 'nobody', embed_id: 'sales-overview' }, 404, 'not_found', /provided_id/],
    ['an unknown dashboard', { provided_id: 'acme', embed_id: 'nope' }, 404, 'not_found', /embed_id/],
    ['an unknown key_id', { provided_id: 'acme', embed_id: 'sales-overview', key_id: 'other' }, 404, 'not_found', /key_id/],
    ['a missing provided_id', { embed_id: 'sales-overview' }, 400, 'invalid_field', /provided_id is required/],
    ['a null embed_id', { provided_id: 'acme', embed_id: null }, 400, 'invalid_field', /embed_id is required/],
    ['a numeric provided_id', { provided_id: 7, embed_id: 'sales-overview' }, 400, 'invalid_field', /provided_id must be/],
    ['a blank embed_id', { provided_id: 'acme', embed_id: '  ' }, 400, 'invalid_field', /embed_id must be/],
    ['a 257-character provided_id', { provided_id: 'a'.repeat(257), embed_id: 'sales-overview' }, 400, 'invalid_field', /provided_id must be/],
    ['an unknown field', { provided_id: 'acme', embed_id: 'sales-overview', customer_id: 'acme' }, 400, 'invalid_field', /unknown field "customer_id"/],
    [
      'a field named __proto__',
      JSON.parse('{"provided_id":"acme","embed_id":"sales-overview","__proto__":{"x":1}}'),
      400,
      'invalid_field',
      /unknown field "__proto__"/,
    ],
    ['a numeric expiration', { provided_id: 'acme', embed_id: 'sales-overview', expiration: 3600 }, 400, 'invalid_field', /expiration/],
    ['an expiration in years', { provided_id: 'acme', embed_id: 'sales-overview', expiration: 'P1Y' }, 400, 'invalid_field', /ISO-8601/],
    ['an expiration in months', { provided_id: 'acme', embed_id: 'sales-overview', expiration: 'P1M' }, 400, 'invalid_field', /ISO-8601/],
    ['a negative expiration', { provided_id: 'acme', embed_id: 'sales-overview', expiration: '-PT1H' }, 400, 'invalid_field', /ISO-8601/],
    ['a zero expiration', { provided_id: 'acme', embed_id: 'sales-overview', expiration: 'PT0S' }, 400, 'invalid_field', /from 1 second/],
    ['an expiration over 366 days', { provided_id: 'acme', embed_id: 'sales-overview', expiration: 'P367D' }, 400, 'invalid_field', /366 days/],
    ['a date instead of a duration', { provided_id: 'acme', embed_id: 'sales-overview', expiration: '2030-01-01T00:00:00Z' }, 400, 'invalid_field', /ISO-8601/],
    ['a chart_id of another dashboard', { provided_id: 'acme', embed_id: 'sales-overview', chart_id: 'tickets-by-status' }, 404, 'not_found', /no chart/],
    ['an unknown chart_id', { provided_id: 'acme', embed_id: 'sales-overview', chart_id: 'c1' }, 404, 'not_found', /no chart/],
    [
      'an oversized chart_id',
      { provided_id: 'acme', embed_id: 'sales-overview', chart_id: 'c'.repeat(129) },
      400,
      'invalid_field',
      /chart_id must be a chart id/,
    ],
    ['a numeric chart_id', { provided_id: 'acme', embed_id: 'sales-overview', chart_id: 7 }, 400, 'invalid_field', /chart_id must be a chart id/],
    ['a chart_id that is no id', { provided_id: 'acme', embed_id: 'sales-overview', chart_id: '../x' }, 400, 'invalid_field', /chart_id must be a chart id/],
    [
      'an unknown report builder feature',
      { provided_id: 'acme', embed_id: 'sales-overview', rb_allowed_features: ['flt', 'drop'] },
      400,
      'invalid_field',
      /rb_allowed_features/,
    ],
    [
      'rb_allowed_features that is no list',
      { provided_id: 'acme', embed_id: 'sales-overview', rb_allowed_features: 'flt' },
      400,
      'invalid_field',
      /rb_allowed_features/,
    ],
    [
      'a string for disable_editable_section_editing',
      { provided_id: 'acme', embed_id: 'sales-overview', disable_editable_section_editing: 'true' },
      400,
      'invalid_field',
      /boolean/,
    ],
    [
      'an embed_origin without the trailing slash',
      { provided_id: 'acme', embed_id: 'sales-overview', embed_origin: 'https://app.example.com' },
      400,
      'invalid_field',
      /trailing/,
    ],
    [
      'an embed_origin with a path',
      { provided_id: 'acme', embed_id: 'sales-overview', embed_origin: 'https://app.example.com/app/' },
      400,
      'invalid_field',
      /embed_origin/,
    ],
    [
      'an embed_origin with markup',
      { provided_id: 'acme', embed_id: 'sales-overview', embed_origin: 'https://<script>/' },
      400,
      'invalid_field',
      /embed_origin/,
    ],
  ])('answers %s with success 0', async (_, body, status, code, message) => {
    const { app, stats } = await withCustomer();
    const answer = await call(app, body);
    expect(answer.status).toBe(status);
    expect(answer.body).toEqual({ success: 0, error: { code, message: expect.stringMatching(message) } });
    expect(stats().requests.generateJwt).toBe(1);
  });

  it.each([
    ['no JSON', '{"provided_id":', 'bad_json'],
    ['a JSON array', '[]', 'bad_json'],
    ['an empty body', '', 'bad_json'],
  ])('answers a body that is %s with 400 and success 0', async (_, raw, code) => {
    const { app } = await withCustomer();
    const answer = await call(app, undefined, { raw });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe(code);
  });

  it("keeps environments apart: the Testing key cannot name the Customer environment's customer or secret", async () => {
    const emulator = await withCustomer();
    expect((await call(emulator.app, { provided_id: 'acme', embed_id: 'sales-overview' }, { key: TESTING_KEY })).status).toBe(404);
    const headers = { 'Content-Type': 'application/json', 'Explo-Authorization': `Token ${TESTING_KEY}` };
    await emulator.app.request('/api/create_customer/', { method: 'POST', headers, body: JSON.stringify({ provided_id: 'acme', name: 'Acme test' }) });
    const named = await call(emulator.app, { provided_id: 'acme', embed_id: 'sales-overview', key_id: 'key-1' }, { key: TESTING_KEY });
    expect(named).toEqual({ status: 404, body: { success: 0, error: { code: 'not_found', message: 'no embed secret with this key_id' } } });
    const own = await call(emulator.app, { provided_id: 'acme', embed_id: 'sales-overview' }, { key: TESTING_KEY });
    expect(decodeProtectedHeader(own.body.jwt).kid).toBe('emulator-generated-testing');
  });

  it('authenticates like the rest of the Customer API, and never echoes the key', async () => {
    const { app } = await withCustomer();
    expect(await call(app, { provided_id: 'acme', embed_id: 'sales-overview' }, { key: null })).toMatchObject({
      status: 401,
      body: { success: 0, error: { code: 'unauthorized' } },
    });
    const wrong = await call(app, { provided_id: 'acme', embed_id: 'sales-overview' }, { key: 'stolen-key-123' });
    expect(wrong.status).toBe(401);
    expect(JSON.stringify(wrong.body)).not.toContain('stolen-key-123');
  });

  it('needs POST and the trailing slash, like the vendor', async () => {
    const { app } = await withCustomer();
    expect((await call(app, {}, { path: '/api/generate_jwt' })).status).toBe(405);
    expect((await call(app, {}, { method: 'GET' })).status).toBe(405);
  });

  it('goes through the faults and the per-key rate limit of the other operations', async () => {
    const emulator = await withCustomer({ rateLimitPerMinute: 2 });
    emulator.setFaults({ serverErrorRate: 1, operations: ['generateJwt'] });
    expect((await call(emulator.app, { provided_id: 'acme', embed_id: 'sales-overview' })).body.error.code).toBe('injected_fault');
    emulator.setFaults({});
    // The bucket's two were: the create_customer of withCustomer, and this one.
    expect((await call(emulator.app, { provided_id: 'acme', embed_id: 'sales-overview' })).status).toBe(200);
    expect((await call(emulator.app, { provided_id: 'acme', embed_id: 'sales-overview' })).status).toBe(429);
  });
});

describe('parseIsoDuration', () => {
  it.each([
    ['PT1H', 3600],
    ['PT90M', 5400],
    ['PT30S', 30],
    ['PT1.5S', 1],
    ['P1D', 86_400],
    ['P1DT12H', 129_600],
    ['P2W', 1_209_600],
    ['PT1H30M15S', 5415],
  ])('reads %s as %i seconds', (text, seconds) => {
    expect(parseIsoDuration(text)).toBe(seconds);
  });

  it.each(['P', 'PT', 'P1DT', 'P1Y', 'P1M', 'PT-1H', '1H', 'pt1h', 'P1W1D', 'PT1H ', ' PT1H', 'PT1,5S5', 'P1.5D'])('refuses %j', (text) => {
    expect(parseIsoDuration(text)).toBeUndefined();
  });
});

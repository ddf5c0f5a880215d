import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METABASE_EMBED_API, METABASE_EMBED_PATHS, MetabaseEmbedError } from '@embedded-dashboard/protocol';
import { DEFAULT_METABASE_SECRET, startMetabaseEmulator, type RunningMetabaseEmulator } from '@embedded-dashboard/emulator';

/**
 * The emulator's Metabase mode against Metabase's documentation of guest (signed) embeds: each case
 * is a sentence of docs/embedding/parameters-reference.md ("Params in a signed token"),
 * static-embedding-parameters.md or the behaviour of src/metabase/embedding/jwt.clj and
 * embedding/api/common.clj (packages/protocol/README.md, "Metabase"), over a real socket, with a
 * fixed clock so `exp` and its 60 s leeway are exact. No Metabase server is reachable here: the
 * documentation is the reference (the frame's script is checked in a browser in frame.test.ts).
 */

const NOW = 1_790_000_000;
const SECRET = DEFAULT_METABASE_SECRET;
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

let mb: RunningMetabaseEmulator;
beforeAll(async () => {
  mb = await startMetabaseEmulator({ port: 0, admin: true, now: () => NOW * 1000 });
});
afterAll(() => mb.close());

/** A token as Metabase's documented example signs it (`jwt.sign(payload, METABASE_SECRET_KEY)`: HS256 over the key's text). */
const sign = (payload: Record<string, unknown>, secret = SECRET, alg = 'HS256') =>
  new SignJWT(payload).setProtectedHeader({ alg, typ: 'JWT' }).sign(new TextEncoder().encode(secret));
const dashboard = (params: unknown, extra: Record<string, unknown> = {}) => sign({ resource: { dashboard: 1 }, params, exp: NOW + 600, ...extra });

const get = (path: string) => fetch(mb.url + path);
const item = (token: string, kind: 'dashboard' | 'question' = 'dashboard') => get(METABASE_EMBED_API[kind] + token);
const cardRows = async (token: string, query = '') => {
  const answer = await get(`${METABASE_EMBED_API.dashboard}${token}/dashcard/1/card/1${query}`);
  return { status: answer.status, body: answer.ok ? ((await answer.json()) as { data: { rows: unknown[][] } }) : await answer.text() };
};
const customers = (body: unknown) => (body as { data: { rows: unknown[][] } }).data.rows.map((row) => row[0]);
const refusal = async (answer: Response) => ({ status: answer.status, text: await answer.text() });

describe('Metabase guest embeds (emulator): the token', () => {
  it('opens the signed dashboard and shows only the locked customer’s rows', async () => {
    const token = await dashboard({ customer_id: ['acme'] });
    const meta = await item(token);
    expect(meta.status).toBe(200);
    const body = (await meta.json()) as { id: number; name: string; parameters: { slug: string }[] };
    // Locked and disabled parameters are not offered to the page; the editable one is.
    expect(body).toMatchObject({ id: 1, name: 'Sales' });
    expect(body.parameters.map((p) => p.slug)).toEqual(['region']);
    const rows = await cardRows(token);
    expect(rows.status).toBe(202);
    expect(new Set(customers(rows.body))).toEqual(new Set(['acme']));
    const total = (await (await get(`${METABASE_EMBED_API.dashboard}${token}/dashcard/2/card/2`)).json()) as { data: { rows: number[][] } };
    expect(total.data.rows[0]![0]).toBe(120 + 300 + 45);
    // A bare value works as a one-element list.
    expect(new Set(customers((await cardRows(await dashboard({ customer_id: 'globex' }))).body))).toEqual(new Set(['globex']));
  });

  it('takes the entity id instead of the sequential id, and questions on /api/embed/card', async () => {
    const byEntity = await sign({ resource: { dashboard: 'salesDashboard0000001' }, params: { customer_id: ['initech'] }, exp: NOW + 60 });
    expect(new Set(customers((await cardRows(byEntity)).body))).toEqual(new Set(['initech']));
    const question = await sign({ resource: { question: 3 }, params: { customer_id: ["o'hare"] }, exp: NOW + 60 });
    expect((await item(question, 'question')).status).toBe(200);
    const data = (await (await get(`${METABASE_EMBED_API.question}${question}/query`)).json()) as { data: { rows: unknown[][] } };
    expect(customers(data)).toEqual(["o'hare"]);
  });

  it('accepts exp up to 60 s in the past (leeway) and refuses it after', async () => {
    expect((await item(await dashboard({ customer_id: ['acme'] }, { exp: NOW - 59 }))).status).toBe(200);
    expect(await refusal(await item(await dashboard({ customer_id: ['acme'] }, { exp: NOW - 60 })))).toEqual({
      status: 400,
      text: MetabaseEmbedError.expired(NOW - 60),
    });
    expect(await refusal(await item(await dashboard({ customer_id: ['acme'] }, { nbf: NOW + 61 })))).toEqual({
      status: 400,
      text: `Token is not yet valid (${NOW + 61})`,
    });
  });

  it('refuses alg none, a missing alg, another algorithm, another secret and a tampered payload', async () => {
    const payload = b64({ resource: { dashboard: 1 }, params: { customer_id: ['acme'] }, exp: NOW + 60 });
    expect(await refusal(await item(`${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`))).toEqual({ status: 400, text: MetabaseEmbedError.algNone });
    expect(await refusal(await item(`${b64({ typ: 'JWT' })}.${payload}.x`))).toEqual({ status: 400, text: MetabaseEmbedError.missingAlg });
    const corrupt = { status: 400, text: MetabaseEmbedError.corrupt };
    expect(await refusal(await item(await sign({ resource: { dashboard: 1 }, params: {}, exp: NOW + 60 }, SECRET, 'HS512')))).toEqual(corrupt);
    expect(
      await refusal(await item(await dashboard({ customer_id: ['acme'] }, {}).then(() => sign({ resource: { dashboard: 1 }, params: {} }, 'f'.repeat(64))))),
    ).toEqual(corrupt);
    const good = await dashboard({ customer_id: ['acme'] });
    const [header, , signature] = good.split('.');
    const widened = b64({ resource: { dashboard: 1 }, params: { customer_id: ['globex'] }, exp: NOW + 60 });
    expect(await refusal(await item(`${header}.${widened}.${signature}`))).toEqual(corrupt);
    for (const garbage of ['x', 'a.b', 'a.b.c', `${header}..${signature}`, `${good}.extra`]) expect(await refusal(await item(garbage))).toEqual(corrupt);
  });

  it('refuses a token without params, for another kind, for an unknown or unpublished item', async () => {
    expect(await refusal(await item(await sign({ resource: { dashboard: 1 }, exp: NOW + 60 })))).toEqual({
      status: 400,
      text: MetabaseEmbedError.missingKey('[:params]'),
    });
    const question = await sign({ resource: { question: 3 }, params: { customer_id: ['acme'] }, exp: NOW + 60 });
    expect(await refusal(await item(question))).toEqual({ status: 400, text: MetabaseEmbedError.missingKey('[:resource :dashboard]') });
    expect((await item(await sign({ resource: { dashboard: 99 }, params: {}, exp: NOW + 60 }))).status).toBe(404);
    expect(await refusal(await item(await sign({ resource: { dashboard: 2 }, params: { customer_id: ['acme'] }, exp: NOW + 60 })))).toEqual({
      status: 400,
      text: MetabaseEmbedError.embeddingDisabled,
    });
    expect(await refusal(await item(await sign({ resource: { dashboard: -1 }, params: {}, exp: NOW + 60 })))).toEqual({
      status: 400,
      text: 'Dashboard id should be a positive integer.',
    });
  });
});

describe('Metabase guest embeds (emulator): parameters as documented', () => {
  it('requires every locked parameter in the token; blank counts as missing; [] turns the filter off', async () => {
    const missing = { status: 400, body: MetabaseEmbedError.lockedMissing('customer_id') };
    // The item still loads: Metabase checks parameters when a card's data is asked for.
    expect((await item(await dashboard({}))).status).toBe(200);
    expect(await cardRows(await dashboard({}))).toEqual(missing);
    expect(await cardRows(await dashboard({ customer_id: '' }))).toEqual(missing);
    expect(await cardRows(await dashboard({ customer_id: null }))).toEqual(missing);
    // Documented: `[]` means no value and turns a locked filter off, so every customer's rows show.
    expect(new Set(customers((await cardRows(await dashboard({ customer_id: [] }))).body)).size).toBe(4);
  });

  it('refuses a page value for a locked parameter: a page cannot unlock or change it', async () => {
    const token = await dashboard({ customer_id: ['acme'] });
    const locked = { status: 400, body: MetabaseEmbedError.lockedFromPage('customer_id') };
    expect(await cardRows(token, '?customer_id=globex')).toEqual(locked);
    expect(await cardRows(token, `?parameters=${encodeURIComponent(JSON.stringify({ customer_id: ['globex'] }))}`)).toEqual(locked);
    expect(await cardRows(token, '?customer_id=')).toEqual(locked);
  });

  it('refuses a disabled parameter from the token or the page', async () => {
    const disabled = { status: 400, body: MetabaseEmbedError.disabled('product') };
    expect(await cardRows(await dashboard({ customer_id: ['acme'], product: ['anvil'] }))).toEqual(disabled);
    expect(await cardRows(await dashboard({ customer_id: ['acme'] }), '?product=anvil')).toEqual(disabled);
  });

  it('takes an editable parameter from the page (query string or parameters JSON), unless the token sets it', async () => {
    const token = await dashboard({ customer_id: ['acme'] });
    const north = await cardRows(token, '?region=north');
    expect((north.body as { data: { rows: unknown[][] } }).data.rows.map((row) => row[2])).toEqual(['anvil', 'magnet']);
    const both = await cardRows(token, '?region=north&region=south');
    expect((both.body as { data: { rows: unknown[][] } }).data.rows).toHaveLength(3);
    const json = await cardRows(token, `?parameters=${encodeURIComponent(JSON.stringify({ region: ['south'] }))}`);
    expect((json.body as { data: { rows: unknown[][] } }).data.rows.map((row) => row[2])).toEqual(['rocket']);
    const set = await dashboard({ customer_id: ['acme'], region: ['north'] });
    expect(((await (await item(set)).json()) as { parameters: unknown[] }).parameters).toEqual([]);
    expect(await cardRows(set, '?region=south')).toEqual({ status: 400, body: MetabaseEmbedError.alreadyInToken('region') });
  });

  it('refuses a slug the item does not have', async () => {
    expect(await cardRows(await dashboard({ customer_id: ['acme'], color: 'red' }))).toEqual({ status: 400, body: MetabaseEmbedError.unknown('color') });
    expect(await cardRows(await dashboard({ customer_id: ['acme'] }), '?__proto__=x')).toEqual({ status: 400, body: MetabaseEmbedError.unknown('__proto__') });
  });
});

describe('Metabase guest embeds (emulator): the frame page, setup, faults', () => {
  it('serves the frame page for any token, framable per frame-ancestors', async () => {
    for (const path of [`${METABASE_EMBED_PATHS.dashboard}anything`, `${METABASE_EMBED_PATHS.question}x.y.z`]) {
      const page = await get(path);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.headers.get('content-security-policy')).toMatch(/frame-ancestors \*/);
      expect(await page.text()).toContain('window.parent.postMessage({ metabase: { type: config.types.frame');
    }
  });

  it('takes a new secret and items from the admin route; the old secret’s tokens stop working', async () => {
    const put = (body: unknown) =>
      fetch(`${mb.url}/__emulator/setup`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const old = await dashboard({ customer_id: ['acme'] });
    const secret = 'ab'.repeat(32);
    try {
      expect((await put({ secretKey: secret, items: [{ kind: 'dashboard', id: 1, title: 'Only region', parameters: { region: 'locked' } }] })).status).toBe(
        200,
      );
      expect(await refusal(await item(old))).toEqual({ status: 400, text: MetabaseEmbedError.corrupt });
      const fresh = await sign({ resource: { dashboard: 1 }, params: { region: ['east'] }, exp: NOW + 60 }, secret);
      expect(new Set(customers((await cardRows(fresh)).body))).toEqual(new Set(['globex', 'initech']));
      expect((await put({ embeddingEnabled: false })).status).toBe(200);
      expect(await refusal(await item(fresh))).toEqual({ status: 400, text: 'Embedding is not enabled.' });
      for (const bad of [
        { secretKey: 'short' },
        { items: [{ kind: 'card', id: 1 }] },
        { items: [{ kind: 'dashboard', id: 1, title: 't', parameters: { x: 'locked' } }] },
        { other: 1 },
        [],
      ]) {
        const answer = await put(bad);
        expect(answer.status).toBe(400);
        expect(await answer.text()).not.toContain('short');
      }
    } finally {
      await put({ secretKey: SECRET, embeddingEnabled: true, items: (await import('@embedded-dashboard/emulator')).METABASE_SAMPLE_ITEMS });
    }
    expect((await item(old)).status).toBe(200);
  });

  it('injects faults per operation and counts requests', async () => {
    const token = await dashboard({ customer_id: ['acme'] });
    const before = mb.emulator.stats().requests.embedQuery;
    mb.emulator.setFaults({ serverErrorRate: 1, operations: ['embedQuery'] });
    try {
      expect((await cardRows(token)).status).toBe(503);
      expect((await item(token)).status).toBe(200);
      mb.emulator.setFaults({ rateLimitRate: 1, retryAfterSeconds: 7, operations: ['embedItem'] });
      const limited = await item(token);
      expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '7']);
      mb.emulator.setFaults({ malformedRate: 1, operations: ['embedItem'] });
      await expect((await item(token)).json()).rejects.toThrow();
      mb.emulator.setFaults({ dropRate: 1, operations: ['embedPage'] });
      await expect(get(`${METABASE_EMBED_PATHS.dashboard}${token}`)).rejects.toThrow();
    } finally {
      mb.emulator.setFaults({});
    }
    expect(mb.emulator.stats().requests.embedQuery).toBe(before + 1);
  });
});

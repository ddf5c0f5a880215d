import { afterEach, describe, expect, it, vi } from 'vitest';
import { requestToken, TokenRequestError } from './request-token.js';
import { retryDelay, BACKOFF_CAP_MS, RETRY_AFTER_CAP_MS } from './backoff.js';
import { bffError, freshTokenUrl, json, stubFetch, tokenBody } from '../../test/support/fixtures.js';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

const options = { credentials: 'same-origin' as const };
const url = () => new URL(freshTokenUrl(), 'https://app.example.com').href;

describe('requestToken', () => {
  it('returns only the token fields of the body', async () => {
    const body = tokenBody();
    stubFetch(json({ ...body, group: 'leak?' }));
    expect(await requestToken(url(), undefined, options)).toEqual(body);
  });

  it('an initial caller waits for a rotation in flight and gets its new token', async () => {
    let answer!: (r: Response) => void;
    const fetch = stubFetch(() => new Promise<Response>((resolve) => (answer = resolve)));
    const u = url();
    const rotating = requestToken(u, 'old', options);
    const initial = requestToken(u, undefined, options);
    const rotated = tokenBody();
    answer(json(rotated));
    expect(await initial).toEqual(rotated);
    expect(await rotating).toEqual(rotated);
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('a rotating caller that gets back the very token it holds asks again', async () => {
    const held = tokenBody();
    const fresh = tokenBody();
    const fetch = stubFetch(json(held), json(fresh));
    const u = url();
    const initial = requestToken(u, undefined, options);
    const rotate = requestToken(u, held.token, options);
    expect(await initial).toEqual(held);
    expect(await rotate).toEqual(fresh);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(String(fetch.mock.calls[1]![0])).toBe(`${u}/rotate`);
  });

  it('different token URLs do not share', async () => {
    const fetch = stubFetch(json(tokenBody()));
    await Promise.all([requestToken(url(), undefined, options), requestToken(url(), undefined, options)]);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it.each([
    [bffError(500, 'internal'), 'internal', true],
    [bffError(502, 'upstream_error'), 'upstream_error', true],
    [bffError(429, 'rate_limited'), 'rate_limited', true],
    // The BFF's word can make a transient status final (a chart the vendor refuses), never the reverse.
    [bffError(502, 'upstream_error', {}, false), 'upstream_error', false],
    [bffError(429, 'rate_limited', {}, false), 'rate_limited', false],
    [bffError(403, 'forbidden', {}, true), 'forbidden', false],
    [bffError(401, 'unauthenticated'), 'unauthenticated', false],
    [bffError(415, 'bad_request'), 'bad_request', false],
    [new Response('<html>', { status: 503 }), 'http_503', true],
    [new Response('<html>', { status: 200 }), 'invalid_response', false],
    [json({ token: 't', expiresAt: 'soon', serverTime: 1 }), 'invalid_response', false],
    // A token that would need escaping in a URL is not one: the element never uses it.
    [json({ token: 'a/b?c=d&e', expiresAt: null, serverTime: 1 }), 'invalid_response', false],
    [json({ token: '<script>x</script>', expiresAt: null, serverTime: 1 }), 'invalid_response', false],
    [json({ token: 'abc\r\ndef', expiresAt: null, serverTime: 1 }), 'invalid_response', false],
    [json({ token: 'x'.repeat(100_000), expiresAt: null, serverTime: 1 }), 'invalid_response', false],
  ])('classifies %#', async (response, code, retryable) => {
    stubFetch(response);
    const error = await requestToken(url(), undefined, options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenRequestError);
    expect(error).toMatchObject({ code, retryable, status: response.status });
  });

  it('never shares a request between an element with no chart and one whose chart is named "undefined"', async () => {
    const fetch = stubFetch(json(tokenBody()), json(tokenBody()));
    const at = url();
    const [whole, chart] = await Promise.all([
      requestToken(at, undefined, { ...options, dashboard: 'sales' }),
      requestToken(at, undefined, { ...options, dashboard: 'sales', chart: 'undefined' }),
    ]);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(whole.token).not.toBe(chart.token);
  });

  it('never puts the held token in an error message', async () => {
    stubFetch(bffError(500, 'internal'));
    const error = (await requestToken(url(), 'secret-held-token', options).catch((e: unknown) => e)) as Error;
    expect(`${error.message} ${error.stack}`).not.toContain('secret-held-token');
  });
});

describe('retryDelay', () => {
  it('stays within [0, min(cap, base·2^(retry-1))) and lets Retry-After win when longer', () => {
    for (let retry = 1; retry <= 40; retry++) {
      const ceiling = Math.min(BACKOFF_CAP_MS, 1000 * 2 ** (retry - 1));
      expect(retryDelay(retry, 0, () => 0)).toBe(0);
      expect(retryDelay(retry, 0, () => 0.999999)).toBeLessThan(ceiling);
      expect(retryDelay(retry, 0, () => 0.999999)).toBeGreaterThan(ceiling * 0.99);
    }
    expect(retryDelay(1000, 0, () => 0.5)).toBe(BACKOFF_CAP_MS / 2);
    expect(retryDelay(1, 30_000, () => 0.5)).toBe(30_000);
    expect(retryDelay(1, Number.POSITIVE_INFINITY, () => 0.5)).toBe(RETRY_AFTER_CAP_MS);
    expect(retryDelay(1, RETRY_AFTER_CAP_MS * 10, () => 0.5)).toBe(RETRY_AFTER_CAP_MS);
  });
});

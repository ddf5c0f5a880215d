import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { UserGroupClient } from '@embedded-dashboard/client';
import { socketBffs } from '../../test/support/socket-bffs.js';
import { createBffApp } from '../app.js';
import { API_TOKEN, captureLogs, emitted, findLeaks, record, session, SESSION_SECRET } from '../../test/support/fixtures.js';
import { answerWithToken, startHostileVendor } from '../../test/support/hostile-vendor.js';

/** A BFF on a real socket, through the real client, in front of a vendor that answers what the test says. */
const bffs = socketBffs();
afterEach(async () => {
  await bffs.closeAll();
});
afterAll(() => expect(findLeaks()).toEqual([]));

async function bffBehind(vendorToken: string) {
  const vendor = await startHostileVendor(answerWithToken(vendorToken));
  const client = new UserGroupClient({ baseUrl: vendor.url, apiToken: API_TOKEN, timeoutMs: 2_000, deadlineMs: 4_000 });
  const logs = captureLogs();
  const app = createBffApp({ upstream: client, session: { secret: SESSION_SECRET }, logger: logs.logger, rateLimit: false, secrets: [API_TOKEN] });
  const url = await bffs.serve(
    app,
    () => client.close(),
    () => vendor.close(),
  );
  const getToken = async () =>
    record(
      await fetch(`${url}/embed/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${await session()}`, origin: url },
        body: '{}',
      }),
    );
  return { url, vendor, logs, getToken };
}

describe("the vendor's token is checked before it reaches a browser", () => {
  it.each([
    ['markup', 'abc<script>alert(1)</script>'],
    ['NUL', 'abc\u0000def'],
    ['CR/LF', 'abc\r\nSet-Cookie: x=1'],
    ['U+2028', 'abc\u2028def'],
    ['100 KB of text', 'a'.repeat(100 * 1024)],
  ])('answers 502 upstream_error for a token with %s, and never echoes it', async (_, token) => {
    const { getToken, logs } = await bffBehind(token);
    const res = await getToken();
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ error: { code: 'upstream_error' } });
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.text).not.toContain(token.slice(0, 12));
    expect(logs.lines.join('\n')).not.toContain(token.slice(0, 12));
  });

  it.each([
    ["64 hex characters (the vendor's example)", 'a'.repeat(64)],
    ['a JWE with direct encryption (an empty segment)', 'eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..48V1_ALb6US04U3b.5eym8TW_c8SuK0lt.XFBoMYUZodetZdvTiFvSkQ'],
  ])('hands on a token of %s with 200 and nosniff', async (_, token) => {
    const { getToken } = await bffBehind(token);
    const res = await getToken();
    expect(res.status).toBe(200);
    expect((res.body as { token: string }).token).toBe(token);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('sends nosniff on every JSON answer: health, readiness, refusals and unknown routes', async () => {
    const { url } = await bffBehind('a'.repeat(64));
    const answers = await Promise.all([
      fetch(`${url}/healthz`),
      fetch(`${url}/readyz`),
      fetch(`${url}/embed/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }),
      fetch(`${url}/embed/token`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' }),
      fetch(`${url}/nowhere`),
    ]);
    for (const res of answers) {
      const recorded = await record(res);
      expect(recorded.headers.get('content-type')).toMatch(/^application\/json/);
      expect([recorded.status, recorded.headers.get('x-content-type-options')]).toEqual([recorded.status, 'nosniff']);
    }
    expect(emitted.length).toBeGreaterThan(0);
  });
});

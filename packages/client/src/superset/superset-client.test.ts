import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { createFetchTransport } from '../transport/fetch.js';
import { UserGroupApiError } from '../errors/errors.js';
import { SupersetClient, SupersetSessionRejectedError, cookiesOf, jwtExpiresAt } from './superset-client.js';
import { startHostileSuperset, SUPERSET_PASSWORD, SUPERSET_USER, type HostileSuperset } from '../../test/support/hostile-superset.js';

const DASHBOARD = '0f1e2d3c-4b5a-4978-8796-a5b4c3d2e1f0';
const request = { user: { username: 'ada' }, resources: [{ type: 'dashboard' as const, id: DASHBOARD }], rls: [{ clause: "customer_id = 'acme'" }] };

let superset: HostileSuperset;
beforeAll(async () => {
  superset = await startHostileSuperset({ dashboards: [DASHBOARD] });
});
afterAll(() => superset.close());

const client = (options: Partial<ConstructorParameters<typeof SupersetClient>[0]> = {}) =>
  new SupersetClient({ baseUrl: superset.url, username: SUPERSET_USER, password: SUPERSET_PASSWORD, timeoutMs: 1000, ...options });

/** The error a call rejects with, for its code and message. */
async function failure(promise: Promise<unknown>): Promise<UserGroupApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UserGroupApiError);
  const message = (error as Error).message;
  expect(message).not.toContain(SUPERSET_PASSWORD);
  return error as UserGroupApiError;
}

describe('SupersetClient', () => {
  it('signs in (login, CSRF token and its session cookie) and gets a guest token with its own exp', async () => {
    const c = client();
    const session = await c.signIn();
    expect(session.accessExpiresAt).toBe(decodeJwt(session.accessToken).exp! * 1000);
    expect(session.cookie).toMatch(/^session=[\w-]+$/);
    const guest = await c.guestToken(session, request);
    expect(guest.expiresAt).toBe(decodeJwt(guest.token).exp! * 1000);
    expect(decodeJwt(guest.token)).toMatchObject({ type: 'guest', rls_rules: request.rls, resources: request.resources });
    expect(superset.guestBodies.at(-1)).toEqual(request);
  });

  it('works over fetch too (the CSRF token is a GET without a body)', async () => {
    const c = client({ transport: createFetchTransport() });
    const session = await c.signIn();
    await expect(c.guestToken(session, request)).resolves.toMatchObject({ token: expect.any(String) });
  });

  it('a refused login is http_status 401, never quoting the password', async () => {
    const error = await failure(client({ password: 'wrong-password-LEAK' }).signIn());
    expect(error.code).toBe('http_status');
    expect(error.status).toBe(401);
    expect(error).not.toBeInstanceOf(SupersetSessionRejectedError);
    expect(error.message).not.toContain('wrong-password-LEAK');
  });

  it('a CSRF cookie the server no longer knows is a session rejection (sign in again)', async () => {
    const c = client();
    const session = await c.signIn();
    superset.forgetSessions();
    const error = await failure(c.guestToken(session, request));
    expect(error).toBeInstanceOf(SupersetSessionRejectedError);
    expect(await c.guestToken(await c.signIn(), request)).toMatchObject({ token: expect.any(String) });
  });

  it('a guest token request without the cookie, or with a forged CSRF token, is refused by the server', async () => {
    const c = client();
    const session = await c.signIn();
    expect(await failure(c.guestToken({ ...session, cookie: '' }, request))).toBeInstanceOf(SupersetSessionRejectedError);
    expect(await failure(c.guestToken({ ...session, csrfToken: 'forged.token' }, request))).toBeInstanceOf(SupersetSessionRejectedError);
    const unverifiable = await failure(c.guestToken({ ...session, accessToken: `${session.accessToken.slice(0, -2)}xx` }, request));
    expect(unverifiable).toMatchObject({ status: 422 });
    expect(unverifiable).toBeInstanceOf(SupersetSessionRejectedError);
  });

  it('an unknown dashboard is http_status 400, not retryable', async () => {
    const c = client();
    const error = await failure(c.guestToken(await c.signIn(), { ...request, resources: [{ type: 'dashboard', id: '11111111-2222-4333-8444-555555555555' }] }));
    expect(error).toMatchObject({ code: 'http_status', status: 400, retryable: false });
  });

  it.each([
    ['5xx', (res: import('node:http').ServerResponse) => void res.writeHead(502).end('bad gateway'), 'http_status'],
    ['not JSON', (res: import('node:http').ServerResponse) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>'), 'malformed_response'],
    ['no token', (res: import('node:http').ServerResponse) => void res.writeHead(200).end('{"token": 5}'), 'malformed_response'],
    ['a token without exp', (res: import('node:http').ServerResponse) => void res.writeHead(200).end('{"token": "a.eyJ4IjoxfQ.c"}'), 'malformed_response'],
    [
      'an expired token',
      (res: import('node:http').ServerResponse) => void res.writeHead(200).end(`{"token": "a.${Buffer.from('{"exp":1}').toString('base64url')}.c"}`),
      'malformed_response',
    ],
    ['a JSON array', (res: import('node:http').ServerResponse) => void res.writeHead(200).end('[]'), 'malformed_response'],
    ['429', (res: import('node:http').ServerResponse) => void res.writeHead(429, { 'retry-after': '7' }).end('{}'), 'rate_limited'],
  ])('guest token answered with %s: %s', async (_name, behaviour, code) => {
    const c = client();
    const session = await c.signIn();
    superset.behave('guest', behaviour);
    try {
      const error = await failure(c.guestToken(session, request));
      expect(error.code).toBe(code);
    } finally {
      superset.behave('guest', undefined);
    }
  });

  it('a login answer without an access token, or a CSRF answer without its cookie, is malformed', async () => {
    superset.behave('login', (res) => void res.writeHead(200).end('{"access_token": "not-a-jwt"}'));
    try {
      expect((await failure(client().signIn())).code).toBe('malformed_response');
    } finally {
      superset.behave('login', undefined);
    }
    superset.behave('csrf', (res) => void res.writeHead(200).end('{"result": "abc.def"}'));
    try {
      expect((await failure(client().signIn())).message).toContain('session cookie');
    } finally {
      superset.behave('csrf', undefined);
    }
  });

  it('a server that never answers is a timeout of this call', async () => {
    superset.behave('login', () => undefined);
    try {
      expect((await failure(client({ timeoutMs: 200 }).signIn())).code).toBe('timeout');
    } finally {
      superset.behave('login', undefined);
    }
  });

  it('a refused connection is network', async () => {
    const c = new SupersetClient({ baseUrl: 'http://127.0.0.1:9', username: SUPERSET_USER, password: SUPERSET_PASSWORD });
    expect((await failure(c.signIn())).code).toBe('network');
  });

  it('refuses bad options, never quoting the password', () => {
    for (const bad of [
      { baseUrl: 'ftp://x' },
      { baseUrl: 'http://user:pw@x' },
      { baseUrl: 'http://x/?q=1' },
      { username: '' },
      { password: '' },
      { provider: 'oauth' as never },
      { timeoutMs: 0 },
    ]) {
      expect(() => client(bad)).toThrow(TypeError);
    }
    expect(() => client({ baseUrl: 'not a url' })).toThrow(/baseUrl/);
  });

  it('scopes its account id to the URL and user, without the password', () => {
    expect(client().accountId).toBe(client({ password: 'another-password' }).accountId);
    expect(client().accountId).not.toBe(client({ username: 'other' }).accountId);
    expect(client().accountId).not.toContain(SUPERSET_PASSWORD);
  });
});

describe('jwtExpiresAt and cookiesOf', () => {
  it('reads exp, and nothing from what is not a JWT with one', () => {
    expect(jwtExpiresAt(`a.${Buffer.from('{"exp":1700000000}').toString('base64url')}.c`)).toBe(1_700_000_000_000);
    for (const bad of ['', 'a.b', 'a.!!!.c', `a.${Buffer.from('{"exp":"1"}').toString('base64url')}.c`, `a.${Buffer.from('[1]').toString('base64url')}.c`]) {
      expect(jwtExpiresAt(bad)).toBeUndefined();
    }
  });

  it('takes every cookie of a joined Set-Cookie, not its attributes', () => {
    expect(cookiesOf('session=abc.def; Expires=Wed, 01 Jan 2031 00:00:00 GMT; HttpOnly; Path=/, other=1; Path=/')).toBe('session=abc.def; other=1');
    expect(cookiesOf(undefined)).toBe('');
  });
});

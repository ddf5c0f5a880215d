import { describe, expect, it } from 'vitest';
import { SUPERSET_CSRF_HEADER, SUPERSET_ROUTES } from '@embedded-dashboard/protocol';
import { parseArgs } from '../cli/args.js';
import { createSupersetEmulator } from './app.js';
import { parseClause, SqlClauseError, MAX_CLAUSE_LENGTH } from './sql-clause.js';

// The behaviour shared with the real Superset is in test/superset/conformance.test.ts; these are the
// emulator's own parts: its clause parser on hostile input, its faults, its options and CLI.

const columns = new Set(['customer_id', 'region', 'amount']);
const row = { customer_id: "o'hare", region: 'south', amount: 99 };

describe('parseClause', () => {
  it('evaluates what integrators write, with SQL quoting and three-valued logic', () => {
    const cases: [string, boolean][] = [
      ["customer_id = 'o''hare'", true],
      ["customer_id = 'x'' OR ''1''=''1'", false],
      ["customer_id = 'x' OR '1'='1'", true],
      ["region IN ('north', 'south') AND amount >= 99", true],
      ["NOT region = 'south'", false],
      ["region NOT IN ('south')", false],
      ['amount IS NOT NULL', true],
      ["(customer_id = 'a' OR region = 'south') AND amount < 100", true],
      ["customer_id = NULL OR region = 'x'", false],
    ];
    for (const [clause, expected] of cases) expect(parseClause(clause, columns).matches(row), clause).toBe(expected);
  });

  it('refuses what is not a clause: unterminated, unknown columns, statements, comments, oversized, not text', () => {
    const bad = [
      "customer_id = 'x",
      'password = 1',
      '1=1; DROP TABLE sales',
      "customer_id = 'a' -- x",
      '',
      '(',
      'customer_id IN ()',
      "customer_id = 'a' 'b'",
      'x'.repeat(MAX_CLAUSE_LENGTH + 1),
      'IN = 1',
    ];
    for (const clause of bad) expect(() => parseClause(clause, columns), clause).toThrow(SqlClauseError);
    expect(() => parseClause(42 as unknown as string, columns)).toThrow(SqlClauseError);
    // Deep nesting within the length limit parses without exhausting the stack.
    const deep = '('.repeat(2000) + "region = 'south'" + ')'.repeat(2000);
    expect(parseClause(deep, columns).matches(row)).toBe(true);
  });
});

const login = (app: ReturnType<typeof createSupersetEmulator>['app']) =>
  app.request(SUPERSET_ROUTES.login, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'embed-service', password: 'embed-service-password', provider: 'db' }),
  });

describe('the Superset mode: faults, options, bodies', () => {
  it('injects faults per operation: 503, 429 with Retry-After, a wrong answer, a malformed one, latency', async () => {
    const emulator = createSupersetEmulator();
    emulator.setFaults({ serverErrorRate: 1, operations: ['csrfToken'] });
    const { access_token } = (await (await login(emulator.app)).json()) as { access_token: string };
    expect((await emulator.app.request(SUPERSET_ROUTES.csrfToken, { headers: { authorization: `Bearer ${access_token}` } })).status).toBe(503);
    emulator.setFaults({ rateLimitRate: 1, retryAfterSeconds: 7, operations: ['login'] });
    const limited = await login(emulator.app);
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '7']);
    emulator.setFaults({ failureRate: 1, operations: ['login'] });
    const wrong = await login(emulator.app);
    expect(wrong.status).toBe(200);
    expect(await wrong.json()).not.toHaveProperty('access_token');
    emulator.setFaults({ malformedRate: 1 });
    await expect((await login(emulator.app)).json()).rejects.toThrow();
    emulator.setFaults({ latencyMs: 300, operations: ['login'] });
    const slow = Promise.resolve(login(emulator.app));
    const first = await Promise.race([slow.then(() => 'answered'), new Promise((resolve) => setImmediate(() => resolve('pending')))]);
    expect(first).toBe('pending');
    expect((await slow).status).toBe(200);
    expect(emulator.stats().requests.login).toBe(5);
    expect(() => emulator.setFaults({ operations: ['getOrCreate'] } as never)).toThrow(TypeError);
    expect(() => emulator.setFaults({ serverErrorRate: 2 })).toThrow(TypeError);
  });

  it('serves the admin fault route only when asked, and refuses bad settings with 400', async () => {
    expect((await createSupersetEmulator().app.request('/__emulator/faults', { method: 'PUT', body: '{}' })).status).toBe(404);
    const { app } = createSupersetEmulator({ admin: true });
    const put = (body: string) => app.request('/__emulator/faults', { method: 'PUT', headers: { 'content-type': 'application/json' }, body });
    expect((await put('{"serverErrorRate":1,"operations":["guestToken"]}')).status).toBe(200);
    expect((await put('{"operations":["nope"]}')).status).toBe(400);
    expect((await put('{"x":')).status).toBe(400);
  });

  it('refuses bad options by name', () => {
    expect(() => createSupersetEmulator({ users: [{ username: '', password: 'x' }] })).toThrow(/users/);
    expect(() => createSupersetEmulator({ guestTokenSeconds: 0 })).toThrow(/guestTokenSeconds/);
    expect(() => createSupersetEmulator({ guestTokenSecret: '' })).toThrow(/guestTokenSecret/);
    expect(() => createSupersetEmulator({ dashboards: [{ id: 1, slug: 's', title: 't', uuid: 'NOT-A-UUID', allowedDomains: [], chartIds: [] }] })).toThrow(
      /dashboards/,
    );
  });

  it('answers an oversized body 413 and a hostile CSRF header 400, never a 500', async () => {
    const { app } = createSupersetEmulator({ maxBodyBytes: 1024 });
    const big = await app.request(SUPERSET_ROUTES.login, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'x'.repeat(4096) }),
    });
    expect(big.status).toBe(413);
    for (const header of ['', '...', 'a.b.c', '\u00e9'.repeat(500)]) {
      const response = await app.request(SUPERSET_ROUTES.guestToken, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [SUPERSET_CSRF_HEADER]: header, cookie: 'session=a.b' },
        body: '{}',
      });
      expect(response.status, header).toBe(400);
    }
  });
});

describe('the CLI with --vendor superset', () => {
  it('takes its own options, and refuses Explo ones one line each', () => {
    const ok = parseArgs([
      '--vendor',
      'superset',
      '--port',
      '0',
      '--superset-user',
      'svc:pw:with:colons',
      '--guest-secret',
      's',
      '--guest-audience',
      'a',
      '--guest-token-ttl',
      '60',
      '--admin',
    ]);
    expect(ok.command).toEqual({
      kind: 'start-superset',
      options: {
        admin: true,
        port: 0,
        users: [{ username: 'svc', password: 'pw:with:colons', grantGuestToken: true }],
        guestTokenSecret: 's',
        guestTokenAudience: 'a',
        guestTokenSeconds: 60,
      },
    });
    const bad = parseArgs(['--vendor', 'superset', '--api-key', 'k:Customer', '--data', 'f', '--superset-user', 'nopassword', '--guest-token-ttl', '0']);
    expect(bad.command).toBeUndefined();
    expect(bad.problems).toHaveLength(4);
    expect(parseArgs(['--guest-secret', 'x']).problems).toEqual(['--guest-secret is a --vendor superset option']);
    expect(parseArgs(['--vendor', 'looker']).problems).toContain('--vendor must be explo, superset or metabase');
    // Explo's command line is what it was.
    expect(parseArgs(['--port', '0']).command?.kind).toBe('start');
  });
});

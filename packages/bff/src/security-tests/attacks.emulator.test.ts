import { afterAll, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import type { BffAppOptions } from '../options.js';
import { createMemoryStore } from '../store/memory.js';
import { API_TOKEN, emitted, findLeaks, session } from '../../test/support/fixtures.js';
import { emulatorBffs } from '../../test/support/socket-bffs.js';

/**
 * Security review: attacks against a BFF on a real socket in front of the real emulator, each
 * stating the safe behaviour. Every finding of the review is fixed; its test keeps it fixed.
 */

const TESTING_API_TOKEN = 'LEAKCHECK-review-testing-token-0b7e';

// Served as the CLI serves it.
const emu = emulatorBffs({ testingApiToken: TESTING_API_TOKEN, serveAs: 'cli', client: { timeoutMs: 2_000, deadlineMs: 4_000 } });
afterAll(() => {
  const leaks = emitted.filter((e) => e.includes(TESTING_API_TOKEN));
  expect([...findLeaks(), ...leaks]).toEqual([]);
});

async function startBff(overrides: Partial<BffAppOptions> = {}, apiToken = API_TOKEN) {
  const { url, port, logs, post: postWith } = await emu.start(overrides, apiToken);
  const post = (path: string, jwt: string, body: unknown = {}) => postWith(path, { authorization: `Bearer ${jwt}` }, body);
  return {
    url,
    port,
    logs,
    getToken: (jwt: string) => post('/embed/token', jwt),
    rotate: (jwt: string, token: string) => post('/embed/token/rotate', jwt, { token }),
  };
}

const tokenOf = (res: { body: unknown }) => (res.body as { token: string }).token;
const org = (org_id: string | number, extra: Record<string, unknown> = {}) => ({
  org_id,
  org_name: `Org ${String(org_id).slice(0, 40)}`,
  embed_properties: { tenant: String(org_id) },
  ...extra,
});

/** Sends raw bytes over a socket and returns everything the server wrote before closing. */
function rawHttp(port: number, text: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let out = '';
    socket.on('data', (d) => (out += d.toString('latin1')));
    socket.on('end', () => resolve(out));
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
    socket.write(text);
  });
}

describe("one customer obtaining another customer's token (real emulator)", () => {
  it.each([
    ['case', 'acme', 'ACME'],
    ['unicode normalisation (NFC vs NFD)', 'caf\u00e9', 'cafe\u0301'],
    ['trailing whitespace', 'acme', 'acme '],
    ['separator in the id vs the key prefix', 'acme', 'any:acme'],
    ['a colon-joined id', 'a:b', 'a'],
    ['a NUL in the id', 'acme\u0000x', 'acme'],
    ['__proto__', '__proto__', 'constructor'],
  ])('ids differing only by %s are separate groups with separate tokens', async (_, a, b) => {
    const bff = await startBff();
    const ta = await bff.getToken(await session(org(a)));
    const tb = await bff.getToken(await session(org(b)));
    expect(ta.status).toBe(200);
    expect(tb.status).toBe(200);
    expect(tokenOf(ta)).not.toBe(tokenOf(tb));
    expect(emu.emulator.resolveToken(tokenOf(ta))?.providedId).toBe(a);
    expect(emu.emulator.resolveToken(tokenOf(tb))?.providedId).toBe(b);
  });

  it('a numeric org_id and its decimal string are the same vendor group (by design), a float is refused', async () => {
    const bff = await startBff();
    expect(tokenOf(await bff.getToken(await session(org(42))))).toBe(tokenOf(await bff.getToken(await session(org('42')))));
    expect((await bff.getToken(await session(org(42.5)))).status).toBe(403);
    expect((await bff.getToken(await session(org(2 ** 60)))).status).toBe(403);
  });

  it('an id of 256 characters works, 257 is refused before the vendor is called', async () => {
    const bff = await startBff();
    expect((await bff.getToken(await session(org('x'.repeat(256))))).status).toBe(200);
    const before = emu.emulator.stats().requests.getOrCreate;
    expect((await bff.getToken(await session(org('x'.repeat(257))))).status).toBe(403);
    expect(emu.emulator.stats().requests.getOrCreate).toBe(before);
  });

  it("rotate presenting another group's current or previous token answers the caller's own token and rotates nothing", async () => {
    const bff = await startBff();
    const acmeJwt = await session(org('acme'));
    const globexJwt = await session(org('globex'));
    const g0 = tokenOf(await bff.getToken(globexJwt));
    const g1 = tokenOf(await bff.rotate(globexJwt, g0));
    const a0 = tokenOf(await bff.getToken(acmeJwt));
    const rotations = emu.emulator.stats().requests.rotate;
    for (const stolen of [g0, g1]) {
      const res = await bff.rotate(acmeJwt, stolen);
      expect(res.status).toBe(200);
      expect(tokenOf(res)).toBe(a0);
    }
    expect(emu.emulator.stats().requests.rotate).toBe(rotations);
    expect(emu.emulator.resolveToken(g1)?.providedId).toBe('globex');
  });

  it("concurrent rotate and token requests across groups never hand one group the other's token", async () => {
    const bff = await startBff({ minRotationIntervalSeconds: 0 });
    const ids = ['acme', 'globex', 'initech'];
    const jwts = await Promise.all(ids.map((id) => session(org(id))));
    const first = await Promise.all(jwts.map((jwt) => bff.getToken(jwt)));
    const results = await Promise.all(
      jwts.flatMap((jwt, i) =>
        [bff.rotate(jwt, tokenOf(first[i]!)), bff.getToken(jwt), bff.rotate(jwt, tokenOf(first[(i + 1) % 3]!))].map((p) => p.then((r) => ({ i, r }))),
      ),
    );
    for (const { i, r } of results) {
      expect(r.status).toBe(200);
      const owner = emu.emulator.resolveToken(tokenOf(r))?.providedId;
      // A token the caller already rotated away no longer resolves; it must never be someone else's.
      if (owner !== undefined) expect(owner).toBe(ids[i]);
    }
  });

  // FIXED FINDING (medium): two deployments sharing one store used to share cache entries. Here a
  // staging BFF (Testing API key) and a production BFF (Customer API key) share a store, as two
  // CLI processes sharing one EMBED_REDIS_URL would: keys and entries are now scoped to the
  // vendor account (the client's accountId), so each customer gets its own environment's token.
  it("two BFFs with different vendor API tokens sharing a store never hand out each other's tokens", async () => {
    const store = createMemoryStore();
    const staging = await startBff({ store }, TESTING_API_TOKEN);
    const production = await startBff({ store }, API_TOKEN);
    const jwt = await session(org('acme'));
    const stagingToken = tokenOf(await staging.getToken(jwt));
    const productionToken = tokenOf(await production.getToken(jwt));
    expect(emu.emulator.resolveToken(stagingToken)?.environment).toBe('Testing');
    expect(emu.emulator.resolveToken(productionToken)?.environment).toBe('Customer');
  });

  it('with EMBED_EXPECT_ENVIRONMENT set, a Testing key behind a Customer BFF answers 502 and hands out nothing', async () => {
    const bff = await startBff({ expectEnvironment: 'Customer' }, TESTING_API_TOKEN);
    const res = await bff.getToken(await session(org('acme')));
    expect(res.status).toBe(502);
    expect(res.text).not.toMatch(/ugt|token":/);
    expect(bff.logs.lines.some((l) => l.includes('environment mismatch'))).toBe(true);
  });
});

describe('HTTP-level attacks over a raw socket', () => {
  const sessionHeader = async () => `authorization: Bearer ${await session(org('acme'))}\r\n`;

  it('refuses a chunked body over the limit with 413 (streamed, no Content-Length)', async () => {
    const bff = await startBff({ bodyLimitBytes: 64 });
    const chunk = `{"token":"${'x'.repeat(200)}"}`;
    const reply = await rawHttp(
      bff.port,
      `POST /embed/token/rotate HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\n${await sessionHeader()}transfer-encoding: chunked\r\nconnection: close\r\n\r\n${chunk.length.toString(16)}\r\n${chunk}\r\n0\r\n\r\n`,
    );
    expect(reply).toMatch(/^HTTP\/1\.1 413/);
    expect(reply.toLowerCase()).toContain('cache-control: no-store');
  });

  it('refuses a declared Content-Length over the limit with 413 before the body arrives', async () => {
    const bff = await startBff({ bodyLimitBytes: 64 });
    const reply = await rawHttp(
      bff.port,
      `POST /embed/token HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\n${await sessionHeader()}content-length: 100000000\r\nconnection: close\r\n\r\n{}`,
    );
    expect(reply).toMatch(/^HTTP\/1\.1 413/);
  });

  it('a header with a raw newline (log / response splitting) never reaches the app', async () => {
    const bff = await startBff();
    const reply = await rawHttp(bff.port, `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nx-request-id: a\rinjected: 1\r\nconnection: close\r\n\r\n`);
    expect(reply).toMatch(/^HTTP\/1\.1 400/);
    expect(bff.logs.lines.join('\n')).not.toContain('injected');
  });

  it('a hostile X-Request-Id is replaced, never echoed', async () => {
    const bff = await startBff();
    const reply = await rawHttp(
      bff.port,
      `GET /nope HTTP/1.1\r\nHost: 127.0.0.1\r\nx-request-id: "},{"level":"error","msg":"forged\r\nconnection: close\r\n\r\n`,
    );
    expect(reply).toMatch(/^HTTP\/1\.1 404/);
    expect(reply).not.toContain('forged');
    expect(bff.logs.lines.join('\n')).not.toContain('forged');
  });

  it('a path with encoded newlines and quotes stays inside one JSON log line', async () => {
    const bff = await startBff();
    const reply = await rawHttp(bff.port, `GET /x%0A%22%7D%0A%7B%22level%22:%22error%22 HTTP/1.1\r\nHost: 127.0.0.1\r\nconnection: close\r\n\r\n`);
    expect(reply).toMatch(/^HTTP\/1\.1 404/);
    // The request's line is written before its response: the reply's end means it is there.
    expect(bff.logs.lines).toHaveLength(1);
    const line = JSON.parse(bff.logs.lines[0]!) as Record<string, unknown>;
    // The newlines and quotes are in the line, as characters of one JSON string.
    expect(line).toMatchObject({ level: 'info', msg: 'request', status: 404, path: '/x\n"}\n{"level":"error"' });
    expect(bff.logs.lines.filter((l) => l.includes('"level":"error"'))).toEqual([]);
  });

  // FIXED FINDING (info): a request @hono/node-server rejects before the app runs (here a Host
  // header it calls invalid) used to get a bare 400 without Cache-Control: no-store.
  it('even a request refused by the Node adapter before any middleware carries no-store', async () => {
    const bff = await startBff();
    const reply = await rawHttp(bff.port, `GET /healthz HTTP/1.1\r\nHost: a b\r\nconnection: close\r\n\r\n`);
    expect(reply).toMatch(/^HTTP\/1\.1 400/);
    expect(reply.toLowerCase()).toContain('cache-control: no-store');
    expect(reply).toContain('"code":"bad_request"');
    expect(bff.logs.lines.some((l) => l.includes('refused by the HTTP adapter'))).toBe(true);
  });
});

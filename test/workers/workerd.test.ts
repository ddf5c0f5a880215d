import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { describeStoreContract } from '../../packages/bff/test/support/store-contract/index.js';
import { groupEntry } from '../../packages/bff/test/support/group-entry.js';
import { API_TOKEN, session, SESSION_SECRET } from '../../packages/bff/test/support/fixtures.js';
import { assertFreshBuild } from '../support/fresh-build.js';
import { startNodeProcess, type RunningProcess } from '../support/processes.js';
import { workerdTool } from '../support/tools.js';
import { send, startWorkerd, testWorkerBundle, workerdChildren, workerdStore, type Workerd } from './harness.js';

const workerd = workerdTool();

/** The vendor's rate limit for the budget cases (two vendors alike): a bucket of 20, then one a second. */
const VENDOR_LIMIT = ['--rate-limit', '60', '--rate-limit-burst', '20'];
const EMULATOR_BIN = fileURLToPath(new URL('../../packages/emulator/bin/embedded-dashboard-emulator.js', import.meta.url));
/** The emulator CLI, a process of its own as the vendor is (loopback HTTP from workerd). */
const startVendor = (...flags: string[]) =>
  startNodeProcess(EMULATOR_BIN, ['--port', '0', '--admin', '--api-key', `${API_TOKEN}:Customer`, ...flags], { readyPrefix: 'emulator listening on ' });
type RunningEmulator = RunningProcess;

describe.skipIf(!workerd.available)('the BFF as a Cloudflare Worker, in workerd', () => {
  let persistDir: string;
  let emu: RunningEmulator;
  let limited: RunningEmulator;
  let unguarded: RunningEmulator;
  let w: Workerd;
  const stats = async (e: RunningEmulator) =>
    (await (await fetch(`${e.url}/__emulator/stats`)).json()) as { requests: { getOrCreate: number; rotate: number }; rejected: { rateLimited: number } };
  const reset = (e: RunningEmulator) => fetch(`${e.url}/__emulator/reset`, { method: 'POST' });
  const bindings = () => ({
    EMBED_UPSTREAM_URL: emu.url,
    EMBED_UPSTREAM_API: 'explo-customer',
    EMBED_API_TOKEN: API_TOKEN,
    EMBED_SESSION_SECRET: SESSION_SECRET,
    EMBED_UPSTREAM_RATE: '0',
    EMBED_RATE_LIMIT: '0',
    VARIANTS: JSON.stringify({
      'user-group-service': { EMBED_UPSTREAM_API: 'user-group-service' },
      'unset-api': { EMBED_UPSTREAM_API: null, EMBED_SESSION_SECRET: 'short' },
      'no-store': { EMBED_STORE: null, EMBED_REDIS_URL: 'redis://127.0.0.1:6379', EMBED_PORT: '8787' },
      budget: { EMBED_UPSTREAM_URL: limited.url, EMBED_UPSTREAM_RATE: '48', EMBED_UPSTREAM_BURST: '16', EMBED_KEY_PREFIX: 'budget' },
      'no-budget': { EMBED_UPSTREAM_URL: unguarded.url, EMBED_KEY_PREFIX: 'no-budget' },
      limited: { EMBED_RATE_LIMIT: '5', EMBED_KEY_PREFIX: 'limited' },
      dead: { EMBED_UPSTREAM_URL: 'http://127.0.0.1:1', EMBED_KEY_PREFIX: 'dead' },
      mapping: { EMBED_REVALIDATE_AFTER: '0', EMBED_KEY_PREFIX: 'mapping' },
    }),
  });
  const post = (jwt: string | undefined, body: unknown = {}, headers: Record<string, string> = {}): RequestInit => ({
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(jwt === undefined ? {} : { authorization: `Bearer ${jwt}` }), ...headers },
    body: JSON.stringify(body),
  });
  const customer = (id: string) => session({ org_id: id, org_name: `Customer ${id}`, embed_properties: { region: 'EU' } });

  beforeAll(async () => {
    assertFreshBuild('protocol', 'client', 'emulator', 'bff');
    // The Durable Objects' SQLite files on tmpfs where there is one: local workerd commits them with
    // fsync on its one event-loop thread (ARCHITECTURE §8.1), so on a disk shared with busy
    // processes every isolate, timer and socket of workerd stalls for seconds at a time.
    persistDir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'edge22-workerd-'));
    [emu, limited, unguarded] = await Promise.all([startVendor('--rate-limit', '0'), startVendor(...VENDOR_LIMIT), startVendor(...VENDOR_LIMIT)]);
    w = await startWorkerd({ bindings: bindings(), persistDir });
  }, 60_000);
  afterAll(async () => {
    // Nothing the Workers logged, errors included, carries a secret.
    expect(w?.output() ?? '').not.toMatch(/LEAKCHECK/);
    await w?.dispose();
    await Promise.all([emu, limited, unguarded].map((e) => e?.stop()));
    if (persistDir) rmSync(persistDir, { recursive: true, force: true });
  });

  it('is bundled from the package entry with no Node built-in reachable (esbuild, node: imports are errors)', async () => {
    const { inputs } = await testWorkerBundle();
    expect(inputs.filter((file) => /prom-client|@hono\/node-server|ioredis|\/platform\/node\.js|^packages\/[^/]+\/src\//.test(file))).toEqual([]);
    expect(inputs).toContain('packages/bff/dist/platform/web.js');
    expect(inputs).toContain('packages/client/dist/platform/web.js');
  });

  // Two isolates (workers bff-a and bff-b), one set of Durable Objects, as two Cloudflare locations.
  let stores = 0;
  describeStoreContract('DurableObjectStore (in workerd, through two isolates)', async () => {
    const prefix = `contract${++stores}:`;
    const a = workerdStore((path, init) => send(`${w.url}${path}`, init), prefix);
    const b = workerdStore((path, init) => w.fetchB(path, init), prefix);
    return { a, b, close: async () => undefined };
  });

  it('hands a signed-in customer its token and rotates it, through the Customer API over fetch', async () => {
    const jwt = await customer('acme');
    const first = await send(`${w.url}/embed/token`, post(jwt));
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-store');
    const { token } = (await first.json()) as { token: string };
    const again = (await (await w.fetchB('/embed/token', post(jwt))).json()) as { token: string };
    expect(again.token).toBe(token);
    const rotated = await send(`${w.url}/embed/token/rotate`, post(jwt, { token }));
    expect(rotated.status).toBe(200);
    const fresh = ((await rotated.json()) as { token: string }).token;
    expect(fresh).not.toBe(token);
    // The other isolate sees the rotation (the entry is in the group's Durable Object) and hands a stale holder the current token.
    expect(((await (await w.fetchB('/embed/token/rotate', post(jwt, { token }))).json()) as { token: string }).token).toBe(fresh);
    expect((await send(`${w.url}/readyz`)).status).toBe(200);
  });

  it('leaves a mapping set at the vendor alone through first sync, drift correction and rotation (Durable Object store)', async () => {
    const atVendor = async (route: string, body: Record<string, unknown>) => {
      const res = await fetch(`${emu.url}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'explo-authorization': `Token ${API_TOKEN}` },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { customer: Record<string, unknown> }).customer;
    };
    const vendorCopy = () => atVendor('/api/create_customer/', { provided_id: 'mapped', name: 'read' });
    await atVendor('/api/create_customer/', { provided_id: 'mapped', name: 'Old name', mapping: { schema_1: 'ds_eu' }, properties: {} });
    const jwt = await customer('mapped');
    const first = await send(`${w.url}/__variant/mapping/embed/token`, post(jwt));
    expect(first.status).toBe(200);
    const { token } = (await first.json()) as { token: string };
    expect(await vendorCopy()).toMatchObject({
      name: 'Customer mapped',
      properties: { region: 'EU' },
      parent_schema_datasource_mapping: { schema_1: 'ds_eu' },
    });
    await atVendor('/api/update_customer/', { provided_id: 'mapped', properties: { region: 'ALL' }, mapping: { schema_1: 'ds_us' } });
    expect((await w.fetchB('/__variant/mapping/embed/token', post(jwt))).status).toBe(200);
    expect(await vendorCopy()).toMatchObject({ properties: { region: 'EU' }, parent_schema_datasource_mapping: { schema_1: 'ds_us' } });
    const rotated = await send(`${w.url}/__variant/mapping/embed/token/rotate`, post(jwt, { token }));
    expect(rotated.status).toBe(200);
    expect(await vendorCopy()).toMatchObject({ name: 'Customer mapped', parent_schema_datasource_mapping: { schema_1: 'ds_us' } });
  });

  it('refuses: no session 401, a forged one 401, a foreign origin 403, no JSON 415, a big body 413; a dead vendor is 503, never 401', async () => {
    const jwt = await customer('globex');
    expect((await send(`${w.url}/embed/token`, post(undefined))).status).toBe(401);
    expect((await send(`${w.url}/embed/token`, post(`${jwt.slice(0, -4)}AAAA`))).status).toBe(401);
    // The BFF's own refusal (its JSON error naming the origin), not miniflare's entry Worker,
    // which answers a foreign Origin with a plain-text 403 of its own before the Worker runs.
    const foreign = await send(`${w.url}/embed/token`, post(jwt, {}, { origin: 'https://evil.example' }));
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'forbidden',
      message: expect.stringContaining('https://evil.example'),
    });
    expect((await send(`${w.url}/embed/token`, { ...post(jwt), headers: { authorization: `Bearer ${jwt}`, 'content-type': 'text/plain' } })).status).toBe(415);
    expect((await send(`${w.url}/embed/token`, post(jwt, { pad: 'x'.repeat(10_000) }))).status).toBe(413);
    const dead = await send(`${w.url}/__variant/dead/embed/token`, post(jwt));
    expect([502, 503]).toContain(dead.status);
    expect(((await dead.json()) as { error: { code: string } }).error.code).toMatch(/^upstream_/);
    const limitedJwt = await customer('initech');
    const statuses = [];
    for (let i = 0; i < 7; i++) statuses.push((await send(`${w.url}/__variant/limited/embed/token`, post(limitedJwt))).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
  });

  it('makes exactly one vendor call per new customer for a burst of first visits spread over two isolates', async () => {
    await reset(emu);
    const customers = Array.from({ length: 12 }, (_, i) => `burst-${i}`);
    const jwts = await Promise.all(customers.map(customer));
    const requests = jwts.flatMap((jwt, i) =>
      Array.from({ length: 6 }, (_, k) => ((i + k) % 2 ? send(`${w.url}/embed/token`, post(jwt)) : w.fetchB('/embed/token', post(jwt)))),
    );
    const answers = await Promise.all(requests);
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
    const tokens = await Promise.all(answers.map(async (r) => ((await r.json()) as { token: string }).token));
    for (let i = 0; i < customers.length; i++) expect(new Set(tokens.slice(i * 6, i * 6 + 6)).size).toBe(1);
    expect((await stats(emu)).requests.getOrCreate).toBe(customers.length);
  });

  it('holds a cold burst to the vendor’s limit with the budget (no vendor 429), where without it the vendor refuses', async () => {
    const burst = async (variant: string, vendor: RunningEmulator) => {
      const jwts = await Promise.all(Array.from({ length: 60 }, (_, i) => customer(`${variant}-${i}`)));
      const started = Date.now();
      const answers = await Promise.all(
        jwts.map((jwt, i) => (i % 2 ? send(`${w.url}/__variant/${variant}/embed/token`, post(jwt)) : w.fetchB(`/__variant/${variant}/embed/token`, post(jwt)))),
      );
      const seconds = (Date.now() - started) / 1000;
      return { statuses: answers.map((r) => r.status), refused: answers.filter((r) => r.status === 503), seconds, vendor: await stats(vendor) };
    };
    const held = await burst('budget', limited);
    // The vendor never said 429; each new customer cost at most its one call (a 503 cost none);
    // and the calls stayed within GCRA's bound: the burst (16) plus 0.8 a second since the first.
    expect(held.vendor.rejected.rateLimited).toBe(0);
    expect(held.vendor.requests.getOrCreate).toBe(60 - held.refused.length);
    expect(held.vendor.requests.getOrCreate).toBeLessThanOrEqual(16 + Math.ceil(0.8 * held.seconds));
    expect(held.statuses.filter((s) => s === 200).length).toBeGreaterThan(0);
    // A refusal is 503 with Retry-After, never a 401, a 429 or a 504: an admitted call is answered
    // (its storage kept off a contended disk: with it on one, workerd's fsyncs held vendor answers
    // past their 3 s attempt timer and most admitted calls ended 504).
    expect(held.statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    for (const r of held.refused) expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const flooded = await burst('no-budget', unguarded);
    expect(flooded.vendor.rejected.rateLimited).toBeGreaterThan(0);
  });

  it('refuses at start-up, one line per problem: the user group service API, a missing Durable Object binding, keys of the CLI', async () => {
    await send(`${w.url}/__reports`);
    const jwt = await customer('acme');
    for (const variant of ['user-group-service', 'unset-api', 'no-store']) {
      const res = await send(`${w.url}/__variant/${variant}/embed/token`, post(jwt));
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({ error: { code: 'internal', message: 'the service is not configured', retryable: false } });
    }
    const reports = (await (await send(`${w.url}/__reports`)).json()) as string[];
    expect(reports).toEqual([
      expect.stringMatching(
        /^config: EMBED_UPSTREAM_API must be explo-customer on Workers: the user group service's get-or-create is a GET with a JSON body, which fetch refuses/,
      ),
      'config: EMBED_SESSION_SECRET must be at least 32 bytes (value not shown)',
      expect.stringMatching(/^config: EMBED_UPSTREAM_API must be explo-customer on Workers \(unset means user-group-service\)/),
      expect.stringMatching(/^config: EMBED_PORT is not used on Workers/),
      expect.stringMatching(/^config: EMBED_REDIS_URL is not used on Workers: the Worker's store is the Durable Object binding EMBED_STORE/),
      expect.stringMatching(/^config: EMBED_STORE must be the Durable Object binding of the EmbedStore class/),
    ]);
    expect(reports.join('\n')).not.toContain(SESSION_SECRET);
    // Reported once: the isolate keeps the refusal.
    await send(`${w.url}/__variant/no-store/embed/token`, post(jwt));
    expect(await (await send(`${w.url}/__reports`)).json()).toEqual([]);
  });

  it('loses nothing acknowledged when workerd is killed (SIGKILL) and the Durable Objects start again', { timeout: 60_000 }, async () => {
    const prefix = 'restart:';
    const store = workerdStore((path, init) => send(`${w.url}${path}`, init), prefix);
    const written = await Promise.all(Array.from({ length: 40 }, (_, i) => store.set(`g${i}`, groupEntry(`tok_${i}`), 600_000).then(() => i)));
    const lock = await store.tryLock('rotate:g1', 600_000);
    expect(lock).toBeDefined();
    for (let i = 0; i < 3; i++) await store.hit('rl:session', 600_000);
    // A bucket of 5 that refills one a minute: a fresh object would admit a sixth call at once.
    const budget = { intervalMs: 60_000, burstMs: 300_000, maxLatenessMs: 0 };
    for (let i = 0; i < 5; i++) expect((await store.reserveBudget!('acct', budget)).admitted).toBe(true);
    // Writes still on their way when the process dies: only the acknowledged ones must survive.
    const inFlight = Array.from({ length: 40 }, (_, i) =>
      store.set(`late${i}`, groupEntry(`late_${i}`), 600_000).then(
        () => i,
        () => -1,
      ),
    );
    const [pid] = workerdChildren();
    expect(pid).toBeGreaterThan(0);
    process.kill(pid!, 'SIGKILL');
    const acknowledged = (await Promise.all(inFlight)).filter((i) => i >= 0);
    await w.dispose().catch(() => undefined);

    w = await startWorkerd({ bindings: bindings(), persistDir });
    const again = workerdStore((path, init) => w.fetchB(path, init), prefix);
    for (const i of written) expect((await again.get(`g${i}`))?.token).toBe(`tok_${i}`);
    for (const i of acknowledged) expect((await again.get(`late${i}`))?.token).toBe(`late_${i}`);
    expect(await again.tryLock('rotate:g1', 600_000)).toBeUndefined();
    expect((await again.hit('rl:session', 600_000)).count).toBe(4);
    expect((await again.reserveBudget!('acct', budget)).admitted).toBe(false);
    // And the BFF serves again, with the token it had.
    expect((await send(`${w.url}/embed/token`, post(await customer('acme')))).status).toBe(200);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { UserGroupClient } from '@embedded-dashboard/client';
import { socketBffs } from '../../test/support/socket-bffs.js';
import { createBffApp } from '../app.js';
import { BudgetRefusedError } from '../vendor-budget/upstream-budget.js';
import { CircuitBreaker } from './circuit-breaker.js';
import { createBffMetrics } from '../observability/prometheus.js';
import type { BffAppOptions } from '../options.js';
import { acme, API_TOKEN, captureLogs, findLeaks, record, session } from '../../test/support/fixtures.js';
import { answerWithToken, startHostileVendor, type HostileVendor, type VendorBehaviour } from '../../test/support/hostile-vendor.js';

const outage: VendorBehaviour = (res) => void res.writeHead(503, { 'content-type': 'text/plain' }).end('down for maintenance');
const healthy = answerWithToken('b'.repeat(64));

const bffs = socketBffs();
afterEach(async () => {
  await bffs.closeAll();
  expect(findLeaks()).toEqual([]);
});

/** A BFF on a socket with the real client (default attempts, quick backoff) in front of a vendor the test switches. */
async function bffBehind(overrides: Partial<BffAppOptions> = {}) {
  const vendor = await startHostileVendor(healthy);
  const client = new UserGroupClient({ baseUrl: vendor.url, apiToken: API_TOKEN, backoff: { baseMs: 1, maxMs: 5 } });
  const logs = captureLogs();
  const metrics = createBffMetrics();
  const app = createBffApp({
    upstream: client,
    session: { secret: 'circuit-breaker-test-secret-0123456789abcdef' },
    logger: logs.logger,
    metrics,
    rateLimit: false,
    secrets: [API_TOKEN],
    circuitBreaker: { failureThreshold: 3, openSeconds: 5 },
    ...overrides,
  });
  const url = await bffs.serve(
    app,
    () => client.close(),
    () => vendor.close(),
  );
  const key = new TextEncoder().encode('circuit-breaker-test-secret-0123456789abcdef');
  const ask = async (org: string, properties: Record<string, unknown> = { region: 'EU' }) =>
    record(
      await fetch(`${url}/embed/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${await session({ ...acme, org_id: org, org_name: org, embed_properties: properties }, { key })}`,
        },
        body: '{}',
      }),
    );
  const gauge = async () => (await metrics.registry.getSingleMetricAsString('embed_bff_upstream_circuit_open')).trim().split('\n').at(-1);
  return { vendor, ask, logs, gauge };
}

const vendorCalls = (vendor: HostileVendor) => vendor.calls.GET + vendor.calls.PUT + vendor.calls.POST;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('circuit breaker around the vendor account', () => {
  it('opens after repeated failures: answers 503 with Retry-After without calling the vendor, still serves cached tokens, probes once, closes on success', async () => {
    // The BFF's clock, moved by hand past the open time: nothing here depends on how fast the machine is.
    let clock = Date.now();
    const { vendor, ask, logs, gauge } = await bffBehind({ now: () => clock });
    expect((await ask('cached')).status).toBe(200);

    vendor.behave(outage);
    const before = vendorCalls(vendor);
    for (let i = 0; i < 3; i++) expect((await ask(`new-${i}`)).status).toBe(503);
    // Three calls, each with the client's own attempts, then the breaker opens.
    const whileFailing = vendorCalls(vendor) - before;
    expect(whileFailing).toBe(3 * 4);
    expect(await gauge()).toMatch(/ 1$/);
    expect(logs.lines.filter((l) => l.includes('vendor circuit opened'))).toHaveLength(1);

    const failFast = await Promise.all(Array.from({ length: 20 }, (_, i) => ask(`later-${i}`)));
    for (const res of failFast) {
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ error: { code: 'upstream_unavailable', retryable: true } });
      expect(Number(res.headers.get('retry-after'))).toBe(5);
    }
    expect(vendorCalls(vendor) - before).toBe(whileFailing);
    // A group with a fresh token never needed the vendor, and still does not.
    expect((await ask('cached')).status).toBe(200);

    // Open time over: exactly one probe (one call, its attempts) while the rest still fail fast.
    clock += 5_000;
    const probing = await Promise.all(Array.from({ length: 5 }, (_, i) => ask(`probe-${i}`)));
    expect(probing.every((r) => r.status === 503)).toBe(true);
    expect(vendorCalls(vendor) - before).toBe(whileFailing + 4);

    // The vendor is back; the next probe (after the doubled open time) closes the breaker.
    vendor.behave(healthy);
    clock += 10_000;
    expect((await ask('recovered')).status).toBe(200);
    expect(await gauge()).toMatch(/ 0$/);
    expect(logs.lines.filter((l) => l.includes('vendor circuit closed'))).toHaveLength(1);
    const after = await Promise.all(Array.from({ length: 5 }, (_, i) => ask(`after-${i}`)));
    expect(after.every((r) => r.status === 200)).toBe(true);
  });

  it('serves a token due for revalidation during an outage when the session still says the same, but never after its properties changed', async () => {
    const { vendor, ask } = await bffBehind({ revalidateAfterSeconds: 0.05 });
    const first = await ask('acme');
    expect(first.status).toBe(200);
    vendor.behave(outage);
    await sleep(100);
    const stale = await ask('acme');
    expect(stale.status).toBe(200);
    expect((stale.body as { token: string }).token).toBe((first.body as { token: string }).token);
    // Wider or different properties must reach the vendor first: no token until they can.
    expect((await ask('acme', { region: 'ALL' })).status).toBe(503);
  });

  it('does not count refusals of one request (success: 0) as an outage', async () => {
    const { vendor, ask } = await bffBehind();
    vendor.behave((res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":0}'));
    for (let i = 0; i < 6; i++) expect((await ask(`refused-${i}`)).status).toBe(502);
    const before = vendorCalls(vendor);
    await ask('one-more');
    expect(vendorCalls(vendor)).toBeGreaterThan(before);
  });
});

describe('one failing tenant', () => {
  /** The vendor answers the group `bad` with a token it cannot be (malformed_response, 502), everyone else well. */
  const badTenant: VendorBehaviour = (res, body, req) =>
    body.user_group_id === 'bad'
      ? void res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ success: 1, new_user_group: false, user_group: { team_id: 1, token: 'not a token!', name: 'bad', provided_id: 'bad' } }))
      : healthy(res, body, req);

  it('retrying every second for a minute, leaves every healthy new customer served; its own calls fail fast while its circuit is open, and it probes again later', async () => {
    let clock = Date.now();
    const { vendor, ask, logs } = await bffBehind({ now: () => clock });
    let badCalls = 0;
    vendor.behave((res, body, req) => {
      if (body.user_group_id === 'bad') badCalls++;
      badTenant(res, body, req);
    });
    const bad: number[] = [];
    const healthyStatuses: number[] = [];
    // A quiet minute: the bad customer every second, a new healthy customer every six.
    for (let second = 0; second < 60; second++) {
      bad.push((await ask('bad')).status);
      if (second % 6 === 5) healthyStatuses.push((await ask(`healthy-${second}`)).status);
      clock += 1_000;
    }
    expect(healthyStatuses).toEqual(Array.from({ length: 10 }, () => 200));
    // Three refused answers (threshold 3), then its own circuit: 503 with Retry-After and no vendor call,
    // a probe after 5 s, 10 s, 20 s (doubling): 6 of its 60 requests reached the vendor.
    expect(bad.slice(0, 4)).toEqual([502, 502, 502, 503]);
    expect(new Set(bad)).toEqual(new Set([502, 503]));
    expect(badCalls).toBe(6);
    // Its refused answers are errors; the 54 fail-fast refusals are expected ones (summarised, not one error line each).
    expect(logs.lines.filter((l) => l.includes('"level":"error"') && l.includes('request failed'))).toHaveLength(6);
    expect(logs.lines.filter((l) => l.includes('vendor circuit opened for one customer'))).toHaveLength(1);
    expect(logs.lines.some((l) => l.includes('vendor circuit opened: failing fast'))).toBe(false);
    const fast = await ask('bad');
    expect(fast.status).toBe(503);
    expect(fast.body).toMatchObject({ error: { code: 'upstream_unavailable', retryable: true } });
    expect(Number(fast.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(badCalls).toBe(6);
    // Its answers are fixed at the vendor: once its open time is over, the probe closes its circuit.
    vendor.behave(healthy);
    clock += 60_000;
    expect((await ask('bad')).status).toBe(200);
    expect((await ask('bad')).status).toBe(200);
  });

  it('a real outage still opens the breaker for everyone once failures come from as many customers as the threshold', async () => {
    const { vendor, ask, logs } = await bffBehind();
    vendor.behave(outage);
    for (let i = 0; i < 6; i++) expect((await ask('same-customer')).status).toBe(503);
    expect(logs.lines.some((l) => l.includes('vendor circuit opened: failing fast'))).toBe(false);
    for (let i = 0; i < 2; i++) expect((await ask(`other-${i}`)).status).toBe(503);
    expect(logs.lines.filter((l) => l.includes('vendor circuit opened: failing fast'))).toHaveLength(1);
    const before = vendorCalls(vendor);
    expect((await ask('yet-another')).status).toBe(503);
    expect(vendorCalls(vendor)).toBe(before);
  });
});

describe('circuit breaker and the vendor budget', () => {
  /** A breaker on a hand-moved clock; `down` is an outage failure as the client throws it. */
  function breakerOnClock() {
    const clock = { now: 0 };
    const logs = captureLogs();
    const breaker = new CircuitBreaker({ failureThreshold: 2, openSeconds: 5 }, () => clock.now, logs.logger, createBffMetrics());
    const down = () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'network' }));
    const refused = () => Promise.reject(new BudgetRefusedError('first-token', 2_000));
    const ok = () => Promise.resolve('ok');
    return { clock, breaker, down, refused, ok, logs };
  }

  it('a budget refusal of the half-open probe proves nothing: the breaker stays open and the next call probes', async () => {
    const { clock, breaker, down, refused, ok, logs } = breakerOnClock();
    for (let i = 0; i < 2; i++) await expect(breaker.run(`customer-${i}`, down)).rejects.toMatchObject({ code: 'network' });
    expect(breaker.state).toBe('open');
    clock.now += 5_000;
    await expect(breaker.run('customer-2', refused)).rejects.toBeInstanceOf(BudgetRefusedError);
    expect(breaker.state).toBe('open');
    expect(logs.lines.some((l) => l.includes('vendor circuit closed'))).toBe(false);
    // The vendor is still down: the next call is the probe, and its failure doubles the open time.
    await expect(breaker.run('customer-2', down)).rejects.toMatchObject({ code: 'network' });
    expect(breaker.state).toBe('open');
    clock.now += 5_000;
    await expect(breaker.run('customer-3', ok)).rejects.toMatchObject({ code: 'upstream_unavailable' });
    clock.now += 5_000;
    await expect(breaker.run('customer-3', ok)).resolves.toBe('ok');
    expect(breaker.state).toBe('closed');
  });

  it("a customer's probe that the open account circuit stops never reached the vendor: that customer probes again once the account's circuit lets calls through", async () => {
    const { clock, breaker, down, ok } = breakerOnClock();
    for (let i = 0; i < 2; i++) await expect(breaker.run('bad', down)).rejects.toMatchObject({ code: 'network' });
    await expect(breaker.run('bad', ok)).rejects.toMatchObject({ code: 'upstream_unavailable', message: expect.stringMatching(/for this customer/) });
    expect(breaker.state).toBe('closed');
    clock.now += 3_000;
    await expect(breaker.run('other', down)).rejects.toMatchObject({ code: 'network' });
    expect(breaker.state).toBe('open');
    clock.now += 3_000;
    // The customer's own open time is over, the account's is not.
    await expect(breaker.run('bad', ok)).rejects.toMatchObject({ code: 'upstream_unavailable', message: expect.not.stringMatching(/for this customer/) });
    clock.now += 2_000;
    await expect(breaker.run('bad', ok)).resolves.toBe('ok');
    expect(breaker.state).toBe('closed');
    await expect(breaker.run('bad', ok)).resolves.toBe('ok');
  });

  it('a success between the failures of two customers starts the count of customers failing in a row again', async () => {
    const { breaker, down, ok } = breakerOnClock();
    await expect(breaker.run('a', down)).rejects.toMatchObject({ code: 'network' });
    await expect(breaker.run('c', ok)).resolves.toBe('ok');
    await expect(breaker.run('b', down)).rejects.toMatchObject({ code: 'network' });
    expect(breaker.state).toBe('closed');
    await expect(breaker.run('a', down)).rejects.toMatchObject({ code: 'network' });
    expect(breaker.state).toBe('open');
  });

  it('a budget refusal between outage failures neither resets nor adds to the count of failures in a row', async () => {
    const { breaker, down, refused } = breakerOnClock();
    await expect(breaker.run('customer-0', down)).rejects.toMatchObject({ code: 'network' });
    for (let i = 0; i < 3; i++) await expect(breaker.run('customer-2', refused)).rejects.toBeInstanceOf(BudgetRefusedError);
    expect(breaker.state).toBe('closed');
    await expect(breaker.run('customer-1', down)).rejects.toMatchObject({ code: 'network' });
    expect(breaker.state).toBe('open');
  });
});

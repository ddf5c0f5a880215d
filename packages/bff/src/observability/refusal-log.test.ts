import { describe, expect, it } from 'vitest';
import { createBffApp } from '../app.js';
import { call, FakeUpstream, session, SESSION_SECRET, tokenRequest } from '../../test/support/fixtures.js';
import { createMemoryStore } from '../store/memory.js';
import { createJsonLogger } from './logger.js';
import { createBffMetrics } from './prometheus.js';
import { RefusalLog, REFUSAL_SUMMARY_INTERVAL_MS } from './refusal-log.js';

const parsed = (lines: string[]) => lines.map((l) => JSON.parse(l) as Record<string, unknown>);

describe('requests refused on purpose', () => {
  it('a burst the vendor budget refuses writes no error line and no request line at info: one summary per interval, and a counter', async () => {
    const lines: string[] = [];
    const metrics = createBffMetrics();
    let t = Date.now();
    const app = createBffApp({
      upstream: new FakeUpstream(),
      session: { secret: SESSION_SECRET },
      // The production default: info.
      logger: createJsonLogger({ write: (line) => lines.push(line), level: 'info' }),
      metrics,
      rateLimit: false,
      now: () => t,
      store: createMemoryStore({ now: () => t }),
      upstreamRatePerMinute: 1,
      upstreamBurst: 2,
      upstreamMaxWaitMs: 0,
    });
    // A cold start in small: 100 new customers, each trying three times.
    const jwts = await Promise.all(Array.from({ length: 100 }, (_, i) => session({ org_id: `cold-${i}`, org_name: `Cold ${i}`, embed_properties: {} })));
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 3; attempt++) for (const jwt of jwts) statuses.push((await call(app, '/embed/token', tokenRequest(jwt))).status);
    const refused = statuses.filter((s) => s === 503).length;
    // The burst of 2 admits two customers (served on each of their tries); every other try is refused.
    expect(refused).toBe(300 - 2 * 3);
    expect(new Set(statuses)).toEqual(new Set([200, 503]));
    // Nothing yet: the interval is still being counted.
    expect(lines).toEqual([]);
    t += REFUSAL_SUMMARY_INTERVAL_MS;
    expect((await call(app, '/embed/token', tokenRequest(await session({ org_id: 'late', org_name: 'Late', embed_properties: {} })))).status).toBe(503);
    expect(parsed(lines)).toEqual([
      expect.objectContaining({ level: 'info', msg: 'requests refused on purpose', refused, vendor_budget: refused, seconds: 10 }),
    ]);
    const counted = (await metrics.registry.getSingleMetricAsString('embed_bff_refusals_total')).trim().split('\n').at(-1);
    expect(counted).toBe(`embed_bff_refusals_total{reason="vendor_budget"} ${refused + 1}`);
  });

  it('writes the summary when the interval ends though no refusal follows, and each request line at debug', async () => {
    const lines: string[] = [];
    const logger = createJsonLogger({ write: (line) => lines.push(line), level: 'debug' });
    const log = new RefusalLog(logger, createBffMetrics(), Date.now, 30);
    for (let i = 0; i < 5; i++) log.note('session_rate_limit');
    log.note('customer_circuit');
    expect(lines).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(parsed(lines)).toEqual([expect.objectContaining({ level: 'info', refused: 6, session_rate_limit: 5, customer_circuit: 1 })]);
    log.flush();
    expect(lines).toHaveLength(1);
  });

  it('keeps the session rate limit 429 out of the info lines: its request line at debug', async () => {
    const lines: string[] = [];
    const app = createBffApp({
      upstream: new FakeUpstream(),
      session: { secret: SESSION_SECRET },
      logger: createJsonLogger({ write: (line) => lines.push(line), level: 'debug' }),
      rateLimit: { token: { limit: 1, windowSeconds: 60 } },
    });
    const jwt = await session();
    expect((await call(app, '/embed/token', tokenRequest(jwt))).status).toBe(200);
    const limited = await call(app, '/embed/token', tokenRequest(jwt));
    expect(limited.status).toBe(429);
    const requestLine = parsed(lines).find((l) => l.msg === 'request' && l.status === 429);
    expect(requestLine).toMatchObject({ level: 'debug', code: 'rate_limited' });
    expect(parsed(lines).filter((l) => l.level === 'info' || l.level === 'error')).toEqual([]);
  });
});

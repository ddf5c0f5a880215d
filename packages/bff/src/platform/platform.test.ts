import { describe, expect, it } from 'vitest';
import { createBffApp } from '../app.js';
import { API_TOKEN, call, captureLogs, FakeUpstream, session, SESSION_SECRET } from '../../test/support/fixtures.js';
import * as node from './node.js';
import type { Platform } from './types.js';
import * as web from './web.js';

// Both variants are the same shape (checked by the type-check of this file).
const variants: Record<string, Platform> = { node, web };

describe('the BFF’s platforms (#bff-platform)', () => {
  it('hash exactly alike, so fingerprints and session keys are the same on every runtime', () => {
    for (const text of ['', 'a', '{"mapping":{},"name":"Acme","properties":{"region":"EU"}}', 'grüße ✓ 🦄', '\uD800 lone \uDFFF', 'x'.repeat(100_000)]) {
      for (const encoding of ['hex', 'base64url'] as const) expect(web.sha256(text, encoding)).toBe(node.sha256(text, encoding));
    }
    expect(Object.keys(variants.web!).sort()).toEqual(Object.keys(variants.node!).sort());
  });

  it('keep no metrics on the web, say so for prom-client and the node:http listener, and serve tokens all the same', async () => {
    expect(() => web.createBffMetrics()).toThrow(/createBffMetrics \(prom-client\) needs Node.js/);
    expect(() => web.createBffNodeListener({ fetch: () => new Response() })).toThrow(/needs Node.js/);
    const metrics = web.defaultMetrics();
    const options = { upstream: new FakeUpstream(), session: { secret: SESSION_SECRET }, logger: captureLogs().logger, secrets: [API_TOKEN], metrics };
    expect(() => createBffApp({ ...options, exposeMetrics: true })).toThrow(/exposeMetrics: this runtime keeps no metrics/);
    const app = createBffApp(options);
    const res = await call(app, '/embed/token', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await session()}` },
      body: '{}',
    });
    expect(res.status).toBe(200);
    expect(await metrics.registry.metrics()).toBe('');
  });
});

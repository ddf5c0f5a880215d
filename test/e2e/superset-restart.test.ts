/**
 * Superset stopped and started again, in each engine: a Superset of this file's own (stopping the
 * run's shared one would break the other files), the BFF having Superset mint each guest token
 * with the service account. While Superset is down a customer whose guest token is not cached
 * yet gets the element's error state (a retryable `dashboard-error`, never a 401); once Superset
 * answers again the element's retries reach it by themselves and the dashboard shows that
 * customer's rows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../support/browsers/index.js';
import type { SupersetServer } from '../support/superset.js';
import { eventually, openEngineBrowser } from './harness.js';
import { allProducts, eventsOf, frameOf, productsOf, runSuperset, startSupersetHost, stateOf, waitForTable } from './superset-host.js';

const superset = (await runSuperset({ always: true })) as SupersetServer | undefined;
if (!superset) console.warn('*** SKIPPING test/e2e/superset-restart.test.ts: no Apache Superset (see test/support/superset.ts) ***');
afterAll(() => superset?.dispose());

describe.each(engines())('protocol="superset" while the real Superset restarts, in $name', (engine) => {
  const enabled = engine.available && !!superset;
  let browser: Awaited<ReturnType<typeof openEngineBrowser>>;
  beforeAll(async () => {
    if (enabled) browser = await openEngineBrowser(engine);
  });
  afterAll(() => browser?.close());

  it.skipIf(!enabled)(
    'is the error state while Superset is down, and recovers by itself once it is back',
    async () => {
      const manifest = superset!.manifest;
      const host = await startSupersetHost(manifest, { elements: [{ id: 'globex', customer: 'globex', dashboard: 'sales' }], mint: 'vendor' });
      const context = await browser.newContext();
      let up = true;
      try {
        await host.signIn(context);
        await superset!.stop();
        up = false;
        const tab = await context.newTab();
        await tab.goto(host.url);
        await eventually('the error state', async () => (await stateOf(tab, 'globex')) === 'error', 30_000);
        const [failure] = await eventsOf(tab, 'globex', 'dashboard-error');
        expect(failure!.detail).toMatchObject({ retryable: true });
        expect(host.answers.some((a) => a.status === 401)).toBe(false);
        expect(host.answers.every((a) => a.status >= 500)).toBe(true);

        await superset!.start();
        up = true;
        await eventually('the element ready again, by itself', async () => (await stateOf(tab, 'globex')) === 'ready', 120_000, 500);
        const text = await waitForTable(await frameOf(tab, 'globex'), 'globex after the restart');
        const own = productsOf(manifest, 'globex');
        for (const product of allProducts(manifest)) expect(text.includes(product), `globex shows ${product}`).toBe(own.includes(product));
        expect((await eventsOf(tab, 'globex', 'dashboard-load')).length).toBe(1);
      } finally {
        await context.close();
        await host.close();
        // The next engine's block starts with Superset up.
        if (!up) await superset!.start();
      }
    },
    240_000,
  );
});

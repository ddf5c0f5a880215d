/**
 * Superset stopped and started again, watched by all three engines at once: a Superset of this
 * file's own (stopping the run's shared one would break the other files), the BFF having Superset
 * mint each guest token with the service account. One outage and one restart for every engine
 * (one per engine took ~30 s each): each engine's page, opened while Superset is down, is a
 * customer whose guest token is not cached yet (a host and BFF per engine), so each element gets
 * the error state (a retryable `dashboard-error`, never a 401); once Superset answers again each
 * element's retries reach it by themselves and the dashboard shows that customer's rows. The
 * test server's own stop/start contract (connections refused while stopped; the same address,
 * dashboards and service account after `start()`) is checked on the same restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, type EngineBrowser, type EngineContext, type EngineName, type Tab } from '../support/browsers/index.js';
import type { SupersetManifest, SupersetServer } from '../support/superset.js';
import { eventually, openEngineBrowser } from './harness.js';
import { allProducts, eventsOf, frameOf, productsOf, runSuperset, startSupersetHost, stateOf, waitForTable, type SupersetHost } from './superset-host.js';

const superset = (await runSuperset({ always: true })) as SupersetServer | undefined;
if (!superset) console.warn('*** SKIPPING test/e2e/superset-restart.test.ts: no Apache Superset (see test/support/superset.ts) ***');

/** What one engine watches the outage with. */
interface Watcher {
  browser: EngineBrowser;
  host: SupersetHost;
  context: EngineContext;
  tab?: Tab;
}

const all = engines();
const enabled = (available: boolean) => available && !!superset;
const watchers = new Map<EngineName, Watcher>();
let before: SupersetManifest;
let up = true;

const login = (url: string, manifest: SupersetManifest) =>
  fetch(`${url}/api/v1/security/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: manifest.serviceAccount.username, password: manifest.serviceAccount.password, provider: 'db' }),
  });

describe.skipIf(!superset)('protocol="superset" while the real Superset restarts, in every engine at once', () => {
  beforeAll(async () => {
    before = superset!.manifest;
    expect((await login(superset!.url, before)).status).toBe(200);
    await Promise.all(
      all
        .filter((engine) => enabled(engine.available))
        .map(async (engine) => {
          const [browser, host] = await Promise.all([
            openEngineBrowser(engine),
            startSupersetHost(before, { elements: [{ id: 'globex', customer: 'globex', dashboard: 'sales' }], mint: 'vendor' }),
          ]);
          const context = await browser.newContext();
          watchers.set(engine.name, { browser, host, context });
          await host.signIn(context);
        }),
    );
    await superset!.stop();
    up = false;
    // Every engine's first visit meets the same outage.
    await Promise.all(
      [...watchers.values()].map(async (watcher) => {
        watcher.tab = await watcher.context.newTab();
        await watcher.tab.goto(watcher.host.url);
      }),
    );
  }, 120_000);
  afterAll(async () => {
    for (const watcher of watchers.values()) {
      await watcher.context.close();
      await watcher.browser.close();
      await watcher.host.close();
    }
    await superset?.dispose();
  });

  it('refuses connections while stopped', async () => {
    await expect(fetch(`${superset!.url}/health`)).rejects.toThrow();
  });

  describe.each(all)('in $name, while Superset is down', (engine) => {
    it.skipIf(!enabled(engine.available))('is the error state (retryable, never a 401)', async () => {
      const { tab, host } = watchers.get(engine.name)!;
      await eventually('the error state', async () => (await stateOf(tab!, 'globex')) === 'error', 30_000);
      const [failure] = await eventsOf(tab!, 'globex', 'dashboard-error');
      expect(failure!.detail).toMatchObject({ retryable: true });
      expect(host.answers.length).toBeGreaterThan(0);
      expect(host.answers.some((a) => a.status === 401)).toBe(false);
      expect(host.answers.every((a) => a.status >= 500)).toBe(true);
    });
  });

  it('starts again with the same address, dashboards and service account', async () => {
    await superset!.start();
    up = true;
    expect(superset!.url).toBe(before.url);
    expect(superset!.manifest.dashboards).toEqual(before.dashboards);
    expect((await login(superset!.url, before)).status).toBe(200);
  }, 240_000);

  describe.each(all)('in $name, once Superset is back', (engine) => {
    it.skipIf(!enabled(engine.available))(
      'recovers by itself: the same element shows its customer’s rows',
      async () => {
        expect(up).toBe(true);
        const { tab } = watchers.get(engine.name)!;
        await eventually('the element ready again, by itself', async () => (await stateOf(tab!, 'globex')) === 'ready', 120_000, 500);
        const text = await waitForTable(await frameOf(tab!, 'globex'), 'globex after the restart');
        const own = productsOf(before, 'globex');
        for (const product of allProducts(before)) expect(text.includes(product), `globex shows ${product}`).toBe(own.includes(product));
        expect((await eventsOf(tab!, 'globex', 'dashboard-load')).length).toBe(1);
      },
      180_000,
    );
  });
});

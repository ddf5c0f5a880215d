/**
 * The demo's Superset choice in a real browser: the sign-in with `vendor=superset` lands on
 * `/superset`, whose `<embedded-dashboard protocol="superset">` shows the signed-in customer's rows
 * only: from the emulator's Superset mode (the default, no Superset needed), and from the real
 * Superset when one is installed (the run's, or one started for this file).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { engines } from '../support/browsers/index.js';
import type { SupersetManifest } from '../support/superset.js';
import { eventually, useDemo } from './harness.js';
import { frameText, runSuperset } from './superset-host.js';

const superset = await runSuperset();
afterAll(() => superset?.dispose());
if (!superset) console.warn('*** test/e2e/superset-demo.test.ts: no Apache Superset, the demo is tested on the emulator only ***');

const realSuperset = (manifest: SupersetManifest) => ({
  url: manifest.url,
  dashboard: manifest.dashboards.sales.uuid,
  guestToken: { secret: manifest.guestToken.secret, audience: manifest.guestToken.audience },
});

const PRODUCTS = { acme: ['anvil', 'rocket', 'magnet'], globex: ['reactor', 'turbine'] };

describe.each(engines())('the demo with Apache Superset picked, in $name', (engine) => {
  const run = useDemo(engine);

  for (const kind of ['emulator', 'real'] as const) {
    it.skipIf(!engine.available || (kind === 'real' && !superset))(
      `embeds the ${kind} Superset at /superset, showing Globex its rows only`,
      async () => {
        const demo = await run.startDemo(kind === 'real' ? { superset: realSuperset(superset!.manifest) } : {});
        const tab = await (await run.newContext()).newTab();
        await tab.goto(`${demo.url}/login?customer=globex&vendor=superset`);
        expect(new URL(await tab.url()).pathname).toBe('/superset');
        await eventually(
          'the Superset element ready',
          async () => (await tab.evaluate(() => document.querySelector('embedded-dashboard')?.getAttribute('state'))) === 'ready',
          45_000,
        );
        const frame = await tab.frame((url) => url.includes('/embedded/'), 10_000);
        const text = await eventually(
          'the rows rendered',
          async () => {
            const shown = await frameText(frame);
            return PRODUCTS.globex.every((product) => shown.includes(product)) ? shown : undefined;
          },
          45_000,
        );
        for (const product of PRODUCTS.acme) expect(text).not.toContain(product);
      },
      120_000,
    );
  }
});

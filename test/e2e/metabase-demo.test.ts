/**
 * The demo's Metabase choice in a real browser: the sign-in with `vendor=metabase` lands on
 * `/metabase`, whose `<embedded-dashboard protocol="metabase">` shows the signed-in customer's rows
 * only, from the emulator's Metabase mode, its guest token signed by the demo's BFF.
 */
import { describe, expect, it } from 'vitest';
import { engines } from '../support/browsers/index.js';
import { eventually, useDemo } from './harness.js';
import { answeredView } from './metabase-host.js';

describe.each(engines())('the demo with Metabase picked, in $name', (engine) => {
  const run = useDemo(engine);

  it.skipIf(!engine.available)(
    'embeds the emulator’s Metabase at /metabase, showing Globex its rows only',
    async () => {
      const demo = await run.startDemo();
      const tab = await (await run.newContext()).newTab();
      await tab.goto(`${demo.url}/login?customer=globex&vendor=metabase`);
      expect(new URL(await tab.url()).pathname).toBe('/metabase');
      await eventually(
        'the Metabase element ready',
        async () => (await tab.evaluate(() => document.querySelector('embedded-dashboard')?.getAttribute('state'))) === 'ready',
        30_000,
      );
      const frame = await tab.frame((url) => url.startsWith(`${demo.metabaseUrl}/embed/dashboard/`), 10_000);
      const view = await answeredView(frame, 'the rows rendered');
      expect(view.state).toBe('loaded');
      expect(view.customers.length).toBeGreaterThan(0);
      expect(new Set(view.customers)).toEqual(new Set(['globex']));
      expect(view.products.sort()).toEqual(['reactor', 'turbine']);
    },
    60_000,
  );
});

import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { engines } from '../support/browsers/index.js';
import { openApp, testId, useDemo, waitForReady } from './harness.js';

const SCREENSHOT_DIR = fileURLToPath(new URL('../../test-results/', import.meta.url));
const WIDTHS = [360, 390, 420];

describe.each(engines())('demo in $name on a small screen', (engine) => {
  const run = useDemo(engine, { sharedDemo: true });

  // MiniBrowser's toolbar keeps WebKit's window at least 447 px wide: there the check runs once, at that width.
  const widths = [...new Set(WIDTHS.map((width) => Math.max(width, engine.supports.minViewportWidth)))];
  it.skipIf(!engine.available).each(widths)('at %i px wide nothing overflows sideways and sign-out stays on screen', async (width) => {
    const app = await openApp(await run.newContext({ viewport: { width, height: 844 } }), run.demo, 'acme');
    await waitForReady(app);
    const layout = await app.tab.evaluate(
      (ids) => {
        const root = document.documentElement;
        const wide = [...document.querySelectorAll('body *')]
          .filter((e) => e.getBoundingClientRect().right > root.clientWidth + 0.5)
          .map((e) => `${e.tagName.toLowerCase()}.${e.className}`)
          .slice(0, 5);
        const box = (id: string) => {
          const rect = document.querySelector(id)?.getBoundingClientRect();
          return rect && { left: rect.left, right: rect.right, height: rect.height };
        };
        return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, innerWidth, wide, signOut: box(ids[0]!), customer: box(ids[1]!) };
      },
      [testId('sign-out'), testId('customer-name')],
    );
    expect(layout.innerWidth).toBe(width);
    expect(layout.wide).toEqual([]);
    expect(layout.scrollWidth).toBeLessThanOrEqual(layout.clientWidth);
    expect(layout.signOut).toBeDefined();
    expect(layout.signOut!.left).toBeGreaterThanOrEqual(0);
    expect(layout.signOut!.right).toBeLessThanOrEqual(width);
    expect(layout.customer!.height).toBeGreaterThan(0);
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    await app.tab.screenshot(`${SCREENSHOT_DIR}demo-${engine.name}-${width}.png`);
  });
});

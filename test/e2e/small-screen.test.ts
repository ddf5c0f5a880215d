import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { chromiumTool } from '../support/tools.js';
import { openApp, useChromiumDemo, waitForReady } from './chromium-harness.js';

const tool = chromiumTool();
const SCREENSHOT_DIR = fileURLToPath(new URL('../../test-results/', import.meta.url));

describe.skipIf(!tool.available)('demo on a small screen', () => {
  const chromium = useChromiumDemo(tool.path, { sharedDemo: true });

  it.each([360, 390, 420])('at %i px wide nothing overflows sideways and sign-out stays on screen', async (width) => {
    const context = await chromium.newContext({ viewport: { width, height: 844 }, deviceScaleFactor: 1 });
    const tab = await openApp(context, chromium.demo, 'acme');
    await waitForReady(tab);
    const page = tab.page;
    const overflow = await page.evaluate(() => {
      const root = document.documentElement;
      const wide = [...document.querySelectorAll('body *')]
        .filter((e) => e.getBoundingClientRect().right > root.clientWidth + 0.5)
        .map((e) => `${e.tagName.toLowerCase()}.${e.className}`)
        .slice(0, 5);
      return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, wide };
    });
    expect(overflow.wide).toEqual([]);
    expect(overflow.scrollWidth).toBeLessThanOrEqual(overflow.clientWidth);
    const signOut = await page.getByTestId('sign-out').boundingBox();
    expect(signOut).not.toBeNull();
    expect(signOut!.x).toBeGreaterThanOrEqual(0);
    expect(signOut!.x + signOut!.width).toBeLessThanOrEqual(width);
    expect(await page.getByTestId('customer-name').isVisible()).toBe(true);
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    await page.screenshot({ path: `${SCREENSHOT_DIR}demo-${width}.png` });
  });
});

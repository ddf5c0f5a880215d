/**
 * Chromium for the packaging tests: Debian's browser (mandatory in CI), one per test file, and
 * a page probe that fails with the page's own console errors when the element does not get
 * to `ready`.
 */
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/chromium.js';
import { chromiumTool } from '../support/tools.js';

export const chromium = chromiumTool();

export const openChromium = (): Promise<Browser> => launchChromium(chromium.path);

/** Collects the page's console errors and uncaught exceptions from now on. */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
  return errors;
}

/**
 * Waits until `<embedded-dashboard>` (the first, or the one `selector` names) says
 * `state="ready"` and the dashboard inside its frame shows data.
 */
export async function waitForDashboardReady(page: Page, errors: string[], selector = 'embedded-dashboard', timeoutMs = 30_000): Promise<void> {
  try {
    await page.waitForSelector(`${selector}[state="ready"]`, { timeout: timeoutMs, state: 'attached' });
    const frame = await (await page.$(`${selector} iframe`))?.contentFrame();
    if (!frame) throw new Error('the element has no dashboard frame');
    await frame.waitForSelector('body[data-state="ready"]', { timeout: timeoutMs, state: 'attached' });
  } catch (error) {
    const state = await page
      .locator(selector)
      .first()
      .getAttribute('state')
      .catch(() => null);
    throw new Error(`${(error as Error).message}\nelement state: ${state}\npage errors:\n${errors.join('\n')}`, { cause: error });
  }
}

/** The group name the dashboard in the element's frame shows (the emulator renders it). */
export async function dashboardGroupName(page: Page, selector = 'embedded-dashboard'): Promise<string | null> {
  const frame = await (await page.$(`${selector} iframe`))?.contentFrame();
  return (await frame?.textContent('[data-testid="group-name"]')) ?? null;
}

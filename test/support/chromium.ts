import { chromium, type Browser } from 'playwright-core';

/**
 * The flags this workplace's Chromium needs: no sandbox (root), no GPU, and none of the
 * background traffic that a closed network answers with refusals. Playwright gives every
 * launch a fresh temporary profile (user data dir).
 */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
];

/**
 * How long a launch may take: a fresh profile's first start at load 10+ (CI's global setups
 * start the browsers while Superset boots beside them) took over 30 s in a fresh-clone run, so
 * the bound is one that holds on a loaded two-core machine; a browser that never starts still
 * fails the run, with playwright's message.
 */
const LAUNCH_TIMEOUT_MS = 120_000;

/** Launches Debian's Chromium (never a downloaded browser) through playwright-core. */
export function launchChromium(executablePath: string, extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath, args: [...CHROMIUM_ARGS, ...extraArgs], headless: true, timeout: LAUNCH_TIMEOUT_MS });
}

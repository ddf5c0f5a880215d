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

/** Launches Debian's Chromium (never a downloaded browser) through playwright-core. */
export function launchChromium(executablePath: string, extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath, args: [...CHROMIUM_ARGS, ...extraArgs], headless: true, timeout: 30_000 });
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { startSupersetEmulator, type RunningSupersetEmulator } from '@embedded-dashboard/emulator';
import { launchChromium } from '../support/chromium.js';
import { startLoopbackServer, type LoopbackServer } from '../support/loopback-server.js';
import type { Tool } from '../support/tools.js';

/** What the browser tests of Superset's frame share; set by `beforeAll`, unset without Chromium. */
export interface BrowserHost {
  browser: Browser | undefined;
  /** The host page's URL (`http://127.0.0.1:<port>/`). */
  hostUrl: string;
  emulator: RunningSupersetEmulator | undefined;
}

/**
 * Registers the suite's `beforeAll`/`afterAll`: Chromium, a host page server on 127.0.0.1 port 0
 * answering with `serve`, and the emulator's Superset mode, so the same test runs against it and
 * the real Superset. Nothing starts when Chromium is missing (the tests skip).
 */
export function useBrowserHost(chromium: Tool, serve: (req: IncomingMessage, res: ServerResponse) => void): BrowserHost {
  const state: BrowserHost = { browser: undefined, hostUrl: '', emulator: undefined };
  let host: LoopbackServer | undefined;
  beforeAll(async () => {
    if (!chromium.available) return;
    state.browser = await launchChromium(chromium.path);
    host = await startLoopbackServer((req, res) => serve(req, res));
    state.hostUrl = `${host.url}/`;
    state.emulator = await startSupersetEmulator({ port: 0 });
  }, 60_000);
  afterAll(async () => {
    await state.browser?.close();
    await host?.close();
    await state.emulator?.close();
  });
  return state;
}

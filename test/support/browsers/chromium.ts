import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { chromium as playwrightChromium, type Browser, type BrowserContext, type Frame, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, launchChromium } from '../chromium.js';
import {
  DEFAULT_VIEWPORT,
  poll,
  type EngineBrowser,
  type EngineSupport,
  type EngineContext,
  type FrameRef,
  type LaunchOptions,
  type SentRequest,
  type Tab,
} from './types.js';

/** base64 SHA-256 of a certificate's SubjectPublicKeyInfo (DER), the form Chromium's SPKI list takes. */
export const spkiSha256 = (certificatePem: string): string =>
  createHash('sha256')
    .update(new X509Certificate(certificatePem).publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64');

export const CHROMIUM_SUPPORT: EngineSupport = {
  initScripts: true,
  console: true,
  network: true,
  namedHosts: true,
  navigationStatus: true,
  minViewportWidth: 1,
};

/** Chromium through playwright-core (CDP): everything the interface has. */
export async function launchChromiumEngine(executablePath: string, options: LaunchOptions = {}): Promise<EngineBrowser> {
  const args = [...(options.chromiumArgs ?? [])];
  if (options.namedHosts?.length) args.push(`--host-resolver-rules=${options.namedHosts.map((host) => `MAP ${host} 127.0.0.1`).join(', ')}`);
  if (options.thirdPartyCookies === 'block') args.push('--test-third-party-cookie-phaseout');
  // Chromium accepts a chain holding a certificate with this key (the server sends the CA after
  // its own certificate), for this launch only (a fresh profile); any other CA still fails.
  if (options.trustedCa) args.push(`--ignore-certificate-errors-spki-list=${spkiSha256(readFileSync(options.trustedCa, 'utf8'))}`);
  return chromiumEngine(await launchChromium(executablePath, args), options);
}

/**
 * A Chromium of default launch options that many test files connect to (`connectChromiumEngine`)
 * instead of launching their own, until `close()` (test/e2e/global-setup.ts).
 */
export async function serveChromium(executablePath: string): Promise<{ endpoint: string; close(): Promise<void> }> {
  const server = await playwrightChromium.launchServer({ executablePath, args: CHROMIUM_ARGS, headless: true, timeout: 30_000 });
  return { endpoint: server.wsEndpoint(), close: () => server.close() };
}

/** The Chromium of `serveChromium`: its `close()` closes this connection's contexts and leaves the browser running. */
export async function connectChromiumEngine(endpoint: string): Promise<EngineBrowser> {
  return chromiumEngine(await playwrightChromium.connect(endpoint, { timeout: 30_000 }), {});
}

function chromiumEngine(browser: Browser, options: LaunchOptions): EngineBrowser {
  const contexts = new Set<BrowserContext>();
  return {
    engine: 'chromium',
    version: browser.version(),
    supports: CHROMIUM_SUPPORT,
    async newContext(contextOptions = {}) {
      const context = await browser.newContext({
        viewport: contextOptions.viewport ?? DEFAULT_VIEWPORT,
        ignoreHTTPSErrors: options.acceptInsecureCerts ?? false,
      });
      contexts.add(context);
      return chromiumContext(context, () => contexts.delete(context));
    },
    async close() {
      await browser.close();
    },
  };
}

function chromiumContext(context: BrowserContext, forget: () => void): EngineContext {
  return {
    async newTab() {
      return chromiumTab(await context.newPage());
    },
    async cookies(url) {
      return (await context.cookies(url)).map(({ name, value, domain, path, httpOnly, secure, sameSite }) => ({
        name,
        value,
        domain,
        path,
        httpOnly,
        secure,
        sameSite,
      }));
    },
    async setCookie(url, name, value, attributes = {}) {
      await context.addCookies([{ name, value, url, ...attributes }]);
    },
    async addInitScript(fn, arg) {
      await context.addInitScript(fn as (arg: unknown) => unknown, arg);
    },
    async close() {
      forget();
      await context.close();
    },
  };
}

const frameRef = (frame: Frame): FrameRef => ({
  url: async () => frame.url(),
  evaluate: (fn, arg) => frame.evaluate(fn, arg as never) as never,
  evaluateScript: async (source) => void (await frame.evaluate(source)),
  click: (selector) => frame.click(selector),
});

function chromiumTab(page: Page): Tab {
  const consoleMessages: string[] = [];
  const requests: SentRequest[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') consoleMessages.push(`${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => consoleMessages.push(`pageerror: ${error.message}`));
  page.on('request', (request) => {
    requests.push({
      url: request.url(),
      method: request.method(),
      resourceType: request.resourceType(),
      mainFrame: request.isNavigationRequest() && request.frame() === page.mainFrame(),
      at: Date.now(),
      status: async () => (await request.response())?.status() ?? 0,
    });
  });
  const children = () => page.frames().filter((frame) => frame.parentFrame() === page.mainFrame());
  const tab: Tab = {
    consoleMessages,
    requests,
    async goto(url) {
      return (await page.goto(url, { waitUntil: 'load' }))?.status() ?? 0;
    },
    url: async () => page.url(),
    evaluate: (fn, arg) => page.evaluate(fn, arg as never) as never,
    evaluateScript: async (source) => void (await page.evaluate(source)),
    click: (selector) => page.click(selector),
    frames: async () => children().map(frameRef),
    frame: async (match, timeoutMs = 20_000) => frameRef(await poll('a matching frame', () => children().find((frame) => match(frame.url())), timeoutMs)),
    press: (key) => page.keyboard.press(key),
    setViewport: (viewport) => page.setViewportSize(viewport),
    async screenshot(path) {
      await page.screenshot({ path });
    },
    bringToFront: () => page.bringToFront(),
    close: () => page.close(),
  };
  return tab;
}

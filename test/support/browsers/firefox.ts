import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import puppeteer, { type Browser, type BrowserContext, type Frame, type HTTPRequest, type Page } from 'puppeteer-core';
import { certutilTool } from '../tools.js';
import { cookieMatches } from './cookies.js';
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
  type Viewport,
} from './types.js';

export const FIREFOX_SUPPORT: EngineSupport = {
  initScripts: true,
  console: true,
  network: true,
  namedHosts: true,
  navigationStatus: true,
  minViewportWidth: 1,
};

/**
 * Firefox ESR through puppeteer-core over WebDriver BiDi (puppeteer's standard Firefox path
 * since it dropped CDP for Firefox); a fresh temporary profile per launch, contexts are BiDi
 * user contexts.
 */
export async function launchFirefoxEngine(executablePath: string, options: LaunchOptions = {}): Promise<EngineBrowser> {
  const { browser, profile } = await launchFirefox(executablePath, options);
  return firefoxEngine(browser, await browser.version(), async () => {
    await browser.close();
    if (profile) await rm(profile, { recursive: true, force: true });
  });
}

/**
 * A Firefox of default launch options that many test files connect to, one at a time
 * (`connectFirefoxEngine`; Firefox's remote agent holds one WebDriver BiDi session), instead of
 * launching their own (seconds each), until `close()` (test/e2e/global-setup.ts).
 */
export async function serveFirefox(executablePath: string): Promise<{ endpoint: string; close(): Promise<void> }> {
  const { browser } = await launchFirefox(executablePath, {});
  const endpoint = browser.wsEndpoint();
  const child = browser.process();
  // Ends the launch's own session: the next client starts its own on the same endpoint.
  await browser.disconnect();
  return {
    endpoint,
    async close() {
      // Connected again to close it: puppeteer's launcher then removes its temporary profile.
      const again = await puppeteer.connect({ browserWSEndpoint: endpoint, protocol: 'webDriverBiDi', protocolTimeout: 15_000 }).catch(() => undefined);
      if (again) await again.close().catch(() => undefined);
      if (child && child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

/**
 * The Firefox of `serveFirefox`: its `close()` closes this connection's contexts and ends its
 * session, leaving the browser running. Rejects when the browser's agent refuses this connection's
 * session (its one session is taken) or starts none within `sessionTimeoutMs` (seen once at load 9:
 * `session.new` unanswered for 60 s); the caller then launches a Firefox of its own.
 */
export async function connectFirefoxEngine(endpoint: string, sessionTimeoutMs = 30_000): Promise<EngineBrowser> {
  const connecting = puppeteer.connect({ browserWSEndpoint: endpoint, protocol: 'webDriverBiDi', protocolTimeout: 60_000 });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the shared Firefox started no session within ${sessionTimeoutMs} ms`)), sessionTimeoutMs);
  });
  const browser = await Promise.race([connecting, timedOut])
    .catch((error: unknown) => {
      // A session that starts after all is ended at once, leaving the browser to the next client.
      connecting
        .then(
          (late) => late.disconnect(),
          () => undefined,
        )
        .catch(() => undefined);
      throw error;
    })
    .finally(() => clearTimeout(timer));
  const contexts: BrowserContext[] = [];
  return firefoxEngine(
    browser,
    await browser.version(),
    async () => {
      for (const context of contexts.splice(0)) await context.close().catch(() => undefined);
      await browser.disconnect();
    },
    (context) => contexts.push(context),
  );
}

async function launchFirefox(executablePath: string, options: LaunchOptions): Promise<{ browser: Browser; profile: string | undefined }> {
  const prefs: Record<string, unknown> = {
    // A closed network: no update checks, telemetry or remote settings to be refused.
    'app.update.enabled': false,
    'browser.safebrowsing.malware.enabled': false,
    'browser.safebrowsing.phishing.enabled': false,
    'datareporting.policy.dataSubmissionEnabled': false,
    'network.captive-portal-service.enabled': false,
    'network.connectivity-service.enabled': false,
    ...options.firefoxPrefs,
  };
  if (options.namedHosts?.length) prefs['network.dns.localDomains'] = options.namedHosts.join(',');
  // 1: refuse third-party cookies; 0: accept all; Firefox ESR's own default is 5 (partitioned).
  if (options.thirdPartyCookies) prefs['network.cookie.cookieBehavior'] = options.thirdPartyCookies === 'block' ? 1 : 0;
  // A CA to trust goes in the NSS database of a profile of our own (puppeteer makes one otherwise).
  const profile = options.trustedCa ? await profileTrusting(options.trustedCa) : undefined;
  const browser = await puppeteer
    .launch({
      browser: 'firefox',
      executablePath,
      headless: true,
      acceptInsecureCerts: options.acceptInsecureCerts ?? false,
      extraPrefsFirefox: prefs,
      userDataDir: profile,
      // As for Chromium (test/support/chromium.ts): a bound that holds at load 10+ on two cores.
      timeout: 120_000,
    })
    .catch(async (error: unknown) => {
      if (profile) await rm(profile, { recursive: true, force: true });
      throw error;
    });
  return { browser, profile };
}

function firefoxEngine(browser: Browser, version: string, close: () => Promise<void>, created?: (context: BrowserContext) => void): EngineBrowser {
  return {
    engine: 'firefox',
    version,
    supports: FIREFOX_SUPPORT,
    async newContext(contextOptions = {}) {
      const context = await browser.createBrowserContext();
      created?.(context);
      return firefoxContext(context, contextOptions.viewport ?? DEFAULT_VIEWPORT);
    },
    close,
  };
}

/** A fresh profile directory whose certificate database trusts the CA in `caPem` to identify servers. */
async function profileTrusting(caPem: string): Promise<string> {
  const certutil = certutilTool();
  if (!certutil.available) throw new Error('trusting a CA in Firefox needs certutil (apt-get install -y libnss3-tools)');
  const profile = await mkdtemp(join(tmpdir(), 'e2e-firefox-'));
  const run = (...args: string[]) => promisify(execFile)(certutil.path, ['-d', `sql:${profile}`, ...args], { timeout: 30_000 });
  try {
    await run('-N', '--empty-password');
    await run('-A', '-n', 'embedded-dashboard test CA', '-t', 'C,,', '-i', caPem);
  } catch (error) {
    await rm(profile, { recursive: true, force: true });
    throw error;
  }
  return profile;
}

function firefoxContext(context: BrowserContext, viewport: Viewport): EngineContext {
  const initScripts: string[] = [];
  const pages: Page[] = [];
  return {
    async newTab() {
      // A window of its own: a tab opened beside another hides it (visibilityState hidden:
      // timers throttled, no animation frames), as a viewer's other tab does.
      const page = await context.newPage({ type: 'window' });
      pages.push(page);
      await page.setViewport(viewport);
      for (const source of initScripts) await page.evaluateOnNewDocument(source);
      return firefoxTab(page);
    },
    async cookies(url) {
      return (await context.cookies())
        .filter((cookie) => cookieMatches(cookie, url))
        .map(({ name, value, domain, path, httpOnly, secure, sameSite }) => ({ name, value, domain, path, httpOnly: httpOnly ?? false, secure, sameSite }));
    },
    async setCookie(url, name, value, attributes = {}) {
      await context.setCookie({ name, value, domain: new URL(url).hostname, path: '/', ...attributes });
    },
    async addInitScript(fn, arg) {
      const source = `(${fn.toString()})(${JSON.stringify(arg)})`;
      initScripts.push(source);
      for (const page of pages) if (!page.isClosed()) await page.evaluateOnNewDocument(source);
    },
    close: () => context.close(),
  };
}

const frameRef = (frame: Frame): FrameRef => ({
  url: async () => frame.url(),
  evaluate: (fn, arg) => frame.evaluate(fn as never, arg as never),
  evaluateScript: async (source) => void (await frame.evaluate(source)),
  click: (selector) => frame.click(selector),
});

function firefoxTab(page: Page): Tab {
  const consoleMessages: string[] = [];
  const requests: SentRequest[] = [];
  const answered = new Map<HTTPRequest, (status: number) => void>();
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warn') consoleMessages.push(`${message.type() === 'warn' ? 'warning' : 'error'}: ${message.text()}`);
  });
  page.on('pageerror', (error) => consoleMessages.push(`pageerror: ${error instanceof Error ? error.message : String(error)}`));
  page.on('request', (request) => {
    const status = new Promise<number>((resolve) => answered.set(request, resolve));
    requests.push({
      url: request.url(),
      method: request.method(),
      // BiDi has no resource type (puppeteer throws UnsupportedOperation): navigations are known.
      resourceType: request.isNavigationRequest() ? 'document' : 'other',
      mainFrame: request.isNavigationRequest() && request.frame() === page.mainFrame(),
      at: Date.now(),
      status: () => status,
    });
  });
  const settle = (request: HTTPRequest, status: number) => {
    answered.get(request)?.(status);
    answered.delete(request);
  };
  page.on('response', (response) => settle(response.request(), response.status()));
  page.on('requestfailed', (request) => settle(request, 0));
  const children = () => page.mainFrame().childFrames();
  return {
    consoleMessages,
    requests,
    async goto(url) {
      return (await page.goto(url, { waitUntil: 'load' }))?.status() ?? 0;
    },
    url: async () => page.url(),
    evaluate: (fn, arg) => page.evaluate(fn as never, arg as never),
    evaluateScript: async (source) => void (await page.evaluate(source)),
    click: (selector) => page.click(selector),
    frames: async () => children().map(frameRef),
    frame: async (match, timeoutMs = 20_000) => frameRef(await poll('a matching frame', () => children().find((frame) => match(frame.url())), timeoutMs)),
    press: (key) => page.keyboard.press(key),
    setViewport: (size) => page.setViewport(size),
    async screenshot(path) {
      await page.screenshot({ path });
    },
    bringToFront: () => page.bringToFront(),
    close: () => page.close(),
  };
}

/**
 * Helpers of the real-browser end-to-end tests: the run's shared Chromium (or one per block), one demo (host app +
 * BFF + emulator, in process, on free ports) per scenario, and probes into the page and the
 * cross-origin dashboard frame. Every wait is bounded.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Frame, type Page, type Request } from 'playwright-core';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startDemo, type RunningDemo, type StartDemoOptions } from '../../demo/server/start-demo.js';
import { launchChromium } from '../support/chromium.js';
import { sharedBrowserEndpoint } from './harness.js';

export const PUBLIC_DIR = fileURLToPath(new URL('../../demo/dist/public/', import.meta.url));

/**
 * How often the dashboards re-read their data in these tests: a dead token is noticed within
 * this, so expiry scenarios take seconds instead of the emulator's default 15 s.
 */
export const DASHBOARD_REFRESH_SECONDS = 1;

/** Starts a demo for one scenario; the pages must have been built (`npm run build`). */
export async function startTestDemo(options: StartDemoOptions = {}): Promise<RunningDemo> {
  if (!existsSync(`${PUBLIC_DIR}app.html`)) throw new Error(`${PUBLIC_DIR} has no built pages: run "npm run build" before the e2e tests`);
  return startDemo({ port: 0, publicDir: PUBLIC_DIR, dashboardRefreshSeconds: DASHBOARD_REFRESH_SECONDS, ...options });
}

/**
 * A Chromium for a block: the run's shared one when the e2e project serves it (connected; its
 * `close()` closes this client's contexts and leaves the browser running), else one launched.
 */
export function openBrowser(path: string): Promise<Browser> {
  const endpoint = sharedBrowserEndpoint('chromium');
  return endpoint ? chromium.connect(endpoint, { timeout: 30_000 }) : launchChromium(path);
}

/** A session JWT (HS256 with `secret`) for a BFF of the test's own: Acme Corp, region EU, valid 10 minutes. */
export async function signAcmeSession(secret: string, orgId = 'acme', orgName = 'Acme Corp'): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ org_id: orgId, org_name: orgName, embed_properties: { region: 'EU' }, exp: now + 600 })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt(now)
    .sign(new TextEncoder().encode(secret));
}

/** What a describe block of demo tests gets from `useChromiumDemo`. */
export interface ChromiumDemo {
  /** The block's Chromium, launched once before its tests. */
  readonly browser: Browser;
  /** The block's demo, started once before its tests (only with `sharedDemo`). */
  readonly demo: RunningDemo;
  /** Starts a demo for the current test alone; it is closed after the test. */
  startDemo(options?: StartDemoOptions): Promise<RunningDemo>;
  /** A browser context for the current test alone; it is closed after the test, before the test's demos. */
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
}

/**
 * The setup of one describe block of demo tests in Chromium (call it inside the block): one
 * Chromium for the block, a demo shared by its tests (`sharedDemo`) and/or demos of their own,
 * and browser contexts, each closed when its test or the block is over, even a failed one.
 */
export function useChromiumDemo(chromiumPath: string, { sharedDemo = false }: { sharedDemo?: boolean } = {}): ChromiumDemo {
  let browser: Browser | undefined;
  let shared: RunningDemo | undefined;
  const contexts: BrowserContext[] = [];
  const demos: RunningDemo[] = [];
  beforeAll(async () => {
    browser = await openBrowser(chromiumPath);
    if (sharedDemo) shared = await startTestDemo();
  });
  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
    for (const demo of demos.splice(0)) await demo.close();
  });
  afterAll(async () => {
    await browser?.close();
    await shared?.close();
  });
  const setup: ChromiumDemo = {
    get browser() {
      if (!browser) throw new Error('Chromium is not running: use it inside a test');
      return browser;
    },
    get demo() {
      if (!shared)
        throw new Error(sharedDemo ? 'the shared demo is not running: use it inside a test' : 'useChromiumDemo(…, { sharedDemo: true }) starts a shared demo');
      return shared;
    },
    async startDemo(options) {
      const demo = await startTestDemo(options);
      demos.push(demo);
      return demo;
    },
    async newContext(options) {
      const context = await setup.browser.newContext(options);
      contexts.push(context);
      return context;
    },
  };
  return setup;
}

/** What one element event looked like, as recorded in the page. */
export interface RecordedEvent {
  type: string;
  detail: Record<string, unknown>;
  at: number;
}

declare global {
  interface Window {
    __dashboardEvents?: RecordedEvent[];
  }
}

const EVENT_NAMES = ['dashboard-load', 'dashboard-token', 'dashboard-error', 'dashboard-resize', 'dashboard-variable-change'];

/** A signed-in tab of the demo's `/app`, with its recorders. */
export interface AppTab {
  page: Page;
  /** Every `framenavigated` of the dashboard iframe (the first load counts one). */
  frameNavigations: string[];
  /** Every request to the BFF's token routes, in order. */
  tokenRequests: Request[];
  /** When each of `tokenRequests` was sent (`Date.now()` in the test), same order. */
  tokenRequestTimes: number[];
  /** The dashboard iframe's frame (cross-origin; Playwright reaches it anyway). */
  frame(): Frame;
  events(type?: string): Promise<RecordedEvent[]>;
  /** The element's `state` attribute. */
  state(): Promise<string | null>;
  /** The dashboard page's `<body data-state>` and `data-token-generation`. */
  dashboard(): Promise<{ state: string | undefined; generation: number }>;
}

const isDashboardFrame = (frame: Frame) => frame.url().includes('/iframe/');

/** Opens `/app` in `context` (signing in as `customer` first unless `signIn` is false). */
export async function openApp(context: BrowserContext, demo: RunningDemo, customer: string, signIn = true): Promise<AppTab> {
  const page = await context.newPage();
  const frameNavigations: string[] = [];
  const tokenRequests: Request[] = [];
  const tokenRequestTimes: number[] = [];
  page.on('framenavigated', (frame) => {
    if (frame !== page.mainFrame() && isDashboardFrame(frame)) frameNavigations.push(frame.url());
  });
  page.on('request', (request) => {
    if (new URL(request.url()).pathname.startsWith('/embed/token')) {
      tokenRequests.push(request);
      tokenRequestTimes.push(Date.now());
    }
  });
  await page.addInitScript((names: string[]) => {
    window.__dashboardEvents = [];
    for (const type of names) {
      document.addEventListener(type, (event) => {
        window.__dashboardEvents?.push({ type, detail: { ...(event as CustomEvent).detail }, at: Date.now() });
      });
    }
  }, EVENT_NAMES);
  await page.goto(signIn ? `${demo.url}/login?customer=${customer}` : `${demo.url}/app`);
  const tab: AppTab = {
    page,
    frameNavigations,
    tokenRequests,
    tokenRequestTimes,
    frame() {
      const frame = page.frames().find(isDashboardFrame);
      if (!frame) throw new Error('the dashboard iframe is not there');
      return frame;
    },
    events: async (type) => (await page.evaluate(() => window.__dashboardEvents ?? [])).filter((e) => !type || e.type === type),
    state: () => page.locator('embedded-dashboard').getAttribute('state'),
    async dashboard() {
      return tab.frame().evaluate(() => ({ state: document.body.dataset.state, generation: Number(document.body.dataset.tokenGeneration) }));
    },
  };
  return tab;
}

/** Polls `probe` until it returns a truthy value, or throws after `timeoutMs` with `what`. */
export async function eventually<T>(what: string, probe: () => Promise<T> | T, timeoutMs = 20_000, everyMs = 100): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
      last = value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${String(last)})`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Waits until the element is `ready` and its dashboard shows data. */
export async function waitForReady(tab: AppTab, timeoutMs = 20_000): Promise<void> {
  await eventually('the element to be ready', async () => (await tab.state()) === 'ready', timeoutMs);
  await eventually('the dashboard to show data', async () => (await tab.dashboard()).state === 'ready', timeoutMs);
}

/** Waits until the dashboard runs on token generation `generation` and shows data. */
export async function waitForGeneration(tab: AppTab, generation: number, timeoutMs = 20_000): Promise<void> {
  await eventually(
    `the dashboard to show data on token generation ${generation}`,
    async () => {
      const dashboard = await tab.dashboard();
      return dashboard.generation === generation && dashboard.state === 'ready';
    },
    timeoutMs,
  );
  await waitForReady(tab, timeoutMs);
}

/** The HTTP statuses of the tab's token requests from index `from` on, once answered (`0`: no answer, e.g. aborted). */
export const tokenStatuses = (tab: AppTab, from = 0): Promise<number[]> =>
  Promise.all(tab.tokenRequests.slice(from).map(async (request) => (await request.response())?.status() ?? 0));

/** The token in the body of the tab's latest successful `/embed/token*` answer. */
export async function latestToken(tab: AppTab): Promise<string> {
  for (const request of [...tab.tokenRequests].reverse()) {
    const response = await request.response();
    if (response?.status() === 200) return ((await response.json()) as { token: string }).token;
  }
  throw new Error('no successful token response yet');
}

export interface FrameWatch {
  /** Animation frames sampled, and how many of them had no dashboard content. */
  report(): Promise<{ frames: number; blank: number; states: string[] }>;
}

/**
 * Watches the dashboard frame from inside: on every animation frame, is the dashboard's
 * content (the group name) there and visible? And which `data-state`s did the body go through?
 */
export async function watchDashboardFrame(frame: Frame): Promise<FrameWatch> {
  await frame.evaluate(() => {
    const probe = { frames: 0, blank: 0, states: [document.body.dataset.state ?? ''] };
    (window as unknown as { __probe: typeof probe }).__probe = probe;
    const tick = () => {
      probe.frames += 1;
      const name = document.querySelector<HTMLElement>('[data-testid="group-name"]');
      if (!name || name.offsetHeight === 0 || !name.textContent) probe.blank += 1;
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    new MutationObserver(() => probe.states.push(document.body.dataset.state ?? '')).observe(document.body, {
      attributes: true,
      attributeFilter: ['data-state'],
    });
  });
  return {
    report: () => frame.evaluate(() => ({ ...(window as unknown as { __probe: { frames: number; blank: number; states: string[] } }).__probe })),
  };
}

/** Posts a message to the host page from inside the dashboard frame, as the dashboard itself would. */
export function postFromDashboard(frame: Frame, hostOrigin: string, message: unknown): Promise<void> {
  return frame.evaluate(([origin, data]) => window.parent.postMessage(data, origin), [hostOrigin, message] as const);
}

/** The iframe's rendered height inside the element, in CSS px. */
export async function iframeHeight(page: Page): Promise<number> {
  const box = await page.locator('embedded-dashboard iframe').boundingBox();
  if (!box) throw new Error('the iframe has no box');
  return Math.round(box.height);
}

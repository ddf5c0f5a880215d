/**
 * Helpers of the real-browser end-to-end scenarios, written once for every engine
 * (test/support/browsers): the run's one browser per engine and worker slot (./global-setup.ts;
 * WebKit's per block), a demo (host app + BFF +
 * emulator, in process, on free ports) per scenario or shared by a block, and probes into the
 * page (./page-probe.ts) and the cross-origin dashboard frame. Every wait is bounded.
 *
 * ```ts
 * describe.each(engines())('demo in $name: …', (engine) => {
 *   const run = useDemo(engine);
 *   it.skipIf(!engine.available)('…', async () => {
 *     const acme = await openApp(await run.newContext(), await run.startDemo(), 'acme');
 *     await waitForReady(acme);
 *   });
 * });
 * ```
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import { afterAll, afterEach, beforeAll, inject } from 'vitest';
import { startDemo, type RunningDemo, type StartDemoOptions } from '../../demo/server/start-demo.js';
import {
  poll,
  type ContextOptions,
  type Engine,
  type EngineBrowser,
  type EngineContext,
  type EngineName,
  type FrameRef,
  type LaunchOptions,
  type Tab,
} from '../support/browsers/index.js';
import { PAGE_PROBE_TAG, type FrameMessage, type RecordedEvent, type TokenRequest } from './page-probe.js';

export type { FrameMessage, RecordedEvent, TokenRequest } from './page-probe.js';
export { PIN_JITTER_COOKIE } from './page-probe.js';

export const PUBLIC_DIR = fileURLToPath(new URL('../../demo/dist/public/', import.meta.url));

/**
 * How often the dashboards re-read their data in these tests: a dead token is noticed within
 * this, so expiry scenarios take seconds instead of the emulator's default 15 s.
 */
export const DASHBOARD_REFRESH_SECONDS = 1;

/** Polls `probe` until it returns a truthy value, or throws after `timeoutMs` with `what`. */
export const eventually = poll;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let probedPages: string | undefined;

/**
 * A copy of the built demo pages with the page probe first in each `<head>`, made once per test
 * file and removed after its last test (a vitest worker is stopped without an `exit` event, so
 * the exit handler alone left one copy in the temp directory per file and run).
 */
function probedPublicDir(): string {
  if (probedPages) return probedPages;
  if (!existsSync(`${PUBLIC_DIR}app.html`)) throw new Error(`${PUBLIC_DIR} has no built pages: run "npm run build" before the e2e tests`);
  const dir = mkdtempSync(join(tmpdir(), 'e2e-demo-pages-'));
  cpSync(PUBLIC_DIR, dir, { recursive: true });
  for (const name of readdirSync(dir).filter((file) => file.endsWith('.html'))) {
    const html = readFileSync(join(dir, name), 'utf8');
    if (!html.includes('<head>')) throw new Error(`${name} has no <head> to put the probe in`);
    writeFileSync(join(dir, name), html.replace('<head>', `<head>${PAGE_PROBE_TAG}`));
  }
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return (probedPages = `${dir}/`);
}
afterAll(() => {
  if (probedPages) rmSync(probedPages, { recursive: true, force: true });
  probedPages = undefined;
});

/** Starts a demo for one scenario on the probed copy of the built pages (`npm run build` first). */
export function startTestDemo(options: StartDemoOptions = {}): Promise<RunningDemo> {
  return startDemo({ port: 0, publicDir: probedPublicDir(), dashboardRefreshSeconds: DASHBOARD_REFRESH_SECONDS, ...options });
}

/** A session JWT (HS256 with `secret`) for a BFF of the test's own: Acme Corp, region EU, valid 10 minutes. */
export async function signAcmeSession(secret: string, orgId = 'acme', orgName = 'Acme Corp'): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ org_id: orgId, org_name: orgName, embed_properties: { region: 'EU' }, exp: now + 600 })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt(now)
    .sign(new TextEncoder().encode(secret));
}

/**
 * The endpoint of the run's shared browser of `engine` for this test file's worker slot
 * (./global-setup.ts serves one per slot, or one for all), or undefined where none is served
 * (outside the e2e project, e.g. test/topology, nothing is provided).
 */
export function sharedBrowserEndpoint(engine: EngineName): string | undefined {
  const endpoints = (inject('e2eBrowsers') as Partial<Record<EngineName, string[]>> | undefined)?.[engine];
  if (!endpoints?.length) return undefined;
  // VITEST_POOL_ID: 1…maxWorkers, never the same for two files running at once.
  const slot = Math.max(1, Number(process.env.VITEST_POOL_ID) || 1);
  return endpoints[(slot - 1) % endpoints.length];
}

/**
 * A browser of `engine` for a block of tests: the run's shared one (./global-setup.ts) when the
 * block needs no launch options of its own and the engine has one, else one launched for it.
 * Either way `close()` when the block is over (a shared browser stays running for other files).
 */
export function openEngineBrowser(engine: Engine, launch?: LaunchOptions): Promise<EngineBrowser> {
  const endpoint = launch || !engine.connect ? undefined : sharedBrowserEndpoint(engine.name);
  return endpoint ? engine.connect!(endpoint) : engine.launch(launch);
}

/** What a describe block of demo tests gets from `useDemo`. */
export interface EngineRun {
  /** The block's browser: the run's shared one, or its own launched before its tests (`openEngineBrowser`). */
  readonly browser: EngineBrowser;
  /** The block's demo, started once before its tests (only with `sharedDemo`). */
  readonly demo: RunningDemo;
  /** Starts a demo for the current test alone; it is closed after the test. */
  startDemo(options?: StartDemoOptions): Promise<RunningDemo>;
  /** A browser context for the current test alone; it is closed after the test, before the test's demos. */
  newContext(options?: ContextOptions): Promise<EngineContext>;
}

/**
 * The setup of one describe block of demo tests in `engine` (call it inside the block): the
 * engine's browser (`openEngineBrowser`), a demo shared by its tests (`sharedDemo`) and/or demos of their own,
 * and browser contexts, each closed when its test or the block is over, even a failed one.
 * Nothing is launched when the engine is not available (its tests are skipped, or fail in CI).
 */
export function useDemo(engine: Engine, { sharedDemo = false, launch }: { sharedDemo?: boolean; launch?: LaunchOptions } = {}): EngineRun {
  let browser: EngineBrowser | undefined;
  let shared: RunningDemo | undefined;
  const contexts: EngineContext[] = [];
  const demos: RunningDemo[] = [];
  beforeAll(async () => {
    if (!engine.available) return;
    [browser, shared] = await Promise.all([openEngineBrowser(engine, launch), sharedDemo ? startTestDemo() : undefined]);
  });
  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
    for (const demo of demos.splice(0)) await demo.close();
  });
  afterAll(async () => {
    await browser?.close();
    await shared?.close();
  });
  const run: EngineRun = {
    get browser() {
      if (!browser) throw new Error(`${engine.name} is not running: use it inside a test`);
      return browser;
    },
    get demo() {
      if (!shared)
        throw new Error(sharedDemo ? 'the shared demo is not running: use it inside a test' : 'useDemo(…, { sharedDemo: true }) starts a shared demo');
      return shared;
    },
    async startDemo(options) {
      const demo = await startTestDemo(options);
      demos.push(demo);
      return demo;
    },
    async newContext(options) {
      const context = await run.browser.newContext(options);
      contexts.push(context);
      return context;
    },
  };
  return run;
}

/** A CSS selector for `data-testid`. */
export const testId = (id: string) => `[data-testid="${id}"]`;

/** A signed-in tab of the demo's `/app`, and what its probe recorded. */
export interface AppTab {
  tab: Tab;
  context: EngineContext;
  demo: RunningDemo;
  /** The dashboard iframe (cross-origin; every driver reaches into it). */
  frame(): Promise<FrameRef>;
  events(type?: string): Promise<RecordedEvent[]>;
  /** The messages the dashboard frames posted to the page, in order. */
  messages(): Promise<FrameMessage[]>;
  /** The page's requests to the BFF's token routes, in order. */
  tokenRequests(): Promise<TokenRequest[]>;
  /** The page's console errors and warnings and uncaught exceptions (the top document's, in every engine). */
  console(): Promise<string[]>;
  /** The element's `state` attribute. */
  state(): Promise<string | null>;
  /** The text of the page element with `data-testid` `id`. */
  text(id: string): Promise<string | null>;
  /** The dashboard page's `<body data-state>` and `data-token-generation`. */
  dashboard(): Promise<{ state: string | undefined; generation: number }>;
  /**
   * An identity of the document in the dashboard frame: the same value as long as the frame
   * has not navigated (a marker it keeps in its window).
   */
  dashboardDocument(): Promise<string>;
}

const isDashboardUrl = (url: string) => url.includes('/iframe/');

/** Opens `/app` in `context` (signing in as `customer` first unless `signIn` is false). */
export async function openApp(context: EngineContext, demo: RunningDemo, customer: string, signIn = true): Promise<AppTab> {
  const tab = await context.newTab();
  await tab.goto(signIn ? `${demo.url}/login?customer=${customer}` : `${demo.url}/app`);
  const probe = () => tab.evaluate(() => window.__probe ?? { events: [], messages: [], tokenRequests: [], console: [] });
  const app: AppTab = {
    tab,
    context,
    demo,
    frame: () => tab.frame(isDashboardUrl, 5_000),
    events: async (type) => (await probe()).events.filter((e) => !type || e.type === type),
    messages: async () => (await probe()).messages,
    tokenRequests: async () => (await probe()).tokenRequests,
    console: async () => (await probe()).console,
    state: () => tab.evaluate(() => document.querySelector('embedded-dashboard')?.getAttribute('state') ?? null),
    text: (id) => tab.evaluate((selector) => document.querySelector(selector)?.textContent ?? null, testId(id)),
    async dashboard() {
      return (await app.frame()).evaluate(() => ({ state: document.body.dataset.state, generation: Number(document.body.dataset.tokenGeneration) }));
    },
    async dashboardDocument() {
      return (await app.frame()).evaluate(() => {
        const marked = window as unknown as { __documentMark?: string };
        return (marked.__documentMark ??= `${performance.timeOrigin}-${Math.random()}`);
      });
    },
  };
  return app;
}

/** Waits until the element is `ready` and its dashboard shows data. */
export async function waitForReady(app: AppTab, timeoutMs = 20_000): Promise<void> {
  await eventually('the element to be ready', async () => (await app.state()) === 'ready', timeoutMs);
  await eventually('the dashboard to show data', async () => (await app.dashboard()).state === 'ready', timeoutMs);
}

/** Waits until the dashboard runs on token generation `generation` and shows data. */
export async function waitForGeneration(app: AppTab, generation: number, timeoutMs = 20_000): Promise<void> {
  await eventually(
    `the dashboard to show data on token generation ${generation}`,
    async () => {
      const dashboard = await app.dashboard();
      return dashboard.generation === generation && dashboard.state === 'ready';
    },
    timeoutMs,
  );
  await waitForReady(app, timeoutMs);
}

/** The HTTP statuses of the tab's token requests from index `from` on, once all are answered (`0`: no answer). */
export async function tokenStatuses(app: AppTab, from = 0): Promise<number[]> {
  const answered = await eventually('every token request to be answered', async () => {
    const requests = (await app.tokenRequests()).slice(from);
    return requests.every((request) => request.status !== undefined) ? requests : undefined;
  });
  return answered.map((request) => request.status ?? 0);
}

/** The token of the tab's latest successful `/embed/token*` answer. */
export async function latestToken(app: AppTab): Promise<string> {
  return eventually(
    'a successful token response',
    async () => (await app.tokenRequests()).findLast((request) => request.status === 200 && request.token)?.token,
  );
}

/** The first token the page was answered (a renewal on a loaded machine may already be in). */
export async function firstToken(app: AppTab): Promise<string> {
  return eventually('the first token', async () => (await app.tokenRequests()).find((request) => request.status === 200 && request.token)?.token);
}

/** Clicks the demo's button `id` (a user's click). */
export const clickTestId = (app: AppTab, id: string) => app.tab.click(testId(id));

/**
 * Presses "Expire the token now" and waits until the demo says the vendor now refuses the token.
 * The click goes through the page's DOM: a driver's click is by coordinates in WebKit, and WebKit
 * twice showed no result at all for 20 s (ci33 explo-jwt, ci56 explo, under load). A miss says
 * what the page showed: no answer with the button still disabled (the demo's request in flight),
 * or an empty result with the button enabled (the click reached no handler), and its console.
 */
export async function expireWithButton(app: AppTab): Promise<void> {
  await app.tab.evaluate((selector) => (document.querySelector(selector)!.textContent = ''), testId('action-result'));
  await app.tab.evaluate((selector) => document.querySelector<HTMLButtonElement>(selector)!.click(), testId('expire-token'));
  await eventually('the vendor to refuse the token', async () => {
    const text = await app.text('action-result');
    if (text?.includes('now refuses')) return true;
    const disabled = await app.tab.evaluate((selector) => document.querySelector<HTMLButtonElement>(selector)?.disabled, testId('expire-token'));
    throw new Error(`action result ${JSON.stringify(text)}, expire button ${disabled ? 'disabled (its request in flight)' : 'enabled'}`);
  }).catch(async (error: Error) => {
    throw new Error(`${error.message}; console ${JSON.stringify(await app.console())}`, { cause: error });
  });
}

/** Switches the demo's vendor outage on or off with its button, and waits until it is. */
export async function setOutage(app: AppTab, on: boolean): Promise<void> {
  const pressed = () => app.tab.evaluate((selector) => document.querySelector(selector)?.getAttribute('aria-pressed') === 'true', testId('toggle-outage'));
  if ((await pressed()) === on) return;
  await clickTestId(app, 'toggle-outage');
  await eventually(on ? 'the outage' : 'the outage to end', async () => (await pressed()) === on);
}

export interface FrameWatch {
  /**
   * Animation frames sampled, and how many of them had no dashboard content; waits until at
   * least `minFrames` were sampled (WebKit runs a cross-origin frame's animation frames at 30
   * a second until the user interacts with it: a quick swap may be over in fewer).
   */
  report(minFrames?: number): Promise<{ frames: number; blank: number; states: string[] }>;
}

/**
 * Watches the dashboard frame from inside: on every animation frame, is the dashboard's
 * content (the group name) there and visible? And which `data-state`s did the body go through?
 * (requestAnimationFrame inside the page: the same in every engine.)
 */
export async function watchDashboardFrame(frame: FrameRef): Promise<FrameWatch> {
  await frame.evaluate(() => {
    const probe = { frames: 0, blank: 0, states: [document.body.dataset.state ?? ''] };
    (window as unknown as { __watch: typeof probe }).__watch = probe;
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
  const read = () =>
    frame.evaluate(() => {
      const watch = (window as unknown as { __watch?: { frames: number; blank: number; states: string[] } }).__watch;
      if (!watch) throw new Error('the dashboard frame has navigated since the watch began');
      return { ...watch };
    });
  return {
    async report(minFrames = 11) {
      await eventually(`${minFrames} animation frames sampled in the dashboard`, async () => (await read()).frames >= minFrames, 10_000);
      return read();
    },
  };
}

/** Posts a message to the host page from inside the dashboard frame, as the dashboard itself would. */
export function postFromDashboard(frame: FrameRef, hostOrigin: string, message: unknown): Promise<void> {
  return frame.evaluate(([origin, data]) => window.parent.postMessage(data, origin), [hostOrigin, message] as const);
}

/** The iframe's rendered height inside the element, in CSS px. */
export function iframeHeight(tab: Tab): Promise<number> {
  return tab.evaluate(() => {
    const element = document.querySelector('embedded-dashboard');
    const frame = element?.shadowRoot?.querySelector('iframe') ?? element?.querySelector('iframe');
    if (!frame) throw new Error('the element has no iframe');
    return Math.round(frame.getBoundingClientRect().height);
  });
}

export interface HostSample {
  at: number;
  /** Ids of the iframes a viewer can see (not hidden, not visibility:hidden). */
  visible: string[];
}

declare global {
  interface Window {
    __hostSamples?: HostSample[];
    /** When (epoch ms) each iframe, by id, posted dashboardLoaded: its content was rendered by then. */
    __loadedAt?: Record<string, number>;
  }
}

/**
 * Every animation frame of the host page from now on: which dashboard iframes are visible (in
 * `window.__hostSamples`), and when each said `dashboardLoaded` (`window.__loadedAt`). `page` is a
 * tab of any engine, or a playwright page (test/topology).
 */
export async function sampleHost(page: { evaluate(fn: () => void): Promise<unknown> }): Promise<void> {
  await page.evaluate(() => {
    const samples: HostSample[] = (window.__hostSamples = []);
    window.__loadedAt = {};
    addEventListener(
      'message',
      (event) => {
        if ((event.data as { event?: unknown } | null)?.event !== 'dashboardLoaded') return;
        const frames = [...(document.querySelector('embedded-dashboard')?.shadowRoot?.querySelectorAll('iframe') ?? [])];
        const id = frames.find((f) => f.contentWindow === event.source)?.id;
        if (id) window.__loadedAt![id] = performance.timeOrigin + performance.now();
      },
      true,
    );
    const tick = () => {
      const frames = [...(document.querySelector('embedded-dashboard')?.shadowRoot?.querySelectorAll('iframe') ?? [])];
      samples.push({
        at: performance.timeOrigin + performance.now(),
        visible: frames.filter((f) => !f.hidden && getComputedStyle(f).visibility !== 'hidden' && f.getBoundingClientRect().height > 0).map((f) => f.id),
      });
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
}

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../ports.js';
import { cookieMatches } from './cookies.js';
import {
  DEFAULT_VIEWPORT,
  poll,
  type Cookie,
  type CookieAttributes,
  type EngineBrowser,
  type EngineSupport,
  type EngineContext,
  type FrameRef,
  type LaunchOptions,
  type Tab,
  type Viewport,
} from './types.js';
import { ELEMENT_KEY, WebDriverError, WebDriverSession, webdriverCommand, type ElementRef } from './webdriver-classic.js';

/** MiniBrowser's toolbar keeps its window at least this wide (CSS px of the page at zoom 1). */
const MIN_WINDOW_WIDTH = 447;
/** How long a resize may take to reach the page before it is measured again (X applies it asynchronously). */
const RESIZE_SETTLE_MS = 3_000;

export const WEBKIT_SUPPORT: EngineSupport = {
  initScripts: false,
  console: false,
  network: false,
  namedHosts: false,
  navigationStatus: false,
  minViewportWidth: MIN_WINDOW_WIDTH,
};

/** Where Debian's webkit2gtk-driver finds the browser it drives (package libwebkit2gtk-4.1-0). */
export const MINIBROWSER_PATH = '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

export interface WebKitPaths {
  driver: string;
  minibrowser: string;
  xvfb: string;
}

/**
 * WebKitGTK through Debian's WebKitWebDriver (classic WebDriver: built without BiDi, a session
 * asking for `webSocketUrl` is refused) driving MiniBrowser on one Xvfb display per browser.
 * One WebKitWebDriver holds one session, and a session is one MiniBrowser with its own
 * ephemeral storage: so each context is a driver process and a MiniBrowser of its own, and
 * its tabs are that session's windows (windows, not tabs of one window: a background tab is
 * hidden and runs no animation frame, while every page of the other drivers is visible). Commands of one session go one at a time (the protocol
 * has one current window and frame).
 */
export async function launchWebKitEngine(paths: WebKitPaths, options: LaunchOptions = {}): Promise<EngineBrowser> {
  if (options.namedHosts?.length)
    throw new Error(
      'named hosts are not supported in WebKit (MiniBrowser has no host-resolver setting): give it an HTTP proxy that tunnels them (webkitArgs --proxy, as test/topology does)',
    );
  if (options.trustedCa)
    throw new Error(
      "WebKitGTK cannot trust a CA for one launch (GnuTLS reads only the system-wide /etc/ssl/certs/ca-certificates.crt): give it webkitCertificates, each host's own certificate",
    );
  const browserOptions = webkitBrowserOptions(options);
  const xvfb = await startXvfb(paths.xvfb);
  const contexts = new Set<WebKitContext>();
  let version = '';
  const start = async (viewport: Viewport): Promise<WebKitContext> => {
    const context: WebKitContext = await WebKitContext.start(paths, xvfb.display, browserOptions, options.acceptInsecureCerts ?? false, viewport, () =>
      contexts.delete(context),
    );
    contexts.add(context);
    version ||= context.version;
    return context;
  };
  // The next context, started (its window sized to the default viewport) while the current test
  // runs: a MiniBrowser session takes seconds to start, 10-15 s on a loaded two-core machine,
  // which every WebKit scenario would otherwise wait for. Each context still is a fresh session.
  let next: Promise<WebKitContext> | undefined;
  const warm = () => {
    next = start(DEFAULT_VIEWPORT).then(async (context) => {
      await context.prepare();
      return context;
    });
    next.catch(() => undefined);
  };
  let closed = false;
  const browser: EngineBrowser = {
    engine: 'webkit',
    get version() {
      return version;
    },
    supports: WEBKIT_SUPPORT,
    async newContext(contextOptions = {}) {
      if (closed) throw new Error('the WebKit browser is closed');
      const viewport = contextOptions.viewport ?? DEFAULT_VIEWPORT;
      const waiting = next;
      next = undefined;
      // A warm context that failed to start: start one now, which says why if it fails again.
      const context = (await waiting?.catch(() => undefined)) ?? (await start(viewport));
      context.viewport = viewport;
      warm();
      return context;
    },
    async close() {
      closed = true;
      await next?.catch(() => undefined);
      await Promise.all([...contexts].map((context) => context.close()));
      if (xvfb.child) await stopProcess(xvfb.child);
    },
  };
  // The first context up front: it proves the driver works and tells the version; the first
  // context a test asks for is this one.
  warm();
  try {
    await next;
  } catch (error) {
    await browser.close();
    throw error;
  }
  return browser;
}

type BrowserOptions = { args: string[]; certificates?: { host: string; certificateFile: string }[] };

/** MiniBrowser's arguments and certificates for `options` (WebKitWebDriver's `webkitgtk:browserOptions`). */
function webkitBrowserOptions(options: LaunchOptions): BrowserOptions {
  // `no-third-party` (MiniBrowser's default) refuses cookies a third party sets, yet sends those a
  // site set as a first party; blocking them as Safari does takes its Intelligent Tracking Prevention.
  const cookies =
    options.thirdPartyCookies === 'allow'
      ? ['--cookies-policy=always']
      : options.thirdPartyCookies === 'block'
        ? ['--cookies-policy=no-third-party', '--enable-itp']
        : ['--cookies-policy=no-third-party'];
  const args = ['--automation', ...cookies, ...(options.webkitArgs ?? [])];
  const certificates = (options.webkitCertificates ?? []).map(({ host, certificateFile }) => ({ host, certificateFile }));
  return certificates.length ? { args, certificates } : { args };
}

/** What `WebKitContext.handOver` tells another process: the driver's URL, the session, its spare window. */
interface WebKitHandOver {
  base: string;
  id: string;
  capabilities: Record<string, unknown>;
  version: string;
  window: string;
}

/**
 * WebKit of default launch options for a whole test run (test/e2e/global-setup.ts): one Xvfb, and
 * a small HTTP service on 127.0.0.1 that hands out contexts, each still a WebKitWebDriver and a
 * MiniBrowser of its own with a fresh profile (as `launchWebKitEngine`'s), started and sized
 * ahead (`warm` at a time, one per test file that may run at once) so that a file's first context
 * is ready as its later ones are. `connectWebKitEngine(endpoint)` is the test file's side:
 * `POST /contexts` takes one (the next is started at once), `DELETE /contexts/<session>` stops it.
 */
export async function serveWebKit(paths: WebKitPaths, { warm = 1 }: { warm?: number } = {}): Promise<{ endpoint: string; close(): Promise<void> }> {
  const browserOptions = webkitBrowserOptions({});
  const xvfb = await startXvfb(paths.xvfb);
  const handedOut = new Map<string, WebKitContext>();
  const ready: Promise<WebKitContext>[] = [];
  let closed = false;
  let version = '';
  const start = (viewport: Viewport) => WebKitContext.start(paths, xvfb.display, browserOptions, false, viewport, () => undefined);
  const warmOne = () => {
    const next = start(DEFAULT_VIEWPORT).then(async (context) => {
      await context.prepare();
      return context;
    });
    next.catch(() => undefined);
    ready.push(next);
  };
  const take = async (): Promise<WebKitHandOver> => {
    if (closed) throw new Error('the shared WebKit is closed');
    const waiting = ready.shift();
    warmOne();
    // A warm context that failed to start: start one now, which says why if it fails again.
    const context = (await waiting?.catch(() => undefined)) ?? (await start(DEFAULT_VIEWPORT));
    const handOver = context.handOver();
    handedOut.set(handOver.id, context);
    return handOver;
  };
  const server = createServer((request, response) => {
    const answer = (status: number, body: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const stopped = /^\/contexts\/([\w-]+)$/.exec(request.url ?? '');
    if (request.method === 'GET' && request.url === '/version') {
      answer(200, { version });
    } else if (request.method === 'POST' && request.url === '/contexts') {
      take().then(
        (handOver) => answer(200, handOver),
        (error: Error) => answer(500, { error: error.message }),
      );
    } else if (request.method === 'DELETE' && stopped) {
      const context = handedOut.get(stopped[1]!);
      handedOut.delete(stopped[1]!);
      (context?.close() ?? Promise.resolve()).then(
        () => answer(200, {}),
        (error: Error) => answer(500, { error: error.message }),
      );
    } else answer(404, { error: `no ${request.method} ${request.url}` });
  });
  const close = async () => {
    closed = true;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    const waiting = ready.splice(0).map((next) =>
      next.then(
        (context) => context.close(),
        () => undefined,
      ),
    );
    await Promise.all([...waiting, ...[...handedOut.values()].map((context) => context.close())]);
    handedOut.clear();
    if (xvfb.child) await stopProcess(xvfb.child);
  };
  try {
    for (let i = 0; i < Math.max(1, warm); i++) warmOne();
    // The first context proves the driver works before any test asks for one, and tells the version.
    version = (await ready[0]!).version;
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  } catch (error) {
    await close();
    throw error;
  }
  return { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close };
}

/** The WebKit of `serveWebKit`: each context one of its warm ones; `close()` stops this connection's contexts, not the service. */
export async function connectWebKitEngine(endpoint: string): Promise<EngineBrowser> {
  const contexts = new Set<WebKitContext>();
  let closed = false;
  const call = async <T>(method: 'GET' | 'POST' | 'DELETE', path: string): Promise<T> => {
    // A context can take a minute to start on a loaded two-core machine.
    const response = await fetch(`${endpoint}${path}`, { method, signal: AbortSignal.timeout(120_000) });
    const body = (await response.json()) as T & { error?: string };
    if (!response.ok) throw new Error(`the shared WebKit (${method} ${path}): ${body.error ?? response.status}`);
    return body;
  };
  const { version } = await call<{ version: string }>('GET', '/version');
  return {
    engine: 'webkit',
    version,
    supports: WEBKIT_SUPPORT,
    async newContext(contextOptions = {}) {
      if (closed) throw new Error('the WebKit browser is closed');
      const handOver = await call<WebKitHandOver>('POST', '/contexts');
      const context: WebKitContext = WebKitContext.attach(
        handOver,
        contextOptions.viewport ?? DEFAULT_VIEWPORT,
        () => call<unknown>('DELETE', `/contexts/${handOver.id}`).then(() => undefined),
        () => contexts.delete(context),
      );
      contexts.add(context);
      return context;
    },
    async close() {
      closed = true;
      await Promise.all([...contexts].map((context) => context.close()));
    },
  };
}

async function stopProcess(child: ChildProcess, graceMs = 3_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Xvfb on a free display (`-displayfd`: the server picks it and says which), within `timeoutMs`. */
export async function startXvfb(path: string, timeoutMs = 10_000): Promise<{ child: ChildProcess; display: string }> {
  const child = spawn(path, ['-displayfd', '3', '-screen', '0', '1920x1200x24', '-nolisten', 'tcp'], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  exitWith(child);
  const named = new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`Xvfb did not name its display within ${timeoutMs} ms: ${errors}`)), timeoutMs);
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) {
        clearTimeout(timer);
        resolve(`:${out.trim()}`);
      }
    });
    child.once('exit', (code) => reject(new Error(`Xvfb exited with ${code}: ${errors}`)));
  });
  // An Xvfb that did not start in time is stopped, not left running: it kept the test process
  // from exiting ("something prevents the main process from exiting") and outlived the run.
  try {
    return { child, display: await named };
  } catch (error) {
    await stopProcess(child);
    throw error;
  }
}

/** Kills `child` when this test process exits, however it exits. */
function exitWith(child: ChildProcess): void {
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  child.once('exit', () => process.off('exit', kill));
}

/** Runs commands of one session one at a time. */
class Serial {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.tail.then(work);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

/** The source sent to `execute/async`: runs `fn(arg)` and answers `{ ok }` or `{ error }`. */
const asyncScript = (fn: (arg: never) => unknown, arg: unknown) =>
  `const done = arguments[arguments.length - 1];
   Promise.resolve().then(() => (${fn.toString()})(${arg === undefined ? 'undefined' : JSON.stringify(arg)}))
     .then((ok) => done({ ok }), (error) => done({ error: String(error && error.stack ? error.message + '\\n' + error.stack : error) }));`;

/** Every iframe of the document, in shadow roots too, in document order. */
const LIST_FRAMES = `const out = [];
  const walk = (root) => { for (const el of root.querySelectorAll('*')) { if (el.localName === 'iframe') out.push(el); if (el.shadowRoot) walk(el.shadowRoot); } };
  walk(document);
  return out;`;

const KEYS = { Enter: '\uE007', Tab: '\uE004' } as const;

class WebKitContext implements EngineContext {
  private readonly serial = new Serial();
  private current: { handle: string; frame: string | null } = { handle: '', frame: null };
  /** The session's first window, not yet handed out as a tab (a session never closes its last window). */
  private spare: string | undefined;
  private readonly tabs = new Set<string>();
  private closed = false;

  private constructor(
    /** Stops the context's WebKitWebDriver (and so its MiniBrowser), or has its owner stop it. */
    private readonly stopDriver: () => Promise<void>,
    private readonly session: WebDriverSession,
    readonly version: string,
    /** The viewport of the context's tabs (set again when a warm context is handed out). */
    public viewport: Viewport,
    private readonly forget: () => void,
  ) {}

  static async start(
    paths: WebKitPaths,
    display: string,
    browserOptions: BrowserOptions,
    acceptInsecureCerts: boolean,
    viewport: Viewport,
    forget: () => void,
  ): Promise<WebKitContext> {
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      // MiniBrowser keeps cookies and storage under XDG_DATA_HOME even in automation mode: a
      // fresh directory per context isolates contexts (and runs) as a fresh profile does.
      const profile = mkdtempSync(join(tmpdir(), 'e2e-webkit-'));
      const xdg = { XDG_DATA_HOME: join(profile, 'data'), XDG_CACHE_HOME: join(profile, 'cache'), XDG_CONFIG_HOME: join(profile, 'config') };
      // Without a GPU, WebKitGTK 2.50's DMA-BUF renderer stalls on Xvfb: no rendering update, so no
      // requestAnimationFrame at all after a while. Its shared-memory fallback renders normally.
      const env = { ...process.env, ...xdg, DISPLAY: display, WEBKIT_DISABLE_DMABUF_RENDERER: '1' };
      const driver = spawn(paths.driver, [`--port=${port}`], { env, stdio: ['ignore', 'ignore', 'pipe'] });
      driver.once('exit', () => rmSync(profile, { recursive: true, force: true }));
      exitWith(driver);
      let output = '';
      driver.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const base = `http://127.0.0.1:${port}`;
      try {
        await poll(
          `WebKitWebDriver on port ${port}`,
          async () => driver.exitCode === null && (await webdriverCommand<{ ready: boolean }>(base, 'GET', '/status', undefined, 2_000)).ready,
          10_000,
          50,
        );
        const session = await WebDriverSession.create(base, {
          acceptInsecureCerts,
          // An axe-core run over a page takes seconds in WebKit on two busy cores.
          timeouts: { script: 60_000 },
          'webkitgtk:browserOptions': { binary: paths.minibrowser, ...browserOptions },
        });
        const context = new WebKitContext(
          () => stopProcess(driver),
          session,
          `MiniBrowser (WebKitGTK ${String(session.capabilities.browserVersion ?? '?')})`,
          viewport,
          forget,
        );
        context.spare = await session.command<string>('GET', '/window');
        context.current = { handle: context.spare, frame: null };
        return context;
      } catch (error) {
        await stopProcess(driver);
        // Another program took the port between freePort() and the driver's bind: try another.
        if (attempt < 3 && /Address already in use|bind/i.test(output)) continue;
        throw new Error(`WebKitWebDriver did not start a MiniBrowser session: ${(error as Error).message}\n${output}`, { cause: error });
      }
    }
  }

  /** What another process needs to drive this context's session (`attach`); this object no longer sends it commands. */
  handOver(): WebKitHandOver {
    if (this.spare === undefined || this.tabs.size > 0) throw new Error('only an unused WebKit context can be handed over');
    return { base: this.session.base, id: this.session.id, capabilities: this.session.capabilities, version: this.version, window: this.spare };
  }

  /** The context `handOver` described, in this process; `stopDriver` has its owner stop the driver once the session is deleted. */
  static attach(handOver: WebKitHandOver, viewport: Viewport, stopDriver: () => Promise<void>, forget: () => void): WebKitContext {
    const context = new WebKitContext(
      stopDriver,
      WebDriverSession.attach(handOver.base, handOver.id, handOver.capabilities),
      handOver.version,
      viewport,
      forget,
    );
    context.spare = handOver.window;
    context.current = { handle: handOver.window, frame: null };
    return context;
  }

  /** Sizes the spare window to the context's viewport ahead of its first tab (which then finds it fitting). */
  async prepare(): Promise<void> {
    const spare = this.spare;
    if (spare !== undefined) await this.on(spare, null, () => this.resize(this.viewport));
  }

  /** Runs `work` with `handle` (and `frame`, an element id in its top document) current. */
  private on<T>(handle: string, frame: string | null, work: () => Promise<T>): Promise<T> {
    return this.serial.run(async () => {
      if (this.closed) throw new Error('the WebKit context is closed');
      if (this.current.handle !== handle) {
        await this.session.command('POST', '/window', { handle });
        this.current = { handle, frame: null };
      }
      // Always through the top document: a frame may have been replaced since.
      if (this.current.frame !== null || frame !== null) {
        await this.session.command('POST', '/frame', { id: null });
        this.current.frame = null;
      }
      if (frame !== null) {
        await this.session.command('POST', '/frame', { id: { [ELEMENT_KEY]: frame } });
        this.current.frame = frame;
      }
      return work();
    });
  }

  private async execute<R>(fn: (arg: never) => unknown, arg: unknown): Promise<R> {
    const answer = await this.session.command<{ ok?: R; error?: string } | null>('POST', '/execute/async', { script: asyncScript(fn, arg), args: [] });
    if (answer && typeof answer.error === 'string') throw new Error(`evaluate failed in WebKit: ${answer.error}`);
    return answer?.ok as R;
  }

  /** WebDriver runs a script as a function body: `var`s stay local, so a UMD library is handed `window` as its `this`. */
  private async executeScript(source: string): Promise<void> {
    await this.session.command('POST', '/execute/sync', { script: `(function () {\n${source}\n}).call(window);`, args: [] });
  }

  /**
   * Clicks the element `selector` names. A page that re-renders between the find and the click
   * leaves a stale reference (a node replaced by an equal one), and one that re-renders during
   * the find makes WebKitWebDriver's find itself answer "stale element reference" (it could not
   * make the node's handle): the selector is found again, as playwright and puppeteer do, at
   * most three times.
   */
  private async clickIn(selector: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        const element = await this.session.command<ElementRef>('POST', '/element', { using: 'css selector', value: selector });
        await this.session.command('POST', `/element/${element[ELEMENT_KEY]}/click`, {});
        return;
      } catch (error) {
        if (!(error instanceof WebDriverError && error.code === 'stale element reference') || attempt === 3) throw error;
      }
    }
  }

  private frameRef(handle: string, frame: string): FrameRef {
    return {
      url: () => this.on(handle, frame, () => this.session.command<string>('POST', '/execute/sync', { script: 'return location.href', args: [] })),
      evaluate: (fn, arg) => this.on(handle, frame, () => this.execute(fn, arg)),
      evaluateScript: (source) => this.on(handle, frame, () => this.executeScript(source)),
      click: (selector) => this.on(handle, frame, () => this.clickIn(selector)),
    };
  }

  async newTab(): Promise<Tab> {
    const handle = this.spare ?? (await this.serial.run(() => this.session.command<{ handle: string }>('POST', '/window/new', { type: 'window' }))).handle;
    this.spare = undefined;
    this.tabs.add(handle);
    const tab = this.tab(handle);
    await tab.setViewport(this.viewport);
    return tab;
  }

  private tab(handle: string): Tab {
    const frames = () =>
      this.on(handle, null, async () => {
        const elements = await this.session.command<ElementRef[]>('POST', '/execute/sync', { script: LIST_FRAMES, args: [] });
        return elements.map((element) => this.frameRef(handle, element[ELEMENT_KEY]));
      });
    const tab: Tab = {
      consoleMessages: [],
      requests: [],
      goto: (url) =>
        this.on(handle, null, async () => {
          await this.session.command('POST', '/url', { url });
          // Classic WebDriver says nothing of the HTTP status; the navigation timing does where the engine has it.
          return this.execute(() => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined)?.responseStatus ?? 0, undefined);
        }),
      url: () => this.on(handle, null, () => this.session.command<string>('GET', '/url')),
      evaluate: (fn, arg) => this.on(handle, null, () => this.execute(fn, arg)),
      evaluateScript: (source) => this.on(handle, null, () => this.executeScript(source)),
      click: (selector) => this.on(handle, null, () => this.clickIn(selector)),
      frames,
      async frame(match, timeoutMs = 20_000) {
        return poll(
          'a matching frame',
          async () => {
            for (const frame of await frames()) if (match(await frame.url().catch(() => ''))) return frame;
            return undefined;
          },
          timeoutMs,
        );
      },
      press: (key) =>
        this.on(handle, null, async () => {
          const value = KEYS[key];
          await this.session.command('POST', '/actions', {
            actions: [
              {
                type: 'key',
                id: 'keyboard',
                actions: [
                  { type: 'keyDown', value },
                  { type: 'keyUp', value },
                ],
              },
            ],
          });
        }),
      setViewport: (viewport) => this.on(handle, null, () => this.resize(viewport)),
      // Switching the session to the window is all WebKit's classic WebDriver has (each context has a window of its own).
      bringToFront: () => this.on(handle, null, async () => undefined),
      screenshot: (path) =>
        this.on(handle, null, async () => {
          writeFileSync(path, Buffer.from(await this.session.command<string>('GET', '/screenshot'), 'base64'));
        }),
      close: () =>
        this.serial.run(async () => {
          if (this.closed || !this.tabs.has(handle)) return;
          this.tabs.delete(handle);
          await this.session.command('POST', '/window', { handle });
          this.current = { handle, frame: null };
          if (this.tabs.size === 0 && this.spare === undefined) {
            // The session's last window stays, empty, for the next tab.
            await this.session.command('POST', '/url', { url: 'about:blank' });
            this.spare = handle;
          } else {
            await this.session.command('DELETE', '/window');
            this.current = { handle: '', frame: null };
          }
        }),
    };
    return tab;
  }

  /**
   * Sizes the window so that the page's viewport is `viewport` (the window adds its toolbar).
   * X applies a window's new size asynchronously: the page sees it a moment after the WebDriver
   * command answers, seconds later on a busy machine. So each attempt reads the toolbar's size
   * (window minus viewport) only after the previous resize has reached the page, and waits for
   * the page to see the size asked before it tries again (a read taken too early once made the
   * correction overshoot: "viewport is 1024x768, not the 1280x800 asked").
   */
  private async resize(viewport: Viewport): Promise<void> {
    if (viewport.width < MIN_WINDOW_WIDTH)
      throw new Error(`MiniBrowser's window cannot be narrower than ${MIN_WINDOW_WIDTH} px (asked ${viewport.width}); see supports.minViewportWidth`);
    const inner = () => this.session.command<[number, number]>('POST', '/execute/sync', { script: 'return [innerWidth, innerHeight]', args: [] });
    const fits = ([width, height]: [number, number]) => width === viewport.width && height === viewport.height;
    let seen = await inner();
    let target: { width: number; height: number } | undefined;
    for (let attempt = 0; attempt < 4 && !fits(seen); attempt++) {
      // The window's size for the viewport asked, from a window and a page that agree; if the
      // last resize never reached the page, the same size is asked again.
      if (target === undefined) {
        const rect = await this.session.command<{ width: number; height: number }>('GET', '/window/rect');
        target = { width: rect.width + viewport.width - seen[0], height: rect.height + viewport.height - seen[1] };
      }
      await this.session.command('POST', '/window/rect', target);
      // Wait until the page sees the size asked; or, once it has moved and then held still a
      // while, measure again from there (the toolbar may change height with the width).
      const deadline = Date.now() + RESIZE_SETTLE_MS;
      let last = seen;
      let still = 0;
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        const now = await inner();
        if (fits(now)) return;
        still = now[0] === last[0] && now[1] === last[1] ? still + 1 : 0;
        last = now;
        if ((now[0] !== seen[0] || now[1] !== seen[1]) && still >= 5) {
          target = undefined;
          break;
        }
        if (Date.now() > deadline) break;
      }
      seen = last;
    }
    if (fits(seen)) return;
    throw new Error(`MiniBrowser's viewport is ${seen[0]}x${seen[1]}, not the ${viewport.width}x${viewport.height} asked`);
  }

  /** Runs `work` in a window at `url`'s origin: an open tab there, else the spare window, else a new one (closed after). */
  private async atOrigin<T>(url: string, work: () => Promise<T>): Promise<T> {
    const origin = new URL(url).origin;
    for (const handle of this.tabs) {
      const here = await this.on(handle, null, () => this.session.command<string>('GET', '/url'));
      if (here.startsWith('http') && new URL(here).origin === origin) return this.on(handle, null, work);
    }
    const handle = this.spare ?? (await this.serial.run(() => this.session.command<{ handle: string }>('POST', '/window/new', { type: 'window' }))).handle;
    return this.on(handle, null, async () => {
      // A path no test server answers: only the origin matters for cookies.
      await this.session.command('POST', '/url', { url: `${origin}/.well-known/e2e-cookie-jar` });
      try {
        return await work();
      } finally {
        if (handle === this.spare) await this.session.command('POST', '/url', { url: 'about:blank' });
        else {
          await this.session.command('DELETE', '/window');
          this.current = { handle: '', frame: null };
        }
      }
    });
  }

  cookies(url: string): Promise<Cookie[]> {
    return this.atOrigin(url, async () => {
      const cookies = await this.session.command<Array<Cookie & { sameSite?: string }>>('GET', '/cookie');
      return cookies
        .filter((cookie) => cookieMatches(cookie, url))
        .map(({ name, value, domain, path, httpOnly, secure, sameSite }) => ({ name, value, domain, path, httpOnly, secure, sameSite }));
    });
  }

  setCookie(url: string, name: string, value: string, attributes: CookieAttributes = {}): Promise<void> {
    return this.atOrigin(url, () => this.session.command('POST', '/cookie', { cookie: { name, value, path: '/', ...attributes } }));
  }

  addInitScript(): Promise<void> {
    return Promise.reject(
      new Error("WebKit's classic WebDriver runs no script before the page's own (supports.initScripts is false): put the probe in the page"),
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.serial.run(async () => {
      this.closed = true;
      this.forget();
      await this.session.delete().catch(() => undefined);
    });
    await this.stopDriver();
  }
}

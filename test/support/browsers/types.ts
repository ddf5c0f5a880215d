/**
 * One browser-driver interface for the end-to-end scenarios, implemented three times: Chromium
 * through playwright-core (CDP), Firefox ESR through puppeteer-core (WebDriver BiDi) and
 * WebKitGTK through WebKitWebDriver driving MiniBrowser under Xvfb (classic WebDriver: Debian's
 * WebKitWebDriver 2.50 is built without BiDi). All three browsers are Debian's; nothing here
 * downloads one.
 *
 * Write a scenario once against `EngineBrowser`, `EngineContext`, `Tab` and `FrameRef`, and run
 * it per engine (`describe.each(engines)`). What the interface promises, in every engine:
 * - contexts are isolated from each other (cookies, storage, BroadcastChannel), tabs of one
 *   context share them (cross-tab scenarios);
 * - `evaluate` runs a function in the page or in a frame of any origin (the cross-origin
 *   dashboard frame included): it is sent as source text, so it may use only its argument
 *   (JSON-serialisable) and return a JSON-serialisable value (or a promise of one);
 * - `goto` returns after the document's `load` event;
 * - `click`/`press` are real input events (trusted), as a user's.
 * What only some engines can do is under `supports`; a scenario that needs it checks the flag
 * (and says why in its name when it runs in fewer engines):
 * - `initScripts`: a script in every new document before the page's own (WebKit's classic
 *   WebDriver has none: put such a probe in the page itself, see test/e2e/harness.ts);
 * - `console`: console errors/warnings and uncaught exceptions of the page and its frames;
 * - `network`: the requests a tab sends (URL, method, status).
 * Every wait is bounded; every process is closed with its browser, even after a failed test.
 */

export type EngineName = 'chromium' | 'firefox' | 'webkit';

export interface Viewport {
  /** CSS pixels. */
  width: number;
  height: number;
}

/** How a browser is started: what a named-host, TLS or third-party-cookie topology needs. */
export interface LaunchOptions {
  /**
   * Host names the browser resolves to 127.0.0.1 by its own mechanism (Chromium
   * `--host-resolver-rules`, Firefox `network.dns.localDomains`; WebKit has none of its own:
   * not supported there yet, see `supports.namedHosts`).
   */
  namedHosts?: readonly string[];
  /**
   * Third-party cookies: `block` as Chromium (from 2025 on by default in its incognito, and
   * in Safari's WebKit) ships: a cookie is never sent to, nor set by, another site than the
   * page's (WebKit: Intelligent Tracking Prevention on, as in Safari); `allow` lets them
   * through. Default: each engine's own default (Chromium: allowed; Firefox ESR: partitioned
   * per top-level site, "Total Cookie Protection": a site's own cookies are not sent from
   * another site's page; MiniBrowser: `no-third-party`, which refuses cookies a third party
   * sets but still sends those its site set as a first party).
   */
  thirdPartyCookies?: 'block' | 'allow';
  /** Accept every certificate, whoever signed it (WebDriver's `acceptInsecureCerts`). Default false. */
  acceptInsecureCerts?: boolean;
  /**
   * A CA certificate (PEM file) the browser trusts for this launch only, besides its own roots:
   * Chromium by the CA's key (`--ignore-certificate-errors-spki-list`), Firefox in the NSS
   * database of the launch's fresh profile (`certutil`, package libnss3-tools). WebKitGTK
   * cannot (GnuTLS reads one system-wide file): launching it with this throws; give it
   * `webkitCertificates` instead.
   */
  trustedCa?: string;
  /** Engine-specific extras, for what the options above do not cover. */
  chromiumArgs?: readonly string[];
  firefoxPrefs?: Readonly<Record<string, string | number | boolean>>;
  webkitArgs?: readonly string[];
  /**
   * WebKitGTK: the server certificate (PEM file) each host presents, accepted for that host only,
   * for this launch (WebKitWebDriver's `webkitgtk:browserOptions.certificates`, which the browser
   * passes to `webkit_web_context_allow_tls_certificate_for_host`): a pin per host, not a CA, so
   * any other certificate, at these hosts or others, is still refused.
   */
  webkitCertificates?: readonly { host: string; certificateFile: string }[];
}

export interface ContextOptions {
  /** The size of every tab's viewport in this context; default 1280x800. */
  viewport?: Viewport;
}

export interface Cookie {
  name: string;
  value: string;
  domain: string;
  path: string;
  httpOnly: boolean;
  secure: boolean;
  sameSite?: string;
}

/** What `setCookie` may say besides name and value. */
export interface CookieAttributes {
  secure?: boolean;
  httpOnly?: boolean;
  sameSite?: 'Strict' | 'Lax' | 'None';
}

/** One request a tab sent (only where `supports.network`). */
export interface SentRequest {
  url: string;
  method: string;
  /** `document` for a page or frame navigation; the engine's own word otherwise. */
  resourceType: string;
  /** Whether the request is the top-level document's own navigation. */
  mainFrame: boolean;
  /** `Date.now()` in the test when it was seen. */
  at: number;
  /** The response's status, `0` when none came (refused, aborted). */
  status(): Promise<number>;
}

export interface Evaluator {
  /** Runs `fn(arg)` in this document and returns its (awaited) result. See the file comment. */
  evaluate<R, A = undefined>(fn: (arg: A) => R | Promise<R>, arg?: A): Promise<Awaited<R>>;
  /**
   * Runs script source text in this document, past the document's Content-Security-Policy as a
   * driver's scripts are: to inject a library (axe-core) into a page that allows no eval. Its
   * top-level `var`s may stay local (WebKit runs it as a function body, `this` the window): a
   * library must put its globals on `window`, as UMD bundles do.
   */
  evaluateScript(source: string): Promise<void>;
  /** Clicks the first element matching the CSS `selector` in this document, as a user would. */
  click(selector: string): Promise<void>;
}

/** A child frame of a tab's top document (an `<iframe>`, in a shadow root too). */
export interface FrameRef extends Evaluator {
  /** The frame's current URL. */
  url(): Promise<string>;
}

export interface Tab extends Evaluator {
  /** Navigates and waits for the `load` event; the HTTP status of the document (`0` where `supports.navigationStatus` is false). */
  goto(url: string): Promise<number>;
  url(): Promise<string>;
  /** The iframes of the top document (in the order of the document, shadow roots included). */
  frames(): Promise<FrameRef[]>;
  /** The first child frame whose URL matches, waiting up to `timeoutMs` for one. */
  frame(match: (url: string) => boolean, timeoutMs?: number): Promise<FrameRef>;
  /** Presses one key (`Enter`, `Tab`) in whatever has focus. */
  press(key: 'Enter' | 'Tab'): Promise<void>;
  setViewport(viewport: Viewport): Promise<void>;
  /**
   * Makes this the tab a viewer sees. Firefox shows one tab of its window: a tab opened in another
   * context hides this one (`document.visibilityState` `hidden`), and the element skips its frame's
   * height polls while hidden, as it should.
   */
  bringToFront(): Promise<void>;
  /** A PNG of the viewport. */
  screenshot(path: string): Promise<void>;
  /** Console errors and warnings, and uncaught exceptions, of the page and its frames since the tab opened (`supports.console`). */
  readonly consoleMessages: readonly string[];
  /** The requests this tab sent since it opened (`supports.network`). */
  readonly requests: readonly SentRequest[];
  close(): Promise<void>;
}

export interface EngineContext {
  newTab(): Promise<Tab>;
  /** The cookies the context would send to `url`. */
  cookies(url: string): Promise<Cookie[]>;
  /** Sets a cookie for `url`'s host (path `/`), as if that site had set it (with `attributes`, else a plain cookie). */
  setCookie(url: string, name: string, value: string, attributes?: CookieAttributes): Promise<void>;
  /** Runs `fn(arg)` in every document of this context's tabs opened from now on, before the page's own scripts (`supports.initScripts`). */
  addInitScript<A>(fn: (arg: A) => unknown, arg?: A): Promise<void>;
  close(): Promise<void>;
}

export interface EngineSupport {
  initScripts: boolean;
  console: boolean;
  network: boolean;
  namedHosts: boolean;
  /** `Tab.goto` tells the document's HTTP status (classic WebDriver does not, nor WebKit's navigation timing). */
  navigationStatus: boolean;
  /** The narrowest viewport the engine's window can have (MiniBrowser's toolbar sets one). */
  minViewportWidth: number;
}

export interface EngineBrowser {
  readonly engine: EngineName;
  /** The browser's own version string (for reports). */
  readonly version: string;
  readonly supports: EngineSupport;
  newContext(options?: ContextOptions): Promise<EngineContext>;
  /** Closes every context and the browser's processes. */
  close(): Promise<void>;
}

export const DEFAULT_VIEWPORT: Viewport = { width: 1280, height: 800 };

/** Polls `probe` until it returns a truthy value, or throws after `timeoutMs` saying `what`. */
export async function poll<T>(what: string, probe: () => Promise<T> | T, timeoutMs = 20_000, everyMs = 100): Promise<NonNullable<T>> {
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

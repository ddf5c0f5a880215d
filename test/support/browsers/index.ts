/**
 * The three engines the end-to-end scenarios run in, each from Debian: see ./types.ts for the
 * interface a scenario is written against. `ENGINES` lists them with their tools; a missing
 * browser fails under CI=true and is skipped, loudly, elsewhere (../tools.ts).
 * `E2E_ENGINES=chromium,firefox` narrows a local run.
 */
import { chromiumTool, firefoxTool, webkitTools, type Tool } from '../tools.js';
import { CHROMIUM_SUPPORT, connectChromiumEngine, launchChromiumEngine, serveChromium } from './chromium.js';
import { connectFirefoxEngine, FIREFOX_SUPPORT, launchFirefoxEngine, serveFirefox } from './firefox.js';
import type { EngineBrowser, EngineName, EngineSupport, LaunchOptions } from './types.js';
import { connectWebKitEngine, launchWebKitEngine, serveWebKit, WEBKIT_SUPPORT } from './webkit.js';

export * from './types.js';

export interface Engine {
  name: EngineName;
  /** Whether its binaries are there (always true under CI=true, which fails without them). */
  available: boolean;
  /** What the engine's driver can do (the same as its browsers' `supports`), known before launch. */
  supports: EngineSupport;
  launch(options?: LaunchOptions): Promise<EngineBrowser>;
  /**
   * Starts a browser of default launch options that test files connect to (`connect(endpoint)`)
   * instead of each launching its own: a vitest globalSetup's job (test/e2e/global-setup.ts).
   * `clients`: how many files may be connected at once. Chromium takes them all; Firefox's remote
   * agent holds one WebDriver BiDi session, so one file at a time (serve one per client); WebKit's
   * service keeps `clients` contexts started ahead (each context is a WebKitWebDriver and a
   * MiniBrowser of its own, as when launched).
   */
  serve?(clients?: number): Promise<SharedBrowser>;
  /** A browser on what `serve()` started; its `close()` closes what this connection opened and leaves the browser running. */
  connect?(endpoint: string): Promise<EngineBrowser>;
}

/** A browser `Engine.serve` started, for `Engine.connect`. */
export interface SharedBrowser {
  /** What `Engine.connect` takes (a WebSocket URL). */
  endpoint: string;
  close(): Promise<void>;
}

const ALL: readonly EngineName[] = ['chromium', 'firefox', 'webkit'];

function chosen(): readonly EngineName[] {
  const asked = process.env.E2E_ENGINES?.split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (!asked?.length) return ALL;
  const unknown = asked.filter((name) => !ALL.includes(name as EngineName));
  if (unknown.length) throw new Error(`E2E_ENGINES names unknown engines: ${unknown.join(', ')} (known: ${ALL.join(', ')})`);
  if (process.env.CI === 'true' && asked.length < ALL.length) throw new Error('E2E_ENGINES cannot leave engines out under CI=true');
  return asked as EngineName[];
}

const unavailable = (tool: Tool) => () => Promise.reject(new Error(`${tool.name} is not installed`));

/** Engine `name` with its tools looked up now (once per test file). */
export function engine(name: EngineName): Engine {
  if (name === 'chromium') {
    const tool = chromiumTool();
    if (!tool.available) return { name, available: false, supports: CHROMIUM_SUPPORT, launch: unavailable(tool) };
    return {
      name,
      available: true,
      supports: CHROMIUM_SUPPORT,
      launch: (options) => launchChromiumEngine(tool.path, options),
      serve: () => serveChromium(tool.path),
      connect: connectChromiumEngine,
    };
  }
  if (name === 'firefox') {
    const tool = firefoxTool();
    if (!tool.available) return { name, available: false, supports: FIREFOX_SUPPORT, launch: unavailable(tool) };
    return {
      name,
      available: true,
      supports: FIREFOX_SUPPORT,
      launch: (options) => launchFirefoxEngine(tool.path, options),
      serve: () => serveFirefox(tool.path),
      // The shared one, or, when it takes no session in time, one of this file's own.
      connect: (endpoint) => connectFirefoxEngine(endpoint).catch(() => launchFirefoxEngine(tool.path)),
    };
  }
  const tools = webkitTools();
  if (!tools.available) return { name, available: false, supports: WEBKIT_SUPPORT, launch: unavailable(tools) };
  const paths = { driver: tools.path, minibrowser: tools.minibrowser, xvfb: tools.xvfb };
  return {
    name,
    available: true,
    supports: WEBKIT_SUPPORT,
    launch: (options) => launchWebKitEngine(paths, options),
    serve: (clients) => serveWebKit(paths, { warm: clients }),
    connect: connectWebKitEngine,
  };
}

/** The engines of this run (all three unless `E2E_ENGINES` narrows a local run), for `describe.each`. */
export const engines = (): Engine[] => chosen().map(engine);
